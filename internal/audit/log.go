package audit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/switchboard-ai/switchboard/principal"
)

// Config holds what [New] needs; Recorder is required.
type Config struct {
	Recorder Recorder
	// Logger receives every entry that could not be written, whole, at ERROR.
	Logger *slog.Logger
	// Meters counts those entries in switchboard_audit_write_failures_total.
	Meters metric.MeterProvider
	// Now is the clock entries are stamped with; default time.Now.
	Now func() time.Time
	// QueueSize bounds the entries waiting to be written; default 4096. An entry recorded
	// while the queue is full is not written but logged and counted, like a failed write.
	QueueSize int
}

// Log writes entries to a [Recorder] off the caller's path; see the package doc.
type Log struct {
	rec      Recorder
	log      *slog.Logger
	failures metric.Int64Counter
	now      func() time.Time
	refusals Refusals

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	queue  chan Entry
	flush  chan chan struct{}
	stop   chan struct{}
	done   chan struct{}
	gather *time.Timer // the writer's, reused for every batch; see batchDelay
	batch  []Entry     // the writer's, reused for every batch: a busy log's grew to hundreds

	stopTick func()
}

const (
	// refusalTick is how often the writer looks for minutes of refusals to write.
	refusalTick = 10 * time.Second
	// writeTimeout bounds one batch's write, so that a hung database fills the queue (and so
	// the logs) instead of holding entries forever.
	writeTimeout = 10 * time.Second
)

// maxBatch bounds the entries written in one transaction.
const maxBatch = 256

// batchDelay is how long the writer gathers entries after the first of a batch: a busy service
// records two entries a turn, and one write (one transaction, one timeout) every few
// milliseconds costs far less than one per entry. Flush and Close end the wait at once.
const batchDelay = 5 * time.Millisecond

// New starts a Log writing to cfg.Recorder. The caller must call [Log.Close].
func New(cfg Config) (*Log, error) { return start(cfg, nil) }

// start is New; ticks, when not nil, replaces the writer's clock for refusals (tests).
func start(cfg Config, ticks <-chan time.Time) (*Log, error) {
	if cfg.Recorder == nil {
		return nil, errors.New("audit: a recorder is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Meters == nil {
		cfg.Meters = noop.NewMeterProvider()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	failures, err := cfg.Meters.Meter("github.com/switchboard-ai/switchboard").Int64Counter("switchboard_audit_write_failures_total",
		metric.WithDescription("Audit log entries that could not be written (each is logged at ERROR instead). Must stay zero."))
	if err != nil {
		return nil, err
	}
	failures.Add(context.Background(), 0) // reads 0, not "no data", for the alert on any increase
	l := &Log{
		rec: cfg.Recorder, log: cfg.Logger, failures: failures, now: cfg.Now,
		queue: make(chan Entry, cfg.QueueSize), flush: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), stopTick: func() {},
		gather: time.NewTimer(batchDelay),
	}
	l.gather.Stop()
	if ticks == nil {
		tick := time.NewTicker(refusalTick)
		l.stopTick, ticks = tick.Stop, tick.C
	}
	go l.run(ticks)
	return l, nil
}

// Record queues an entry about p. It never blocks: when the entry cannot be queued (the log is
// closed or its queue full) it is logged and counted as a failed write.
func (l *Log) Record(ctx context.Context, p principal.Principal, d Detail) {
	if d == nil {
		return
	}
	e := Entry{Time: l.now().UTC().Truncate(timePrecision), Principal: principal.Principal(clip(string(p))), Detail: d.bounded()}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		l.failed(ctx, []Entry{e}, errors.New("audit log closed"))
		return
	}
	select {
	case l.queue <- e:
	default:
		l.failed(ctx, []Entry{e}, errors.New("audit queue full"))
	}
}

// Refused counts a request of p refused for limit; the count goes to the log as one
// [LimitRefusals] entry per principal once the minute is over (or at Close).
func (l *Log) Refused(p principal.Principal, limit string) {
	l.refusals.Add(principal.Principal(clip(string(p))), clip(limit), l.now())
}

// Flush returns once every entry recorded before it was called has been written (or logged
// as failed), or when ctx ends. Refusals of the current minute stay counted.
func (l *Log) Flush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case l.flush <- ack:
	case <-l.done:
		return nil // Close wrote everything
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued and every refusal counted, then stops the writer. Entries
// recorded afterwards are logged as failed writes. Calling it again does nothing.
func (l *Log) Close() error {
	l.mu.Lock()
	already := l.closed
	l.closed = true
	l.mu.Unlock()
	if !already {
		close(l.stop)
	}
	<-l.done
	return nil
}

func (l *Log) run(ticks <-chan time.Time) {
	defer close(l.done)
	defer l.stopTick()
	for {
		select {
		case e := <-l.queue:
			batch, ack := l.collect(e)
			l.write(batch)
			clear(batch) // the details are garbage once written
			l.batch = batch[:0]
			if ack != nil {
				close(ack)
			}
		case <-ticks:
			l.write(l.refusals.Due(l.now()))
		case ack := <-l.flush:
			l.write(l.drain(nil, -1))
			close(ack)
		case <-l.stop:
			// Record sends only under mu while not closed, so the queue holds all there is.
			l.write(append(l.drain(nil, -1), l.refusals.All()...))
			return
		}
	}
}

// collect gathers a batch that starts with e: every entry recorded within batchDelay (write
// splits it into transactions of maxBatch). It does not take entries while it waits, so
// recording one wakes nobody. A flush ends the wait, and is returned to be acknowledged once
// the batch is written; Close ends it at once.
func (l *Log) collect(e Entry) (batch []Entry, ack chan struct{}) {
	l.gather.Reset(batchDelay)
	defer l.gather.Stop()
	select {
	case <-l.gather.C:
	case ack = <-l.flush:
	case <-l.stop: // the loop then writes what is left and ends
	}
	return l.drain(append(l.batch[:0], e), -1), ack
}

// drain adds to batch the entries queued, up to max in all (-1: every one).
func (l *Log) drain(batch []Entry, max int) []Entry {
	for max < 0 || len(batch) < max {
		select {
		case e := <-l.queue:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// write appends entries in batches of maxBatch; a batch that fails is logged and counted.
func (l *Log) write(entries []Entry) {
	for len(entries) > 0 {
		n := min(len(entries), maxBatch)
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		if err := l.rec.AppendAudit(ctx, entries[:n]); err != nil {
			l.failed(ctx, entries[:n], err)
		}
		cancel()
		entries = entries[n:]
	}
}

// failed keeps entries that could not be written in the log, whole, so that nothing the audit
// log should hold is lost without a trace.
func (l *Log) failed(ctx context.Context, entries []Entry, err error) {
	l.failures.Add(context.WithoutCancel(ctx), int64(len(entries)))
	for _, e := range entries {
		detail, _ := EncodeDetail(e.Detail)
		l.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelError, "audit entry not written",
			slog.String("alert", "audit_write_failure"), slog.String("err", err.Error()),
			slog.Time("at", e.Time), slog.String("type", string(e.Type())),
			slog.String("principal", string(e.Principal)), slog.String("detail", string(detail)))
	}
}
