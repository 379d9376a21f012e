package stream_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// detachedServer serves /turns/{id}/events with detached streams ended by ctx; each stream's
// result arrives on the channel when it has ended.
func detachedServer(t *testing.T, hub *stream.Hub, ctx context.Context, opts stream.SSEOptions) (*httptest.Server, <-chan served) {
	t.Helper()
	return detachedServerOn(t, hub, ctx, opts, nil)
}

// detachedServerOn is detachedServer whose listener, when wrap is set, is wrap's.
func detachedServerOn(t *testing.T, hub *stream.Hub, ctx context.Context, opts stream.SSEOptions, wrap func(net.Listener) net.Listener) (*httptest.Server, <-chan served) {
	t.Helper()
	ended := make(chan served, 16)
	opts.Detach = &stream.Detach{Context: ctx, OnEnd: func(res stream.SSEResult, err error) { ended <- served{res, err} }}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := stream.LastEventID(r)
		res, err := stream.ServeSSE(w, r, hub, "t1", after, opts)
		if !res.Detached || err != nil {
			ended <- served{res, err}
		}
	}))
	if wrap != nil {
		srv.Listener = wrap(srv.Listener)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, ended
}

func waitEnd(t *testing.T, ended <-chan served) served {
	t.Helper()
	select {
	case s := <-ended:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("the detached stream did not end")
		return served{}
	}
}

// A detached stream is the same stream on the wire: live records, a resume, the end.
func TestDetachedStreamIsTheSameStream(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	evs := turnEvents("t1", 5)
	log := hub.Open("t1")
	publishAll(log, evs[:3])
	srv, ended := detachedServer(t, hub, t.Context(), stream.SSEOptions{})
	client := newClient()
	defer client.CloseIdleConnections()

	resp := get(t.Context(), t, client, srv.URL, "1")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	first := readUntilEnd(t, resp, 2) // what the log held after id 1
	publishAll(log, evs[3:])          // then live
	rest := readUntilEnd(t, resp, 0)  // ends only when the server closes the stream
	if diff := cmp.Diff(wireOf(t, evs, 1), append(first, rest...)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	got := waitEnd(t, ended)
	want := stream.SSEResult{Events: len(evs) - 1, LastID: uint64(len(evs)), Completed: true, Detached: true}
	if diff := cmp.Diff(want, got.res); diff != "" || got.err != nil {
		t.Errorf("OnEnd(%+v, %v), want %+v, nil", got.res, got.err, want)
	}
}

// A client that closes the connection ends its detached stream at once, as ClientLeft, and
// leaves no goroutine behind.
func TestDetachedStreamEndsWhenTheClientLeaves(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	srv, ended := detachedServer(t, hub, t.Context(), stream.SSEOptions{Heartbeat: time.Hour})
	base := runtime.NumGoroutine()
	conn, err := dialStream(srv.Listener.Addr().String(), "/")
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	got := waitEnd(t, ended)
	if !got.res.ClientLeft || got.res.Completed || got.err != nil {
		t.Errorf("OnEnd(%+v, %v), want ClientLeft and no error", got.res, got.err)
	}
	waitGoroutines(t, base)
}

// The context of Detach ends every detached stream (a server shutting down); that is not
// the client leaving.
func TestDetachedStreamEndsWithItsContext(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	ctx, shutdown := context.WithCancel(t.Context())
	srv, ended := detachedServer(t, hub, ctx, stream.SSEOptions{})
	conn, err := dialStream(srv.Listener.Addr().String(), "/")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	shutdown()
	got := waitEnd(t, ended)
	if got.res.ClientLeft || got.err != nil {
		t.Errorf("OnEnd(%+v, %v), want neither ClientLeft nor an error", got.res, got.err)
	}
	// The server closed the connection: the client reads the end, and a note saying how to
	// come back.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var read []byte
	buf := make([]byte, 64)
	for {
		n, err := conn.Read(buf)
		read = append(read, buf[:n]...)
		if err != nil {
			if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the connection stayed open after the stream ended")
			}
			break
		}
	}
	if !bytes.HasSuffix(read, []byte("reconnect with Last-Event-ID to resume\nretry: 1000\n\n")) {
		t.Errorf("the stream ended with %q, want the closing note and a retry hint", read[max(0, len(read)-120):])
	}
}

// A detached stream drops a client that stops reading, as a stream on its handler does.
func TestDetachedStreamDropsAStalledClient(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	srv, ended := detachedServer(t, hub, t.Context(), stream.SSEOptions{StallTimeout: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for range 200 { // 12 MB the client never reads
		log.Publish(stream.ReplyDelta{Text: string(chunk)})
	}
	got := waitEnd(t, ended)
	if !errors.Is(got.err, stream.ErrSlowClient) {
		t.Errorf("OnEnd(%+v, %v), want ErrSlowClient", got.res, got.err)
	}
}

// A writer that cannot be taken over keeps the stream on its handler.
func TestDetachFallsBackToTheHandler(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	publishAll(hub.Open("t1"), turnEvents("t1", 2))
	rec := httptest.NewRecorder() // no http.Hijacker
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	res, err := stream.ServeSSE(rec, req, hub, "t1", 0, stream.SSEOptions{Detach: &stream.Detach{}})
	if err != nil || res.Detached || !res.Completed || res.Events != 4 {
		t.Errorf("ServeSSE() = %+v, %v; want 4 events written on the handler", res, err)
	}
}

// A stream counts until the client has taken it: a finished turn written whole into the
// socket of a client that reads nothing is not delivered, and once DrainTimeout passes the
// stream ends as a slow client instead of as completed (and its slot, and the bytes the
// kernel holds for it, are given back).
func TestDetachedStreamCountsUntilDelivered(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	publishFinishedTurn(hub, 40<<10)
	srv, ended := detachedServer(t, hub, t.Context(), stream.SSEOptions{DrainTimeout: 300 * time.Millisecond, StallTimeout: 10 * time.Second})
	defer requestWithoutReading(t, srv.Listener.Addr().String()).Close()
	got := waitEnd(t, ended)
	if got.res.Completed || !errors.Is(got.err, stream.ErrSlowClient) {
		t.Errorf("OnEnd(%+v, %v) for a client that read nothing, want not completed and ErrSlowClient", got.res, got.err)
	}

	// A client that reads the same stream gets it whole, and the stream completes.
	resp := get(t.Context(), t, newClient(), srv.URL, "")
	defer resp.Body.Close()
	readUntilEnd(t, resp, 0)
	if got := waitEnd(t, ended); !got.res.Completed || got.err != nil {
		t.Errorf("OnEnd(%+v, %v) for a client that read it all, want completed", got.res, got.err)
	}
}

// panickyStore panics on every read after the first: the handler's own read passes, the
// detached stream's replay panics.
type panickyStore struct {
	*stream.MemoryLogStore
	reads atomic.Int32
}

func (s *panickyStore) Events(ctx context.Context, turnID string, after uint64) ([]stream.Record, error) {
	if s.reads.Add(1) > 1 {
		panic("store bug")
	}
	return s.MemoryLogStore.Events(ctx, turnID, after)
}

// A panic in a detached stream runs on the stream's own goroutine, where no handler's recover
// reaches it: it must end that stream, with an error to OnEnd, not the process.
func TestDetachedStreamPanicEndsOnlyTheStream(t *testing.T) {
	hub := stream.NewHub(&panickyStore{MemoryLogStore: stream.NewMemoryLogStore()})
	defer hub.Close()
	srv, ended := detachedServer(t, hub, t.Context(), stream.SSEOptions{Heartbeat: time.Hour})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	got := waitEnd(t, ended)
	if got.err == nil || !got.res.Detached || got.res.Completed {
		t.Errorf("OnEnd(%+v, %v), want Detached, not Completed, and an error", got.res, got.err)
	}
	// The connection is closed: the client reads to its end instead of waiting.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Errorf("reading the stream: %v, want it closed", err)
	}
}

// wrappingListener hides the *net.TCPConn behind a wrapper that offers NetConn, as a listener
// that rewrites answers (web.JSONErrors) or crypto/tls does.
type wrappingListener struct{ net.Listener }

type wrappedConn struct{ net.Conn }

func (c wrappedConn) NetConn() net.Conn { return c.Conn }

func (l wrappingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return wrappedConn{c}, nil
}

// Behind a wrapping listener a stream still counts until its client has taken it.
func TestDetachedStreamCountsUntilDeliveredBehindAWrapper(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	publishFinishedTurn(hub, 40<<10)
	srv, ended := detachedServerOn(t, hub, t.Context(), stream.SSEOptions{DrainTimeout: 300 * time.Millisecond, StallTimeout: 10 * time.Second},
		func(ln net.Listener) net.Listener { return wrappingListener{ln} })
	defer requestWithoutReading(t, srv.Listener.Addr().String()).Close()
	got := waitEnd(t, ended)
	if got.res.Completed || !errors.Is(got.err, stream.ErrSlowClient) {
		t.Errorf("OnEnd(%+v, %v) for a client that read nothing, want not completed and ErrSlowClient", got.res, got.err)
	}
}

// publishFinishedTurn logs a whole turn "t1" whose reply holds a delta of n bytes.
func publishFinishedTurn(hub *stream.Hub, n int) {
	evs := turnEvents("t1", 3)
	log := hub.Open("t1")
	publishAll(log, evs[:2])
	log.Publish(stream.ReplyDelta{Text: strings.Repeat("x", n)})
	publishAll(log, evs[2:])
}

// requestWithoutReading asks addr for the stream over a connection with a 2 KiB receive
// buffer, and never reads it.
func requestWithoutReading(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		return errors.Join(err, serr)
	}}
	conn, err := d.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}

// burstListener wraps each connection in a burstConn that counts its WriteBuffers calls.
type burstListener struct {
	net.Listener
	calls, frames *atomic.Int64
}

func (l burstListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return burstConn{c, l.calls, l.frames}, nil
}

// burstConn passes writes through unchanged and offers WriteBuffers, as web.JSONErrors' do.
type burstConn struct {
	net.Conn
	calls, frames *atomic.Int64
}

func (c burstConn) NetConn() net.Conn { return c.Conn }

func (c burstConn) WriteBuffers(v *net.Buffers) (int64, error) {
	c.calls.Add(1)
	c.frames.Add(int64(len(*v)))
	return v.WriteTo(c.Conn)
}

// A wrapper that offers WriteBuffers gets a burst of frames in one call, not a call a frame,
// and the client reads the same stream.
func TestDetachedStreamWritesABurstThroughWriteBuffers(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	evs := turnEvents("t1", 6)
	publishAll(hub.Open("t1"), evs)
	var calls, frames atomic.Int64
	srv, ended := detachedServerOn(t, hub, t.Context(), stream.SSEOptions{},
		func(ln net.Listener) net.Listener { return burstListener{ln, &calls, &frames} })
	client := newClient()
	defer client.CloseIdleConnections()

	resp := get(t.Context(), t, client, srv.URL, "")
	defer resp.Body.Close()
	if diff := cmp.Diff(wireOf(t, evs, 0), readUntilEnd(t, resp, 0)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if got := waitEnd(t, ended); !got.res.Completed || got.err != nil {
		t.Fatalf("OnEnd(%+v, %v), want completed", got.res, got.err)
	}
	if calls.Load() != 1 || frames.Load() != int64(len(evs)) {
		t.Errorf("WriteBuffers called %d times with %d frames, want once with all %d", calls.Load(), frames.Load(), len(evs))
	}
}
