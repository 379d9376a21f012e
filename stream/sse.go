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
}

// SSEResult describes how a [ServeSSE] connection went.
type SSEResult struct {
	Events    int    // log events written (heartbeats excluded)
	LastID    uint64 // id of the last of them
	Completed bool   // turn.completed was written and the response ended cleanly
	NoContent bool   // nothing was left to send: answered 204
	MaxQueued int    // always 0: a connection queues no events of its own (see SSEOptions.Backlog)
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
// stream escapes a server-wide WriteTimeout. ServeSSE starts no goroutine.
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
	if shared != nil {
		defer hub.release(turnID, shared)
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // keep nginx-style proxies from buffering the stream
	w.WriteHeader(http.StatusOK)
	c := &sseWriter{w: w, rc: http.NewResponseController(w), stall: opts.StallTimeout}
	if !c.flush() {
		return res, ErrSlowClient
	}

	hooks := followHooks{beforeWait: c.flush}
	if opts.Heartbeat > 0 {
		ticker := time.NewTicker(opts.Heartbeat)
		defer ticker.Stop()
		hooks.tick, hooks.onTick = ticker.C, func() bool { return c.write(keepAlive) && c.flush() }
	}
	for rec, err := range hub.follow(ctx, turnID, after, hooks) {
		if err != nil {
			if ctx.Err() != nil {
				return res, nil // the client went away
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
			return res, c.failure(ctx)
		}
		res.Events++
		res.LastID = rec.ID
		if _, final := rec.Event.(TurnCompleted); final {
			c.stall = opts.DrainTimeout
			if !c.flush() {
				return res, c.failure(ctx)
			}
			res.Completed = true
			return res, nil
		}
	}
	if c.err != nil {
		return res, c.failure(ctx)
	}
	return res, nil
}

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
func (c *sseWriter) failure(ctx context.Context) error {
	if !errors.Is(c.err, os.ErrDeadlineExceeded) && (ctx.Err() != nil || errors.Is(c.err, context.Canceled)) {
		return nil
	}
	// Close rather than leave a half-written frame for the client to mistake for an event.
	_ = c.rc.SetWriteDeadline(time.Now())
	return ErrSlowClient
}
