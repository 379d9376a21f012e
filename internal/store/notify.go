package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-ai/switchboard/stream"
)

// Replicas sharing a PostgreSQL database learn of each other's event appends through
// LISTEN/NOTIFY: a trigger on the events table notifies notifyChannel with the turn id once per
// turn per inserting statement, and each replica that follows a turn running elsewhere keeps
// one connection listening on it. A notification is only a hint to re-read the store; the hub
// still re-reads on a timer in case one is lost (a dropped connection, a notification sent
// before LISTEN took effect).

// notifyChannel is the channel the events trigger notifies, with the turn id as payload.
const notifyChannel = "switchboard_events"

// notifyMigration adds the trigger. It is statement-level, with the inserted rows as a
// transition table, so a batch of a turn's records sends one notification, not one per row.
var notifyMigration = []string{
	`CREATE FUNCTION switchboard_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_notify('` + notifyChannel + `', turn_id) FROM (SELECT DISTINCT turn_id FROM appended) AS t;
		RETURN NULL;
	END $$`,
	`CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS appended
		FOR EACH STATEMENT EXECUTE FUNCTION switchboard_events_notify()`,
}

// Reconnection of the listening connection backs off from notifyRetryMin to notifyRetryMax;
// meanwhile followers fall back to the hub's poll interval.
const (
	notifyRetryMin = 50 * time.Millisecond
	notifyRetryMax = 5 * time.Second
	notifyConnect  = 10 * time.Second // bound on one connection attempt
)

var _ stream.AppendWatcher = (*Postgres)(nil)

// WatchAppends implements [stream.AppendWatcher]: the channel receives a value when any
// replica appends records of the turn to this database. The first watch opens the store's
// listening connection, which stays open until [Postgres.Close].
func (p *Postgres) WatchAppends(turnID string) (<-chan struct{}, func()) {
	return p.notify.watch(turnID)
}

// notifier fans the notifications of one listening connection out to the watchers of each
// turn. Its goroutine starts with the first watch and ends with close.
type notifier struct {
	dsn string

	mu      sync.Mutex
	watches map[string]map[chan struct{}]struct{} // by turn id
	started bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the goroutine has ended

	pid atomic.Uint32 // the listening connection's server process, once it listens (tests)
}

func newNotifier(dsn string) *notifier {
	return &notifier{dsn: dsn, watches: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{})}
}

func (n *notifier) watch(turnID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1) // one pending value is enough: the reader re-reads everything
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ch, func() {} // the store is closing: the follower polls
	}
	set := n.watches[turnID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		n.watches[turnID] = set
	}
	set[ch] = struct{}{}
	if !n.started {
		n.started = true
		ctx, cancel := context.WithCancel(context.Background())
		n.cancel = cancel
		go n.run(ctx)
	}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			if set := n.watches[turnID]; set != nil {
				delete(set, ch)
				if len(set) == 0 {
					delete(n.watches, turnID)
				}
			}
		})
	}
}

// close ends the listening connection and waits for its goroutine.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	started := n.started
	if started {
		n.cancel()
	}
	n.mu.Unlock()
	if started {
		<-n.done
	}
}

// run keeps a connection listening until ctx ends, reconnecting with backoff when it fails.
func (n *notifier) run(ctx context.Context) {
	defer close(n.done)
	backoff := notifyRetryMin
	for {
		listened, _ := n.listen(ctx) // the error only says why: the followers' polling covers the gap
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff = notifyRetryMin
		}
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		backoff = min(2*backoff, notifyRetryMax)
	}
}

// listen connects, listens, and delivers notifications until the connection fails or ctx
// ends. listened reports that LISTEN took effect.
func (n *notifier) listen(ctx context.Context) (listened bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, notifyConnect)
	conn, err := pgx.Connect(cctx, n.dsn)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return false, err
	}
	n.pid.Store(conn.PgConn().PID())
	// Appends since the last connection went down, or before this one listened, sent
	// notifications nobody received: every watcher re-reads once.
	n.wakeAll()
	for {
		note, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		n.wake(note.Payload)
	}
}

func (n *notifier) wake(turnID string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.watches[turnID] {
		signal(ch)
	}
}

func (n *notifier) wakeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, set := range n.watches {
		for ch := range set {
			signal(ch)
		}
	}
}

// signal leaves a value in ch unless one is already waiting there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
