package stream_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"

	"github.com/switchboard-ai/switchboard/stream"
)

type served struct {
	res stream.SSEResult
	err error
}

// sseServer serves /turns/{id}/events from hub and reports each connection's outcome.
func sseServer(t *testing.T, hub *stream.Hub, opts stream.SSEOptions) (*httptest.Server, <-chan served) {
	t.Helper()
	results := make(chan served, 64)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /turns/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		after, err := stream.LastEventID(r)
		if err != nil {
			http.Error(w, "bad Last-Event-ID", http.StatusBadRequest)
			return
		}
		res, err := stream.ServeSSE(w, r, hub, r.PathValue("id"), after, opts)
		results <- served{res, err}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, results
}

func get(ctx context.Context, t *testing.T, client *http.Client, url, lastID string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp
}

// readUntilEnd reads events until the response ends; limit > 0 stops after that many.
func readUntilEnd(t *testing.T, resp *http.Response, limit int) []stream.WireEvent {
	t.Helper()
	var evs []stream.WireEvent
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatalf("ReadEvents() error = %v", err)
		}
		evs = append(evs, ev)
		if limit > 0 && len(evs) == limit {
			break
		}
	}
	return evs
}

// wireOf is what a client must receive for records after `after`.
func wireOf(t *testing.T, evs []stream.Event, after int) []stream.WireEvent {
	t.Helper()
	var out []stream.WireEvent
	for _, rec := range records(evs, after) {
		name, data, err := stream.Marshal(rec.Event)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, stream.WireEvent{ID: rec.ID, Name: name, Data: data})
	}
	return out
}

func publishAll(log *stream.TurnLog, evs []stream.Event) {
	for _, ev := range evs {
		log.Publish(ev)
	}
}

func newClient() *http.Client { return &http.Client{Transport: &http.Transport{}} }

// waitGoroutines waits, boundedly, for the goroutine count to drop back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines = %d, want <= %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond) // polling, not synchronisation: the loop is bounded
	}
}

func TestServeSSEReplaysFinishedTurnAndEnds(t *testing.T) {
	evs := append(turnEvents("t1", 3)[:1], stream.Status{Text: "Searching offers…", Sources: []stream.Source{{AgentID: "shop", Event: "searching_offers"}}})
	evs = append(evs, turnEvents("t1", 3)[1:]...)
	store := stream.NewMemoryLogStore()
	writer := stream.NewHub(store)
	publishAll(writer.Open("t1"), evs)
	for name, hub := range map[string]*stream.Hub{"live here": writer, "other replica": stream.NewHub(store)} {
		t.Run(name, func(t *testing.T) {
			srv, results := sseServer(t, hub, stream.SSEOptions{})
			client := newClient()
			defer client.CloseIdleConnections()
			resp := get(t.Context(), t, client, srv.URL+"/turns/t1/events", "")
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			got := readUntilEnd(t, resp, 0) // ends only if the server ends the response
			if diff := cmp.Diff(wireOf(t, evs, 0), got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			for _, w := range got {
				if _, err := stream.Decode(w.Name, w.Data); err != nil {
					t.Errorf("Decode(%s) error = %v", w.Name, err)
				}
			}
			r := <-results
			want := stream.SSEResult{Events: len(evs), LastID: uint64(len(evs)), Completed: true}
			if diff := cmp.Diff(want, r.res, ignoreQueue); diff != "" || r.err != nil {
				t.Errorf("ServeSSE() = %+v, %v, want %+v, nil", r.res, r.err, want)
			}
		})
	}
}

var ignoreQueue = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".MaxQueued" }, cmp.Ignore())

func TestServeSSENoContentWhenAllDelivered(t *testing.T) {
	evs := turnEvents("t1", 2)
	store := stream.NewMemoryLogStore()
	writer := stream.NewHub(store)
	publishAll(writer.Open("t1"), evs)
	last := fmt.Sprint(len(evs))
	tests := []struct {
		name, header, query string
		hub                 *stream.Hub
	}{
		{"header, live", last, "", writer},
		{"header, replica", last, "", stream.NewHub(store)},
		{"query param", "", "?lastEventId=" + last, stream.NewHub(store)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, results := sseServer(t, tt.hub, stream.SSEOptions{})
			client := newClient()
			defer client.CloseIdleConnections()
			resp := get(t.Context(), t, client, srv.URL+"/turns/t1/events"+tt.query, tt.header)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				t.Errorf("status = %d, want 204", resp.StatusCode)
			}
			if r := <-results; !r.res.NoContent || r.err != nil {
				t.Errorf("ServeSSE() = %+v, %v, want NoContent", r.res, r.err)
			}
		})
	}
}

func TestServeSSEResume(t *testing.T) {
	base := runtime.NumGoroutine()
	evs := turnEvents("t1", 20)
	hub := stream.NewHub(stream.NewMemoryLogStore())
	log := hub.Open("t1")
	publishAll(log, evs[:8])
	srv, results := sseServer(t, hub, stream.SSEOptions{})
	client := newClient()

	const k = 5
	ctx, cancel := context.WithCancel(t.Context())
	resp := get(ctx, t, client, srv.URL+"/turns/t1/events", "")
	first := readUntilEnd(t, resp, k)
	cancel() // disconnect mid-turn
	resp.Body.Close()
	if r := <-results; r.err != nil || r.res.Completed {
		t.Errorf("first connection: ServeSSE() = %+v, %v, want not completed, nil", r.res, r.err)
	}

	resp = get(t.Context(), t, client, srv.URL+"/turns/t1/events", fmt.Sprint(first[len(first)-1].ID))
	defer resp.Body.Close()
	// The rest of the turn arrives while this client follows live.
	go publishAll(log, evs[8:])
	rest := readUntilEnd(t, resp, 0)

	got := append(first, rest...)
	if diff := cmp.Diff(wireOf(t, evs, 0), got); diff != "" {
		t.Errorf("events over two connections (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID != got[i-1].ID+1 {
			t.Errorf("id %d follows %d", got[i].ID, got[i-1].ID)
		}
	}
	if r := <-results; r.err != nil || !r.res.Completed || r.res.Events != len(evs)-k {
		t.Errorf("second connection: ServeSSE() = %+v, %v, want %d events, completed", r.res, r.err, len(evs)-k)
	}
	client.CloseIdleConnections()
	srv.Close()
	waitGoroutines(t, base)
}

// TestServeSSELastEventAlwaysWritten guards the end of a stream: turn.completed must reach the
// client before the response ends, every time.
func TestServeSSELastEventAlwaysWritten(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	srv, results := sseServer(t, hub, stream.SSEOptions{})
	client := newClient()
	defer client.CloseIdleConnections()
	for i := range 100 {
		turnID := fmt.Sprint("t", i)
		evs := turnEvents(turnID, i%4)
		log := hub.Open(turnID)
		publishAll(log, evs[:len(evs)-1])
		resp := get(t.Context(), t, client, srv.URL+"/turns/"+turnID+"/events", "")
		log.Publish(evs[len(evs)-1]) // the end arrives while the connection is live
		got := readUntilEnd(t, resp, 0)
		resp.Body.Close()
		if len(got) != len(evs) || got[len(got)-1].Name != "turn.completed" {
			t.Fatalf("run %d: got %d events ending in %q, want %d ending in turn.completed", i, len(got), got[len(got)-1].Name, len(evs))
		}
		<-results
	}
}

func TestServeSSEDropsSlowClient(t *testing.T) {
	base := runtime.NumGoroutine()
	hub := stream.NewHub(stream.NewMemoryLogStore())
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	opts := stream.SSEOptions{Backlog: 16, StallTimeout: 200 * time.Millisecond}
	srv, results := sseServer(t, hub, opts)

	// A client that sends its request, reads the headers and then nothing more.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /turns/t1/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
	br := bufio.NewReader(conn)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading headers: %v", err)
		}
		if line == "\r\n" {
			break
		}
	}

	// The writer publishes 5000 events of 2 KB (more than the socket buffers hold) and never
	// waits for the stalled client: this loop would hang if it did.
	chunk := strings.Repeat("x", 2048)
	const n = 5000
	for range n {
		log.Publish(stream.ReplyDelta{Text: chunk})
	}
	log.Publish(stream.TurnCompleted{TurnID: "t1"})

	r := <-results
	if !errors.Is(r.err, stream.ErrSlowClient) {
		t.Fatalf("ServeSSE() error = %v, want ErrSlowClient", r.err)
	}
	if r.res.Completed || r.res.Events >= n {
		t.Errorf("slow client got %d events, completed=%v; want it dropped early", r.res.Events, r.res.Completed)
	}
	// The connection queued nothing of its own: it read the shared log as it could write.
	if r.res.MaxQueued != 0 {
		t.Errorf("MaxQueued = %d, want 0", r.res.MaxQueued)
	}
	conn.Close()
	srv.Close()
	waitGoroutines(t, base)
}

func TestServeSSEHeartbeat(t *testing.T) {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	log := hub.Open("t1")
	log.Publish(stream.TurnStarted{TurnID: "t1"})
	srv, results := sseServer(t, hub, stream.SSEOptions{Heartbeat: 5 * time.Millisecond})
	client := newClient()
	defer client.CloseIdleConnections()
	resp := get(t.Context(), t, client, srv.URL+"/turns/t1/events", "")
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	seen := 0
	for seen < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading stream: %v", err)
		}
		if strings.HasPrefix(line, ":") {
			seen++
		}
	}
	log.Publish(stream.TurnCompleted{TurnID: "t1"})
	// The rest of the stream still parses and ends with turn.completed.
	var last stream.WireEvent
	for ev, err := range stream.ReadEvents(br) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if last.Name != "turn.completed" {
		t.Errorf("last event = %q, want turn.completed", last.Name)
	}
	if r := <-results; r.err != nil || !r.res.Completed {
		t.Errorf("ServeSSE() = %+v, %v", r.res, r.err)
	}
}

// TestServeSSEWithR3labsClient checks interoperability with the library's own client.
func TestServeSSEWithR3labsClient(t *testing.T) {
	evs := turnEvents("t1", 3)
	hub := stream.NewHub(stream.NewMemoryLogStore())
	publishAll(hub.Open("t1"), evs)
	srv, results := sseServer(t, hub, stream.SSEOptions{})
	c := sse.NewClient(srv.URL + "/turns/t1/events")
	c.ReconnectStrategy = &backoff.StopBackOff{}
	var got []stream.WireEvent
	err := c.SubscribeRawWithContext(t.Context(), func(ev *sse.Event) {
		var id uint64
		fmt.Sscan(string(ev.ID), &id)
		got = append(got, stream.WireEvent{ID: id, Name: string(ev.Event), Data: append([]byte(nil), ev.Data...)})
	})
	if err != nil {
		t.Fatalf("SubscribeRaw() error = %v", err)
	}
	if diff := cmp.Diff(wireOf(t, evs, 0), got); diff != "" {
		t.Errorf("events via the r3labs client (-want +got):\n%s", diff)
	}
	<-results
}

func TestLastEventID(t *testing.T) {
	tests := []struct {
		name, header, query string
		want                uint64
		wantErr             error
	}{
		{"none", "", "", 0, nil},
		{"header", "42", "", 42, nil},
		{"header wins", "7", "lastEventId=9", 7, nil},
		{"query", "", "lastEventId=9", 9, nil},
		{"spaces", " 5 ", "", 5, nil},
		{"max", "18446744073709551615", "", 1<<64 - 1, nil},
		{"negative", "-1", "", 0, stream.ErrBadLastEventID},
		{"text", "abc", "", 0, stream.ErrBadLastEventID},
		{"overflow", "18446744073709551616", "", 0, stream.ErrBadLastEventID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/x?"+tt.query, nil)
			if tt.header != "" {
				r.Header.Set("Last-Event-ID", tt.header)
			}
			got, err := stream.LastEventID(r)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("LastEventID() = %d, %v, want %d, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestServeSSEEndsForClientPastTheEnd: a client whose Last-Event-ID is beyond a turn's log
// (as one that saw ids a crashed process showed but never stored) is not held open by
// heartbeats forever, nor answered 204 without learning the outcome: once the turn has
// completed it gets turn.completed, under its own id, and its reconnect with that id gets 204.
func TestServeSSEEndsForClientPastTheEnd(t *testing.T) {
	store := stream.NewMemoryLogStore()
	writer := stream.NewHub(store)
	replica := stream.NewHub(store, stream.WithPollInterval(10*time.Millisecond))
	for i, tc := range []struct {
		name    string
		hub     *stream.Hub
		running bool // the client connects while the turn still runs
	}{{"live here", writer, true}, {"other replica", replica, true}, {"completed, replayed", replica, false}} {
		t.Run(tc.name, func(t *testing.T) {
			turnID := fmt.Sprint("t", i)
			log := writer.Open(turnID)
			evs := turnEvents(turnID, 2)
			log.Publish(evs[0])
			if !tc.running {
				publishAll(log, evs[1:])
			}
			srv, results := sseServer(t, tc.hub, stream.SSEOptions{Heartbeat: time.Millisecond})
			client := newClient()
			defer client.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			url := srv.URL + "/turns/" + turnID + "/events"
			resp := get(ctx, t, client, url, "99")
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			if tc.running {
				publishAll(log, evs[1:])
			}
			want := wireOf(t, evs, len(evs)-1)
			if got := readUntilEnd(t, resp, 0); !cmp.Equal(want, got) {
				t.Errorf("events = %v, want only the end %v", got, want)
			}
			if r := <-results; r.err != nil || !r.res.Completed || r.res.Events != 1 {
				t.Errorf("ServeSSE() = %+v, %v; want the end only, completed, nil", r.res, r.err)
			}
			again := get(ctx, t, client, url, fmt.Sprint(len(evs)))
			again.Body.Close()
			if again.StatusCode != http.StatusNoContent {
				t.Errorf("reconnect status = %d, want 204", again.StatusCode)
			}
			<-results
		})
	}
}

// Many clients that never read a large finished turn replayed from the store: each is dropped
// once a write stalls, and nothing of them stays behind. (What they cost meanwhile is measured
// by BenchmarkStalledReaders.)
func TestNeverReadingClientsAreDropped(t *testing.T) {
	const readers = 20
	base := runtime.NumGoroutine()
	hub := stream.NewHub(stream.NewMemoryLogStore())
	log := hub.Open("big")
	log.Publish(stream.TurnStarted{TurnID: "big"})
	chunk := strings.Repeat("x", 2048)
	for range 1000 { // 2 MB: more than the small socket buffers below hold
		log.Publish(stream.ReplyDelta{Text: chunk})
	}
	log.Publish(stream.TurnCompleted{TurnID: "big"})
	hub.Done("big") // nobody follows yet: the log leaves memory

	results := make(chan error, readers)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := stream.ServeSSE(w, r, hub, "big", 0, stream.SSEOptions{StallTimeout: 300 * time.Millisecond, Heartbeat: -1})
		results <- err
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			_ = c.(*net.TCPConn).SetWriteBuffer(8 << 10)
		}
	}
	srv.Start()
	var conns []net.Conn
	for range readers {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetReadBuffer(8 << 10)
		fmt.Fprintf(c, "GET /turns/big/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
		conns = append(conns, c)
	}
	for range readers {
		if err := <-results; !errors.Is(err, stream.ErrSlowClient) {
			t.Errorf("a reader that never reads ended with %v, want ErrSlowClient", err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	srv.Close()
	hub.Close()
	waitGoroutines(t, base)
}
