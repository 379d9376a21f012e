package stream_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/stream"
)

// memNow is the process's heap and goroutine stacks in use, after a collection.
func memNow() (heap, stacks uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse, m.StackInuse
}

// dialStream opens an SSE request on a raw connection and reads the response headers and the
// first event, so the server side is past its start and waiting.
func dialStream(addr, path string) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n", path)
	br := bufio.NewReader(conn)
	for blank := 0; blank < 2; { // the headers' end, then the first event's
		line, err := br.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, err
		}
		if strings.TrimSpace(line) == "" {
			blank++
		}
	}
	return conn, nil
}

// BenchmarkIdleStreams holds many SSE connections on one quiet running turn and reports what
// each costs the server: goroutines and bytes (heap and stacks) per connection. Clients and
// server share this process's file descriptors, two per stream, so the count is what the fd
// limit allows (SWITCHBOARD_IDLE_STREAMS overrides it).
func BenchmarkIdleStreams(b *testing.B) {
	n := 9000
	if v, err := strconv.Atoi(os.Getenv("SWITCHBOARD_IDLE_STREAMS")); err == nil && v > 0 {
		n = v
	}
	for _, mode := range []struct {
		name string
		opts stream.SSEOptions
	}{
		{"on-handler", stream.SSEOptions{}},
		{"detached", stream.SSEOptions{Detach: &stream.Detach{}}},
	} {
		b.Run(mode.name, func(b *testing.B) { idleStreams(b, n, mode.opts) })
	}
}

func idleStreams(b *testing.B, n int, opts stream.SSEOptions) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = stream.ServeSSE(w, r, hub, "t1", 0, opts)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	for b.Loop() {
		// The clients' side (their conns and buffers) is in this process too: measure the
		// baseline with the client sockets of a server that costs nothing per connection.
		gBase := runtime.NumGoroutine()
		heapBase, stackBase := memNow()
		conns := make([]net.Conn, 0, n)
		for range n {
			c, err := dialStream(addr, "/events")
			if err != nil {
				b.Fatalf("after %d streams: %v", len(conns), err)
			}
			conns = append(conns, c)
		}
		heap, stacks := memNow()
		g := runtime.NumGoroutine()
		b.ReportMetric(float64(g-gBase)/float64(n), "goroutines/stream")
		b.ReportMetric(float64((heap-heapBase)+(stacks-stackBase))/float64(n), "bytes/stream")
		b.ReportMetric(float64(stacks-stackBase)/float64(n), "stack-bytes/stream")
		b.ReportMetric(float64(n), "streams")
		for _, c := range conns {
			c.Close()
		}
	}
	log.Publish(stream.TurnCompleted{TurnID: "t1"})
}

// BenchmarkStalledReaders connects 150 clients that never read to one completed turn of about
// 3 MB and reports how much the server's memory grew while they were stuck (heap and stacks
// above the baseline, which already holds the turn once): each connection holds its write
// buffer and socket, never a copy of the turn.
func BenchmarkStalledReaders(b *testing.B) {
	const readers = 150
	store := stream.NewMemoryLogStore()
	hub := stream.NewHub(store)
	defer hub.Close()
	log := hub.Open("big")
	log.Publish(stream.TurnStarted{TurnID: "big"})
	chunk := strings.Repeat("All work and no play makes a long reply. ", 50) // 2 KB
	for range 1500 {
		log.Publish(stream.ReplyDelta{Text: chunk})
	}
	log.Publish(stream.TurnCompleted{TurnID: "big"})
	hub.Done("big") // nobody follows: the turn leaves memory; readers share one copy from the store
	done := make(chan error, readers)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := stream.ServeSSE(w, r, hub, "big", 0, stream.SSEOptions{StallTimeout: 2 * time.Second})
		done <- err
	}))
	// Small socket buffers, as on a busy host: the kernel cannot take the whole turn for a
	// client that does not read, so the server's handlers really are stuck.
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			_ = c.(*net.TCPConn).SetWriteBuffer(16 << 10)
		}
	}
	srv.Start()
	defer srv.Close()
	for b.Loop() {
		heapBase, stackBase := memNow()
		conns := make([]net.Conn, 0, readers)
		for range readers {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			_ = c.(*net.TCPConn).SetReadBuffer(16 << 10)
			fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
			conns = append(conns, c)
		}
		// Each handler ends once its socket is full for the stall timeout (ErrSlowClient), or
		// once the kernel's socket buffers have taken the whole turn. Until they all have,
		// sample the server's memory and keep the peak.
		var peak uint64
		dropped := 0
		tick := time.NewTicker(20 * time.Millisecond)
		for ended := 0; ended < readers; {
			select {
			case err := <-done:
				ended++
				if errors.Is(err, stream.ErrSlowClient) {
					dropped++
				}
			case <-tick.C:
				heap, stacks := memNow()
				peak = max(peak, (heap-min(heap, heapBase))+(stacks-min(stacks, stackBase)))
			}
		}
		tick.Stop()
		b.ReportMetric(float64(peak)/(1<<20), "peak-MB-above-baseline")
		b.ReportMetric(float64(dropped), "dropped")
		for _, c := range conns {
			c.Close()
		}
	}
}
