package stream

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/r3labs/sse/v2"
)

// This file is the only user of r3labs/sse/v2, and only as a wire writer: the turn's log (the
// [Hub]) decides what each connection receives. Each connection gets its own sse.Server with
// one stream and one subscriber, fed by a goroutine that follows the log with TryPublish.
//
// Facts about r3labs/sse/v2 v2.10.0 that the code below depends on (read in its source):
//   - ServeHTTP flushes once after the headers, then once after every event it writes; counting
//     flushes is how we know an event is on the wire.
//   - An event published before the subscriber is registered is fanned out to nobody, so we
//     publish only after that first flush.
//   - ServeHTTP returns only when the subscriber's channel is closed, which happens when its
//     request context ends (the library then deregisters it) or the stream is removed. Removing
//     the stream first would strand the library's deregistering goroutine, so we always end a
//     connection by cancelling its context, wait for ServeHTTP to return, and only then remove
//     the stream.
//   - A write error does not stop ServeHTTP; it keeps draining its 64-event channel. To drop a
//     client whose socket is full we set a past write deadline, so those writes fail at once.
//   - An event with empty Data and no Comment ends the response, and a Data starting with ':'
//     is written as a comment; our data is always a JSON object.

// SSEOptions tunes [ServeSSE].
type SSEOptions struct {
	// Backlog is how many events may queue for one connection before the client counts as too
	// slow and is dropped (it resumes with Last-Event-ID). Default 64. The library adds a fixed
	// 64-event channel behind it, so at most Backlog+66 events are held per connection.
	Backlog int
	// Heartbeat is the interval of comment lines that keep proxies from closing a quiet stream.
	// Zero means 15s; negative disables them.
	Heartbeat time.Duration
	// DrainTimeout bounds how long the last event may take to reach the socket before the
	// connection is dropped anyway. Zero means 30s.
	DrainTimeout time.Duration
	// StallTimeout is how long a connection whose backlog is full may go without a single
	// event reaching the socket before it is dropped. A reader that keeps up, however long the
	// turn, is never dropped. Zero means 10s.
	StallTimeout time.Duration
}

// SSEResult describes how a [ServeSSE] connection went.
type SSEResult struct {
	Events    int    // log events handed to the wire writer (heartbeats excluded)
	LastID    uint64 // id of the last of them
	Completed bool   // turn.completed was written and the response ended cleanly
	NoContent bool   // nothing was left to send: answered 204
	MaxQueued int    // most events (heartbeats included) ever queued and not yet written
}

const sseStreamID = "turn"

// ServeSSE streams a turn's events after the given id to one client, as Server-Sent Events:
// id is the record id, event the event name, data its compact JSON. It replays what the log
// already holds, follows live records, and ends the response cleanly once turn.completed has
// been written. A client whose id is the end of a completed turn gets 204 No Content, which
// tells EventSource to stop reconnecting; one whose id is beyond the end (ids a crashed process
// showed but never stored) gets the turn.completed record again, so that it always learns the
// outcome, and then 204 when it reconnects with that record's id.
//
// When the log cannot be read before anything was written, it returns [ErrReplayUnavailable]
// and writes nothing, so that the caller can answer with its own error.
//
// It returns when the response is over: the turn completed, the client went away (nil error),
// the client fell more than Backlog events behind ([ErrSlowClient]; the connection is closed so
// that the client reconnects), or the store failed. The caller has usually validated the turn
// and computed after with [LastEventID]; the response is always written by ServeSSE, so the
// error is for logs and metrics only. w should let [http.ResponseController] set write
// deadlines (net/http's and gin's writers do): that is how a stalled client is cut off at once
// and how a long stream escapes a server-wide WriteTimeout. When ServeSSE returns, its own
// goroutines have ended and the library's are ending.
func ServeSSE(w http.ResponseWriter, r *http.Request, hub *Hub, turnID string, after uint64, opts SSEOptions) (SSEResult, error) {
	if opts.Backlog <= 0 {
		opts.Backlog = 64
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 30 * time.Second
	}
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = 10 * time.Second
	}
	var res SSEResult
	done, err := hub.lastDelivered(r.Context(), turnID, after)
	if err != nil {
		// Nothing is written yet: the caller answers in its own error format.
		return res, fmt.Errorf("%w: %w", ErrReplayUnavailable, err)
	}
	if done {
		res.NoContent = true
		w.WriteHeader(http.StatusNoContent)
		return res, nil
	}

	srv := sse.New()
	srv.AutoReplay = false // the hub is the log; the library's would rewrite our ids
	srv.BufferSize = opts.Backlog
	srv.Headers["X-Accel-Buffering"] = "no" // keep nginx-style proxies from buffering the stream
	srv.CreateStream(sseStreamID)

	rc := http.NewResponseController(w)
	// A long stream must outlive a server-wide WriteTimeout; not every writer supports this.
	_ = rc.SetWriteDeadline(time.Time{})

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	fw := &flushWriter{ResponseWriter: w, rc: rc, flushed: make(chan struct{})}
	c := &sseConn{srv: srv, fw: fw, rc: rc, cancel: cancel, backlog: opts.Backlog}

	var wg sync.WaitGroup
	var feedErr error
	wg.Go(func() { feedErr = c.feed(ctx, hub, turnID, after, opts) })
	if opts.Heartbeat > 0 {
		wg.Go(func() { c.heartbeat(ctx, opts.Heartbeat) })
	}

	// The library reads the stream from the query and insists on a numeric Last-Event-ID,
	// which it does not need with AutoReplay off: give it a request with neither concern.
	r2 := r.Clone(ctx)
	r2.Header.Del("Last-Event-ID")
	q := r2.URL.Query()
	q.Set("stream", sseStreamID)
	r2.URL.RawQuery = q.Encode()
	srv.ServeHTTP(fw, r2)

	cancel()
	wg.Wait()
	srv.RemoveStream(sseStreamID) // no subscriber left: ServeHTTP has returned

	c.mu.Lock()
	res.Events, res.LastID, res.Completed, res.MaxQueued = c.events, c.lastID, c.completed, c.maxQueued
	dropped := c.dropped
	c.mu.Unlock()
	if dropped {
		return res, ErrSlowClient
	}
	return res, feedErr
}

// sseConn publishes one connection's events into its private sse.Server.
type sseConn struct {
	srv     *sse.Server
	fw      *flushWriter
	rc      *http.ResponseController
	cancel  context.CancelFunc
	backlog int

	mu        sync.Mutex
	sent      int // events and heartbeats accepted by the stream
	events    int
	lastID    uint64
	maxQueued int
	closing   bool // turn.completed was published: no more heartbeats
	completed bool
	dropped   bool
}

// feed follows the log into the stream until turn.completed is on the wire, ctx ends or the
// client stalls. It never queues more than opts.Backlog events: with a full backlog it waits for
// the writer, and drops the client only when nothing reaches the socket for StallTimeout.
func (c *sseConn) feed(ctx context.Context, hub *Hub, turnID string, after uint64, opts SSEOptions) error {
	if !c.fw.waitFlushes(ctx, 1, nil) { // the subscriber is registered once headers are flushed
		return nil
	}
	for rec, err := range hub.Follow(ctx, turnID, after) {
		if err != nil {
			if ctx.Err() != nil {
				return nil // client gone or connection ended
			}
			c.cancel()
			return err
		}
		name, data, err := Marshal(rec.Event)
		if err != nil {
			c.cancel()
			return err
		}
		_, final := rec.Event.(TurnCompleted)
		ev := &sse.Event{ID: []byte(strconv.FormatUint(rec.ID, 10)), Event: []byte(name), Data: data}
		var target int
		for {
			if !c.waitRoom(ctx, opts.Backlog, opts.StallTimeout) {
				if ctx.Err() == nil {
					c.drop()
				}
				return nil
			}
			var full, ok bool
			if target, full, ok = c.publish(ev, rec.ID, final); ok {
				break
			}
			if !full {
				c.drop()
				return nil
			}
			// A heartbeat took the last slot since waitRoom looked: wait again.
		}
		if final {
			timer := time.NewTimer(opts.DrainTimeout)
			defer timer.Stop()
			if c.fw.waitFlushes(ctx, target, timer.C) {
				c.mu.Lock()
				c.completed = true
				c.mu.Unlock()
				c.cancel()
			} else if ctx.Err() == nil {
				c.drop()
			}
			return nil
		}
	}
	// The log ended without an end to send (Follow gives a client past the end the end once
	// more, so this is a stopped iteration): end the response.
	c.cancel()
	return nil
}

// waitRoom waits until fewer than backlog events are queued on this connection. It returns
// false when ctx ends or when the writer makes no progress at all for stall.
func (c *sseConn) waitRoom(ctx context.Context, backlog int, stall time.Duration) bool {
	for {
		flushed := c.fw.flushCount()
		if c.queued(flushed) < backlog {
			return true
		}
		timer := time.NewTimer(stall)
		progressed := c.fw.waitFlushes(ctx, flushed+1, timer.C)
		timer.Stop()
		if !progressed {
			return false
		}
	}
}

// queued is how many published events and heartbeats are not yet on the wire, given the
// writer's flush count (flush 1 was the headers).
func (c *sseConn) queued(flushed int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent - (flushed - 1)
}

func (c *sseConn) heartbeat(ctx context.Context, every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if !c.fw.waitFlushes(ctx, 1, nil) {
			return
		}
		// With a full backlog events are flowing or stalled: a keep-alive adds nothing either way.
		if _, full, ok := c.publish(&sse.Event{Comment: []byte("keep-alive")}, 0, false); !ok && !full {
			c.drop()
			return
		}
	}
}

// publish hands one event to the stream without blocking and returns the flush count at which
// it is on the wire. When backlog events are already queued it publishes nothing and reports
// full: the check and the publish share the lock, so that the feeder and the heartbeat together
// never queue more than the backlog, and the stream's channel (as large as the backlog) always
// has room. It fails (not ok, not full) when the connection is closing or the event is unsendable.
func (c *sseConn) publish(ev *sse.Event, id uint64, final bool) (target int, full, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return 0, false, id == 0 // a heartbeat after the end is simply not sent
	}
	if len(ev.Data) == 0 && len(ev.Comment) == 0 {
		return 0, false, false // would end the response: never send it
	}
	if c.sent-(c.fw.flushCount()-1) >= c.backlog {
		return 0, true, false
	}
	if !c.srv.TryPublish(sseStreamID, ev) {
		return 0, false, false
	}
	c.sent++
	if id > 0 {
		c.events++
		c.lastID = id
	}
	c.closing = final
	// Flush 1 was the headers; event k is on the wire at flush k+1.
	c.maxQueued = max(c.maxQueued, c.sent-(c.fw.flushCount()-1))
	return c.sent + 1, false, true
}

// drop disconnects a client that cannot keep up: queued writes fail at once and the library
// lets go of the subscriber.
func (c *sseConn) drop() {
	c.mu.Lock()
	c.dropped = true
	c.closing = true
	c.mu.Unlock()
	_ = c.rc.SetWriteDeadline(time.Now())
	c.cancel()
}

// flushWriter counts the library's flushes so the feeder knows what reached the socket.
type flushWriter struct {
	http.ResponseWriter
	rc *http.ResponseController

	mu      sync.Mutex
	n       int
	flushed chan struct{} // closed and replaced on every flush
}

// Flush implements http.Flusher, which the library requires.
func (f *flushWriter) Flush() {
	_ = f.rc.Flush()
	f.mu.Lock()
	f.n++
	close(f.flushed)
	f.flushed = make(chan struct{})
	f.mu.Unlock()
}

// Unwrap lets http.ResponseController reach the real writer.
func (f *flushWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

func (f *flushWriter) flushCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// waitFlushes waits until at least n flushes happened; false if ctx ended or timeout fired first.
func (f *flushWriter) waitFlushes(ctx context.Context, n int, timeout <-chan time.Time) bool {
	for {
		f.mu.Lock()
		count, ch := f.n, f.flushed
		f.mu.Unlock()
		if count >= n {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-timeout:
			return false
		case <-ch:
		}
	}
}
