package stream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// takeOver hijacks w's connection and writes the stream's response head on it. The body that
// follows is delimited by closing the connection (no chunked encoding), which every HTTP/1.x
// client and EventSource reads. ok is false, and nothing touched, when w cannot be hijacked;
// err is set when the head could not be written (the connection is then closed).
func takeOver(w http.ResponseWriter, stall time.Duration) (conn net.Conn, ok bool, err error) {
	head := streamHead(w.Header())
	// What the client sent after its request stays unread in the returned reader: a stream
	// only writes.
	conn, _, err = http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, false, nil
	}
	if tc, isTCP := netConn(conn).(*net.TCPConn); isTCP {
		// A client that never reads can pin no more than this (the kernel doubles it) of the
		// server's memory per stream; a writer blocked on it meets the stall timeout.
		_ = tc.SetWriteBuffer(streamSendBuffer)
	}
	_ = conn.SetWriteDeadline(time.Now().Add(stall))
	if _, err := conn.Write(head); err != nil {
		_ = conn.Close()
		return nil, true, err
	}
	return conn, true, nil
}

// streamHead is a detached stream's response head: the status line, the handler's headers h,
// and the stream's own (setStreamHeaders', with Connection: close) in place of any h has. It
// is written straight from h, which it leaves as it is.
func streamHead(h http.Header) []byte {
	head := make([]byte, 0, 256+len(detachedHeadEnd))
	head = append(head, "HTTP/1.1 200 OK\r\n"...)
	for k, vs := range h {
		if k == "Connection" || slices.ContainsFunc(streamHeaders, func(kv header) bool { return kv.key == k }) {
			continue
		}
		for _, v := range vs {
			head = append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
		}
	}
	return append(head, detachedHeadEnd...)
}

// detachedHeadEnd closes a detached stream's head: the stream's own headers, with
// Connection: close, and the blank line.
var detachedHeadEnd = func() string {
	var b strings.Builder
	for _, kv := range streamHeaders {
		b.WriteString(kv.key + ": " + kv.value + "\r\n")
	}
	return b.String() + "Connection: close\r\n\r\n"
}()

// detached writes a stream on conn until it ends, then closes conn.
func detached(conn net.Conn, hub *Hub, turnID string, after uint64, shared *liveTurn, opts SSEOptions) (SSEResult, error) {
	parent := opts.Detach.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// The one read of the connection: it ends when the client closes it, which ends the
	// stream at once (and, with cancel_on_disconnect, the turn), or when the stream closes it.
	go func() {
		var b [1]byte
		for {
			if _, err := conn.Read(b[:]); err != nil {
				cancel(errClientLeft)
				return
			}
		}
	}()
	c := &connWriter{conn: conn, stall: opts.StallTimeout}
	res, err := writeStream(ctx, c, hub, turnID, after, shared, opts)
	if err == nil && res.Completed {
		// Written is not delivered: the stream counts (against its principal's limit, and in
		// the server's memory) until the client has taken it, or is dropped.
		if derr := waitDelivered(ctx, conn, opts.DrainTimeout); derr != nil {
			res.Completed, err = false, derr
		}
	}
	// Whether the client left is settled before the close, which ends the read too.
	left := errors.Is(context.Cause(ctx), errClientLeft)
	_ = conn.Close()
	res.Detached = true
	res.ClientLeft = res.ClientLeft || left && !res.Completed
	return res, err
}

// detachedRecovered is [detached] on a goroutine no handler's recover reaches: a panic while
// writing the stream closes its connection and comes back as the stream's error, for OnEnd to
// log, instead of ending the process.
func detachedRecovered(conn net.Conn, hub *Hub, turnID string, after uint64, shared *liveTurn, opts SSEOptions) (res SSEResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			_ = conn.Close()
			res, err = SSEResult{Detached: true}, fmt.Errorf("stream: detached stream of turn %s panicked: %v", turnID, p)
		}
	}()
	return detached(conn, hub, turnID, after, shared, opts)
}

// netConn unwraps conn as far as wrappers let it (a listener that wraps its connections offers
// NetConn, as crypto/tls does), so that the socket itself can be tuned and asked.
func netConn(conn net.Conn) net.Conn {
	for {
		w, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			return conn
		}
		conn = w.NetConn()
	}
}

// streamSendBuffer is the kernel send buffer of a detached stream's connection.
const streamSendBuffer = 64 << 10

// deliveredPoll is how often waitDelivered looks at the send queue.
const deliveredPoll = 20 * time.Millisecond

// waitDelivered returns nil once the peer has acknowledged everything written to conn, or at
// once where the system cannot tell; [ErrSlowClient] when that takes longer than timeout; and
// nil when ctx ends first (the client left, or the server is shutting down: the caller reads
// which from ctx).
func waitDelivered(ctx context.Context, conn net.Conn, timeout time.Duration) error {
	n, ok := unsent(conn)
	if !ok || n == 0 {
		return nil
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(deliveredPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return ErrSlowClient
		case <-tick.C:
			if n, ok := unsent(conn); !ok || n == 0 {
				return nil
			}
		}
	}
}

// errClientLeft ends a detached stream whose client closed the connection.
var errClientLeft = errors.New("stream: the client closed the connection")

// connWriter writes a detached stream's frames on its own connection. A burst is gathered and
// written with one writev; the frames are the log's shared encodings, never copied. Between
// bursts it holds nothing.
type connWriter struct {
	conn    net.Conn
	stall   time.Duration
	pending net.Buffers
	err     error
}

func (c *connWriter) write(frame []byte) bool {
	if c.err != nil {
		return false
	}
	c.pending = append(c.pending, frame)
	if len(c.pending) >= 64 { // a long replay goes out in bursts, not all at once
		return c.flush()
	}
	return true
}

func (c *connWriter) flush() bool {
	if c.err != nil {
		return false
	}
	if len(c.pending) == 0 {
		return true
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.stall))
	bufs := c.pending
	if bw, ok := c.conn.(buffersWriter); ok {
		_, c.err = bw.WriteBuffers(&bufs)
	} else {
		_, c.err = bufs.WriteTo(c.conn)
	}
	c.pending = nil
	return c.err == nil
}

// buffersWriter is a connection wrapper that puts a burst on the connection it wraps in one
// call. net.Buffers writes a burst with one writev only on a socket itself; on anything that
// wraps one it writes frame by frame, a system call each. A wrapper whose writes pass through
// unchanged (web.JSONErrors' connections) offers WriteBuffers to keep the burst whole.
type buffersWriter interface {
	WriteBuffers(v *net.Buffers) (int64, error)
}

func (c *connWriter) heartbeat() bool { return c.write(keepAlive) && c.flush() }

func (c *connWriter) setStall(d time.Duration) { c.stall = d }

func (c *connWriter) failed() bool { return c.err != nil }

// failure says why writing stopped: a write made no progress before its deadline
// ([ErrSlowClient]), the stream was ended, or the client closed or reset the connection.
func (c *connWriter) failure(ctx context.Context) (clientLeft bool, err error) {
	switch {
	case errors.Is(c.err, os.ErrDeadlineExceeded):
		return false, ErrSlowClient
	case ctx.Err() != nil:
		return errors.Is(context.Cause(ctx), errClientLeft), nil
	}
	return true, nil
}

var (
	_ frameWriter = (*connWriter)(nil)
	_ frameWriter = (*sseWriter)(nil)
)
