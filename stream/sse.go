package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

// The SSE wire is written here, in the format r3labs/sse/v2 writes ("id: N\ndata: {json}\n
// event: name\n\n", comments as ": text\n\n", the same response headers), by the connection's
// own handler goroutine. r3labs/sse/v2 served this until the streaming work of issue 11: its
// server runs a goroutine per stream and one per subscriber, keeps a per-connection channel of
// events marshalled for that connection, and writes and flushes each event on its own, so an
// idle stream cost six goroutines and tens of kilobytes, and 150 stalled clients of one large
// turn each held their own copy of it. A connection here adds no goroutine: it reads the turn's
// shared log at its own pace, writes frames encoded once per event, flushes once per burst,
// and writes its keep-alives in the same loop.

// SSEOptions tunes [ServeSSE].
type SSEOptions struct {
	// Backlog is kept for compatibility and no longer used: a connection queues nothing of its
	// own. It reads the turn's shared log, and what it holds is bounded by its write buffer.
	Backlog int
	// Heartbeat is the interval of comment lines that keep proxies from closing a quiet stream.
	// Zero means 15s; negative disables them.
	Heartbeat time.Duration
	// DrainTimeout bounds how long the last frames may take to reach the socket before the
	// connection is dropped anyway. Zero means 30s.
	DrainTimeout time.Duration
	// StallTimeout is how long one write may make no progress before the client counts as
	// stalled and is dropped (it resumes with Last-Event-ID). A reader that keeps up, however
	// long the turn, is never dropped. Zero means 10s.
	StallTimeout time.Duration
	// Detach, when set, lets a stream over HTTP/1.x outlive the handler that started it; see
	// [Detach]. Nil keeps every stream on its handler's goroutine.
	Detach *Detach
}

// Detach is how a detached stream ends and reports. ServeSSE takes the connection over from
// net/http ([http.Hijacker]), writes the response itself and returns at once; one goroutine
// of its own then writes the stream and another waits on its read side, which ends the stream
// as soon as the client closes the connection. An idle stream so holds no net/http buffers,
// no request and no handler: two small goroutines and a few kilobytes, where a stream held by
// its handler costs 27 KB (see BenchmarkIdleStreams). HTTP/2 connections, and writers that
// cannot be taken over, stay on the handler as without Detach. A detached stream writes each
// burst of events with one writev; a listener that wraps its connections, and whose writes
// pass through unchanged, keeps that by giving them a method
// WriteBuffers(*net.Buffers) (int64, error) that writes on the connection it wraps.
type Detach struct {
	// Context ends every detached stream when done (a server shutting down); nil never does.
	Context context.Context
	// OnEnd receives each detached stream's result once it has ended and its connection is
	// closed, on the stream's own goroutine. A panic while writing the stream ends only that
	// stream, and reaches OnEnd as its error.
	OnEnd func(SSEResult, error)
}

// SSEResult describes how a [ServeSSE] connection went.
type SSEResult struct {
	Events    int    // log events written (heartbeats excluded)
	LastID    uint64 // id of the last of them
	Completed bool   // turn.completed was written and the response ended cleanly
	NoContent bool   // nothing was left to send: answered 204
	MaxQueued int    // always 0: a connection queues no events of its own (see SSEOptions.Backlog)
	// Detached says the stream went on in a goroutine of its own (see SSEOptions.Detach): the
	// call returned at once, and the result comes to Detach.OnEnd.
	Detached bool
	// ClientLeft says the client closed the connection before the stream ended.
	ClientLeft bool
}

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
// the client stopped reading ([ErrSlowClient]; the connection is closed so that the client
// reconnects), or the store failed. The response is always written by ServeSSE, so the error is
// for logs and metrics only. w should let [http.ResponseController] set write deadlines
// (net/http's and gin's writers do): that is how a stalled client is cut off and how a long
// stream escapes a server-wide WriteTimeout. Without opts.Detach ServeSSE starts no goroutine;
// with it, a stream it takes over returns at once with Detached set and goes on in goroutines
// of its own, which end with the stream (see [Detach]).
func ServeSSE(w http.ResponseWriter, r *http.Request, hub *Hub, turnID string, after uint64, opts SSEOptions) (SSEResult, error) {
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
	ctx := r.Context()
	done, err := hub.lastDelivered(ctx, turnID, after)
	if err != nil {
		// Nothing is written yet: the caller answers in its own error format.
		return res, fmt.Errorf("%w: %w", ErrReplayUnavailable, err)
	}
	if done {
		res.NoContent = true
		w.WriteHeader(http.StatusNoContent)
		return res, nil
	}
	shared, err := hub.acquire(ctx, turnID)
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrReplayUnavailable, err)
	}
	defer func() {
		if shared != nil { // nil once a detached stream owns it
			hub.release(turnID, shared)
		}
	}()

	if opts.Detach != nil && r.ProtoMajor == 1 {
		conn, ok, err := takeOver(w, opts.StallTimeout)
		if err != nil {
			return SSEResult{ClientLeft: true}, nil // the head could not be written: the client is gone
		}
		if ok {
			go func(shared *liveTurn) {
				res, err := detachedRecovered(conn, hub, turnID, after, shared, opts)
				if shared != nil {
					hub.release(turnID, shared)
				}
				if opts.Detach.OnEnd != nil {
					opts.Detach.OnEnd(res, err)
				}
			}(shared)
			shared = nil // released by the stream's goroutine
			return SSEResult{Detached: true}, nil
		}
	}
	setStreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	c := &sseWriter{w: w, rc: http.NewResponseController(w), stall: opts.StallTimeout}
	if !c.flush() {
		return res, ErrSlowClient
	}
	return writeStream(ctx, c, hub, turnID, after, shared, opts)
}

// header is one header line: its key, canonical, and value.
type header struct{ key, value string }

// streamHeaders are the headers every stream sets over the handler's.
var streamHeaders = []header{
	{"Content-Type", "text/event-stream"},
	{"Cache-Control", "no-cache"},
	{"X-Accel-Buffering", "no"}, // keep nginx-style proxies from buffering the stream
}

func setStreamHeaders(h http.Header) {
	for _, kv := range streamHeaders {
		h.Set(kv.key, kv.value)
	}
	if h.Get("Connection") == "" {
		h.Set("Connection", "keep-alive")
	}
}

// frameWriter puts frames on one connection: write may buffer, flush puts a burst on the
// wire; both report false once the connection failed, and failure says why.
type frameWriter interface {
	write(frame []byte) bool
	flush() bool
	heartbeat() bool
	setStall(d time.Duration)
	failed() bool
	failure(ctx context.Context) (clientLeft bool, err error)
}

// writeStream writes the turn's records after the given id to c until the turn completes,
// ctx ends or c fails.
func writeStream(ctx context.Context, c frameWriter, hub *Hub, turnID string, after uint64, shared *liveTurn, opts SSEOptions) (SSEResult, error) {
	var res SSEResult
	hooks := followHooks{beforeWait: c.flush}
	if opts.Heartbeat > 0 {
		ticker := time.NewTicker(opts.Heartbeat)
		defer ticker.Stop()
		hooks.tick, hooks.onTick = ticker.C, c.heartbeat
	}
	fail := func() (SSEResult, error) {
		left, err := c.failure(ctx)
		res.ClientLeft = left
		return res, err
	}
	for rec, err := range hub.follow(ctx, turnID, after, hooks) {
		if err != nil {
			if ctx.Err() != nil {
				// The client went away, or the server ended the stream (shutting down): a
				// client still reading learns why and when to come back (a client that left
				// reads nothing, and the write fails quietly).
				if c.write(closingNote) {
					c.flush()
				}
				return res, nil
			}
			return res, err
		}
		var frame []byte
		if shared != nil {
			frame = shared.frame(rec.ID)
		}
		if frame == nil || !isFrameOf(frame, rec.ID) {
			if frame = encodeFrame(rec); frame == nil {
				return res, fmt.Errorf("stream: encode record %d of turn %s", rec.ID, turnID)
			}
		}
		if !c.write(frame) {
			return fail()
		}
		res.Events++
		res.LastID = rec.ID
		if _, final := rec.Event.(TurnCompleted); final {
			c.setStall(opts.DrainTimeout)
			if !c.flush() {
				return fail()
			}
			res.Completed = true
			return res, nil
		}
	}
	if c.failed() { // the sequence ended on a failed flush or heartbeat
		return fail()
	}
	return res, nil
}

// closingNote ends a stream the server closes before its turn completed: a comment for
// people reading it raw, and a retry hint (milliseconds) for EventSource clients, which
// resume with Last-Event-ID.
var closingNote = []byte(": stream closed by the server; reconnect with Last-Event-ID to resume\nretry: 1000\n\n")

// keepAlive is the comment line that keeps a quiet stream open through proxies.
var keepAlive = []byte(": keep-alive\n\n")

// encodeFrame renders a record as one SSE event, or nil when its event cannot be encoded.
func encodeFrame(rec Record) []byte {
	name, data, err := rec.Marshal()
	if err != nil {
		return nil
	}
	b := make([]byte, 0, len(data)+len(name)+32)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, rec.ID, 10)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\nevent: "...)
	b = append(b, name...)
	return append(b, "\n\n"...)
}

// isFrameOf reports whether frame carries id: a completed turn's end, given once more to a
// client past it, is the same record under its own id.
func isFrameOf(frame []byte, id uint64) bool {
	var prefix [24]byte
	p := strconv.AppendUint(append(prefix[:0], "id: "...), id, 10)
	return len(frame) > len(p) && string(frame[:len(p)]) == string(p) && frame[len(p)] == '\n'
}

// sseWriter writes one connection's frames. Frames go into the response's buffer; a flush puts
// a burst on the wire at once. Every write and flush must make progress within stall, or the
// client counts as stalled.
type sseWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
	err   error
}

func (c *sseWriter) write(frame []byte) bool {
	if c.err != nil {
		return false
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(c.stall))
	_, c.err = c.w.Write(frame)
	return c.err == nil
}

func (c *sseWriter) heartbeat() bool { return c.write(keepAlive) && c.flush() }

func (c *sseWriter) setStall(d time.Duration) { c.stall = d }

func (c *sseWriter) failed() bool { return c.err != nil }

func (c *sseWriter) flush() bool {
	if c.err != nil {
		return false
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(c.stall))
	c.err = c.rc.Flush()
	return c.err == nil
}

// failure says why writing stopped: the client stopped reading (a write that made no progress
// before its deadline), or it went away (nil).
func (c *sseWriter) failure(ctx context.Context) (clientLeft bool, err error) {
	if !errors.Is(c.err, os.ErrDeadlineExceeded) && (ctx.Err() != nil || errors.Is(c.err, context.Canceled)) {
		return ctx.Err() != nil, nil
	}
	// Close rather than leave a half-written frame for the client to mistake for an event.
	_ = c.rc.SetWriteDeadline(time.Now())
	return false, ErrSlowClient
}
