package assembly

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/r3labs/sse/v2"
	"github.com/tmc/langchaingo/llms"
	"gopkg.in/cenkalti/backoff.v1"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// These tests hold the issue-4 acceptance over real HTTP: the whole service on an httptest
// server, SSE read by our parser, by the r3labs client and by a raw TCP client. What would
// otherwise be timed is made deterministic: a CCS call lasts exactly until the test releases
// it (heldCCS), a sub-agent starts its first tool exactly when the test opens its model's gate
// (gatedModel).

// wireEvent is an SSE event reduced to what a client compares: id, name and data.
type wireEvent struct {
	ID   uint64
	Name string
	Data string
}

func fromWire(evs []stream.WireEvent) []wireEvent {
	out := make([]wireEvent, len(evs))
	for i, ev := range evs {
		out[i] = wireEvent{ID: ev.ID, Name: ev.Name, Data: string(ev.Data)}
	}
	return out
}

// postTurn starts a turn without streaming and returns its 202 body.
func postTurn(t *testing.T, ta *testApp, tok, message string) (turnID, eventsURL string) {
	t.Helper()
	resp := ta.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": message}, nil)
	var created struct {
		TurnID    string `json:"turn_id"`
		EventsURL string `json:"events_url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/turns = %d, %v", resp.StatusCode, err)
	}
	return created.TurnID, created.EventsURL
}

// openStream sends req and checks that it answers with an event stream.
func openStream(t *testing.T, ta *testApp, req *http.Request) *http.Response {
	t.Helper()
	resp, err := ta.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s = %d %q %s, want 200 text/event-stream", req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp
}

// readAll reads events until turn.completed (inclusive).
func readAll(t *testing.T, r io.Reader) []stream.WireEvent {
	t.Helper()
	var evs []stream.WireEvent
	for ev, err := range stream.ReadEvents(r) {
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		evs = append(evs, ev)
		if ev.Name == "turn.completed" {
			return evs
		}
	}
	t.Fatalf("stream ended after %d events without turn.completed", len(evs))
	return nil
}

// fullStream reads a turn's whole stream in one go, from its first event.
func fullStream(t *testing.T, ta *testApp, tok, turnID string) []stream.WireEvent {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ta.srv.URL+"/v1/turns/"+turnID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp := openStream(t, ta, req)
	defer resp.Body.Close()
	evs := readAll(t, resp.Body)
	for i, ev := range evs {
		if ev.ID != uint64(i+1) {
			t.Fatalf("full stream: event %d has id %d, want ids 1..n", i, ev.ID)
		}
	}
	return evs
}

// A sub-agent's typed status event reaches the client as its rendered line while the
// CCS call behind it is still running, and before any reply text.
func TestStatusArrivesWhileToolRuns(t *testing.T) {
	held := newHeldCCS(t)
	held.hold("offers.search") // the tool takes as long as the test wants
	ta := newStreamApp(t, streamSetup{edit: func(c *config.Config) { c.CCS.URL = held.srv.URL }})
	tok := ta.token(t, "alice")

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/turns",
		strings.NewReader(`{"message":"any deals on running shoes?"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/event-stream")
	resp := openStream(t, ta, req)

	var turnID string
	statusAt, firstDelta := -1, -1
	var outcome stream.Outcome
	i := 0
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Name {
		case "turn.started":
			turnID = decode[stream.TurnStarted](t, ev).TurnID
		case "status":
			if statusAt >= 0 {
				break
			}
			statusAt = i
			st := decode[stream.Status](t, ev)
			if diff := cmp.Diff([]stream.Source{{AgentID: "shop", Event: "searching_offers"}}, st.Sources); diff != "" {
				t.Errorf("status sources (-want +got):\n%s", diff)
			}
			// The declared transform "Searching offers for {query}…", filled in.
			if !strings.HasPrefix(st.Text, "Searching offers for ") || strings.ContainsAny(st.Text, "{}") {
				t.Errorf("status text = %q, want the rendered transform of searching_offers", st.Text)
			}
			// The call the status stands for has started and not ended, and the turn runs on.
			if started, ended := held.counts("offers.search"); started != 1 || ended != 0 {
				t.Errorf("offers.search calls when the status arrived: %d started, %d ended; want 1, 0", started, ended)
			}
			if rec, err := ta.Service.Turn(t.Context(), "alice", turnID); err != nil || rec.State != orchestrator.TurnRunning {
				t.Errorf("stored turn when the status arrived = %s, %v; want running", rec.State, err)
			}
			held.release("offers.search")
		case "reply.delta":
			if firstDelta < 0 {
				firstDelta = i
			}
		case "turn.completed":
			outcome = decode[stream.TurnCompleted](t, ev).Outcome
		}
		i++
		if ev.Name == "turn.completed" {
			break
		}
	}
	if statusAt < 0 || firstDelta < 0 || statusAt > firstDelta {
		t.Errorf("status at event %d, first reply.delta at %d: want a status before the first delta", statusAt, firstDelta)
	}
	if outcome != stream.OutcomeOK {
		t.Errorf("outcome = %q, want ok", outcome)
	}
	if calls := held.demo.Calls(); len(calls) != 1 || calls[0].EnricherID != "offers.search" {
		t.Errorf("demo CCS calls = %+v, want the one offers.search", calls)
	}
}

// Fan-out batching: status events of parallel sub-agents that start within the batch window
// share one line; a sub-agent whose tool starts after the window closed gets its own line.
func TestParallelStatusEventsBatching(t *testing.T) {
	shop := stream.Source{AgentID: "shop", Event: "searching_offers"}
	rewards := stream.Source{AgentID: "rewards", Event: "looking_up_points_balance"}
	for _, tc := range []struct {
		name string
		// window replaces the concierge's batch_window. The window opened by the first event
		// is flushed early when the fan-out ends, so a long one makes "both tools start within
		// it" certain without making the turn any slower.
		window string
		// gateRewards holds the rewards sub-agent's model until the client has shown a status
		// line, so its tool (and status event) starts only after the first window closed.
		gateRewards bool
		want        [][]stream.Source
	}{
		{name: "within the window", window: "10s", want: [][]stream.Source{{rewards, shop}}},
		{name: "outside the window", window: "250ms", gateRewards: true, want: [][]stream.Source{{shop}, {rewards}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edits := map[string]map[string]string{"concierge.yaml": {"batch_window: 250ms": "batch_window: " + tc.window}}
			gated := newGatedModel(offline.New())
			if tc.gateRewards {
				edits["rewards.yaml"] = map[string]string{"model: default": "model: gated"}
			}
			ta := newStreamApp(t, streamSetup{agents: agentsWithEdits(t, edits), models: map[string]llms.Model{"gated": gated}})
			tok := ta.token(t, "alice")

			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/turns",
				strings.NewReader(`{"message":"`+twoIntentMessage+`"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Accept", "text/event-stream")
			resp := openStream(t, ta, req)

			var lines [][]stream.Source
			var texts []string
			for ev, err := range stream.ReadEvents(resp.Body) {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Name == "turn.completed" {
					if got := decode[stream.TurnCompleted](t, ev).Outcome; got != stream.OutcomeOK {
						t.Errorf("outcome = %q, want ok", got)
					}
					break
				}
				if ev.Name != "status" {
					continue
				}
				st := decode[stream.Status](t, ev)
				gated.open() // the first line is out: the rewards sub-agent may start now
				// A sub-agent silent past the orchestrator's cadence gets a "working" line of its
				// own; that fallback is not what this test is about.
				srcs := slices.DeleteFunc(slices.Clone(st.Sources), func(s stream.Source) bool { return s.Event == "working" })
				if len(srcs) == 0 {
					continue
				}
				slices.SortFunc(srcs, func(a, b stream.Source) int { return strings.Compare(a.AgentID, b.AgentID) })
				lines = append(lines, srcs)
				texts = append(texts, st.Text)
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Fatalf("status lines' sources (-want +got):\n%s\ntexts: %q", diff, texts)
			}
			if len(lines) == 1 {
				low := strings.ToLower(texts[0])
				if !strings.Contains(low, "looking up your points balance") || !strings.Contains(low, "searching offers for") {
					t.Errorf("merged line = %q, want both agents' texts", texts[0])
				}
			}
		})
	}
}

// Resume with a real SSE client (r3labs/sse/v2): disconnect mid-turn after k events,
// reconnect with Last-Event-ID k, and get exactly events k+1..n, once each and in order.
func TestResumeWithSSEClient(t *testing.T) {
	held := newHeldCCS(t)
	held.hold("offers.search") // keeps the turn running while the client is away
	ta := newStreamApp(t, streamSetup{edit: func(c *config.Config) { c.CCS.URL = held.srv.URL }})
	tok := ta.token(t, "alice")
	turnID, eventsURL := postTurn(t, ta, tok, "any deals on running shoes?")

	toWire := func(ev *sse.Event) wireEvent {
		id, err := strconv.ParseUint(string(ev.ID), 10, 64)
		if err != nil {
			t.Errorf("event id %q: %v", ev.ID, err)
		}
		return wireEvent{ID: id, Name: string(ev.Event), Data: string(ev.Data)}
	}

	// First connection, with the turn token of events_url: read up to the first status line
	// (which arrives while the CCS call is held), then go away.
	var first []wireEvent
	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	c1 := sse.NewClient(ta.srv.URL + eventsURL)
	c1.ReconnectStrategy = &backoff.StopBackOff{}
	err := c1.SubscribeRawWithContext(ctx1, func(ev *sse.Event) {
		if ctx1.Err() != nil {
			return // read after we decided to leave: the client does not have it
		}
		first = append(first, toWire(ev))
		if string(ev.Event) == "status" {
			cancel1()
		}
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("first subscription = %v", err)
	}
	k := len(first)
	if k < 2 || first[k-1].Name != "status" {
		t.Fatalf("first connection got %+v, want events up to the first status", first)
	}
	if rec, err := ta.Service.Turn(t.Context(), "alice", turnID); err != nil || rec.State != orchestrator.TurnRunning {
		t.Fatalf("turn after the disconnect = %s, %v; want still running", rec.State, err)
	}

	// Second connection, with the bearer header, resuming after k; the turn goes on meanwhile.
	c2 := sse.NewClient(ta.srv.URL + "/v1/turns/" + turnID + "/events")
	c2.ReconnectStrategy = &backoff.StopBackOff{}
	c2.Headers["Authorization"] = "Bearer " + tok
	c2.LastEventID.Store([]byte(strconv.Itoa(k)))
	var (
		mu   sync.Mutex
		rest []wireEvent
	)
	done := make(chan error, 1)
	ctx2, cancel2 := context.WithTimeout(t.Context(), streamWait)
	defer cancel2()
	go func() {
		done <- c2.SubscribeRawWithContext(ctx2, func(ev *sse.Event) {
			mu.Lock()
			defer mu.Unlock()
			rest = append(rest, toWire(ev))
		})
	}()
	held.release("offers.search")
	if err := <-done; err != nil {
		t.Fatalf("resumed subscription = %v", err)
	}

	mu.Lock()
	defer mu.Unlock()
	var ids []uint64
	for _, ev := range rest {
		ids = append(ids, ev.ID)
	}
	full := fromWire(fullStream(t, ta, tok, turnID))
	var want []uint64
	for id := uint64(k + 1); id <= uint64(len(full)); id++ {
		want = append(want, id)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("resumed ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(full, append(first, rest...)); diff != "" {
		t.Errorf("first connection + resumed != the whole stream (-want +got):\n%s", diff)
	}
	if last := full[len(full)-1]; last.Name != "turn.completed" {
		t.Errorf("stream ends with %s, want turn.completed", last.Name)
	}
}

// A client that reads nothing while a turn streams thousands of events is dropped once its
// small backlog is full, instead of the server queueing the turn for it; the turn itself
// completes and is stored whole.
func TestSlowReaderIsDropped(t *testing.T) {
	const words = 5000
	wordy := newWordyModel(words) // the concierge's reply: one reply.delta per word
	ta := newStreamApp(t, streamSetup{
		agents: agentsWithEdits(t, map[string]map[string]string{"concierge.yaml": {"model: default": "model: wordy"}}),
		models: map[string]llms.Model{"wordy": wordy},
		// A small backlog, and almost no grace for a stalled writer, so the drop comes before the
		// test starts reading.
		sse:              &stream.SSEOptions{Backlog: 4, Heartbeat: -1, DrainTimeout: 300 * time.Millisecond, StallTimeout: time.Millisecond},
		smallSendBuffers: true,
	})
	tok := ta.token(t, "alice")

	conn, err := net.Dial("tcp", ta.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	body := `{"message":"tell me a long story","episode_id":"ep-slow-reader"}`
	fmt.Fprintf(conn, "POST /v1/turns HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", ta.srv.Listener.Addr(), tok, len(body), body)

	// Reading nothing, find the turn and wait for it to end.
	var turnID string
	deadline := time.Now().Add(streamWait)
	for turnID == "" {
		if time.Now().After(deadline) {
			t.Fatal("no turn was started")
		}
		time.Sleep(10 * time.Millisecond)
		turnID = episodeTurn(t, ta, "alice", "ep-slow-reader")
	}
	rec := awaitTurnStored(t, ta, "alice", turnID)
	if rec.Outcome != stream.OutcomeOK || rec.Reply != wordy.text {
		t.Errorf("stored turn: outcome %q, reply of %d bytes; want ok and the whole %d-byte reply", rec.Outcome, len(rec.Reply), len(wordy.text))
	}
	recs := hubLog(t, ta, turnID)
	var deltas strings.Builder
	for _, r := range recs {
		if d, ok := r.Event.(stream.ReplyDelta); ok {
			deltas.WriteString(d.Text)
		}
	}
	if deltas.String() != wordy.text {
		t.Errorf("the logged deltas make %d bytes, want the whole %d-byte reply", deltas.Len(), len(wordy.text))
	}
	if tc, ok := recs[len(recs)-1].Event.(stream.TurnCompleted); !ok || tc.Outcome != stream.OutcomeOK {
		t.Errorf("last record = %#v, want turn.completed ok", recs[len(recs)-1].Event)
	}

	// Now read: the server has given up on this client. What is left for it is what the
	// kernel buffered before the drop, a prefix of the stream, and then the connection closes.
	_ = conn.SetReadDeadline(time.Now().Add(streamWait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response head: %v", err)
	}
	var got []stream.WireEvent
	var readErr error
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			readErr = err
			break
		}
		got = append(got, ev)
	}
	if ne := net.Error(nil); errors.As(readErr, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the slow client's connection open (%d events read)", len(got))
	}
	if len(got) >= len(recs) || len(got) > 0 && got[len(got)-1].Name == "turn.completed" {
		t.Fatalf("the slow client got %d of %d events: the server queued the whole turn for it", len(got), len(recs))
	}
	for i, ev := range got {
		if ev.ID != uint64(i+1) {
			t.Fatalf("slow client's event %d has id %d, want a prefix 1..m of the log", i, ev.ID)
		}
	}
	t.Logf("the slow client got %d of %d events before it was dropped (%v)", len(got), len(recs), readErr)
}

// A reader that keeps up receives a long turn whole, live and on replay, with the default
// stream options. A 300-word reply logs about a hundred events, most of them in one burst.
func TestLongTurnReachesReaderThatKeepsUp(t *testing.T) {
	wordy := newWordyModel(300)
	ta := newStreamApp(t, streamSetup{
		agents: agentsWithEdits(t, map[string]map[string]string{"concierge.yaml": {"model: default": "model: wordy"}}),
		models: map[string]llms.Model{"wordy": wordy},
	})
	tok := ta.token(t, "alice")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/turns",
		strings.NewReader(`{"message":"tell me a long story"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/event-stream")
	live := readAll(t, openStream(t, ta, req).Body)
	turnID := decode[stream.TurnStarted](t, live[0]).TurnID
	if got := decode[stream.ReplyCompleted](t, live[len(live)-2]).Text; got != wordy.text {
		t.Errorf("live reply.completed has %d bytes, want %d", len(got), len(wordy.text))
	}
	replay := fullStream(t, ta, tok, turnID)
	if diff := cmp.Diff(fromWire(live), fromWire(replay)); diff != "" {
		t.Errorf("replay != live stream (-live +replay):\n%s", diff)
	}
}

// episodeTurn returns the id of the episode's only turn, or "" while it has none.
func episodeTurn(t *testing.T, ta *testApp, sub, episodeID string) string {
	t.Helper()
	ep, err := ta.Service.Episode(t.Context(), principal.Principal(sub), episodeID)
	if errors.Is(err, orchestrator.ErrNotFound) || err == nil && len(ep.Turns) == 0 {
		return ""
	}
	if err != nil || len(ep.Turns) != 1 {
		t.Fatalf("episode %s = %d turns, %v; want one", episodeID, len(ep.Turns), err)
	}
	return ep.Turns[0].ID
}

// Dropping the connection mid-turn: by default the turn runs on, is stored, and the rest of
// its stream is there to resume; with turns.cancel_on_disconnect the drop cancels it.
func TestDisconnectMidTurn(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cancelOnDrop bool
		releaseCCS   bool
		wantOutcome  stream.Outcome
	}{
		{name: "turn outlives its client", releaseCCS: true, wantOutcome: stream.OutcomeOK},
		{name: "cancel_on_disconnect", cancelOnDrop: true, wantOutcome: stream.OutcomeCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held := newHeldCCS(t)
			held.hold("offers.search")
			ta := newStreamApp(t, streamSetup{edit: func(c *config.Config) {
				c.CCS.URL = held.srv.URL
				c.Turns.CancelOnDisconnect = tc.cancelOnDrop
			}})
			tok := ta.token(t, "alice")

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ta.srv.URL+"/v1/turns",
				strings.NewReader(`{"message":"any deals on running shoes?"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Accept", "text/event-stream")
			resp := openStream(t, ta, req)
			var first []stream.WireEvent
			for ev, err := range stream.ReadEvents(resp.Body) {
				if err != nil {
					t.Fatal(err)
				}
				first = append(first, ev)
				if ev.Name == "status" {
					break
				}
			}
			turnID := decode[stream.TurnStarted](t, first[0]).TurnID
			cancel() // the client goes away after the first status
			resp.Body.Close()
			if tc.releaseCCS {
				// Without cancel_on_disconnect nothing can end the turn while its CCS call is held.
				if rec, err := ta.Service.Turn(t.Context(), "alice", turnID); err != nil || rec.State != orchestrator.TurnRunning {
					t.Fatalf("turn right after the drop = %s, %v; want running (its CCS call is held)", rec.State, err)
				}
				held.release("offers.search")
			}

			rec := awaitTurnStored(t, ta, "alice", turnID)
			if rec.Outcome != tc.wantOutcome {
				t.Errorf("stored outcome = %q, want %q", rec.Outcome, tc.wantOutcome)
			}
			if tc.cancelOnDrop {
				held.waitUntil(t, "the held offers.search call has ended", func() bool { return held.running("offers.search") == 0 })
			}

			// Resume after what the client had.
			k := len(first)
			r2, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ta.srv.URL+"/v1/turns/"+turnID+"/events", nil)
			r2.Header.Set("Authorization", "Bearer "+tok)
			r2.Header.Set("Last-Event-ID", strconv.Itoa(k))
			rest := readAll(t, openStream(t, ta, r2).Body)
			for i, ev := range rest {
				if want := uint64(k + 1 + i); ev.ID != want {
					t.Fatalf("resumed event %d has id %d, want %d", i, ev.ID, want)
				}
			}
			if got := decode[stream.TurnCompleted](t, rest[len(rest)-1]).Outcome; got != tc.wantOutcome {
				t.Errorf("resumed stream ends with outcome %q, want %q", got, tc.wantOutcome)
			}
			full := fullStream(t, ta, tok, turnID)
			if diff := cmp.Diff(fromWire(full), fromWire(append(first, rest...))); diff != "" {
				t.Errorf("before drop + resumed != the whole stream (-want +got):\n%s", diff)
			}
		})
	}
}

// DELETE mid-fan-out cancels every sub-agent's context: both hanging CCS calls end, the turn
// ends cancelled, and no goroutine is left behind.
func TestDeleteMidFanOutEndsEveryCallAndLeaksNothing(t *testing.T) {
	held := newHeldCCS(t)
	ta := newStreamApp(t, streamSetup{edit: func(c *config.Config) { c.CCS.URL = held.srv.URL }})
	tok := ta.token(t, "alice")
	closeConns := func() {
		ta.srv.Client().CloseIdleConnections()
		if tr, ok := http.DefaultTransport.(*http.Transport); ok {
			tr.CloseIdleConnections() // the CCS client's
		}
		ta.srv.CloseClientConnections()
		held.srv.CloseClientConnections()
	}

	// Warm up: one whole two-intent turn, so that lazily started goroutines exist already.
	if evs := ta.streamTurn(t, tok, "", twoIntentMessage); evs[len(evs)-1].Name != "turn.completed" {
		t.Fatalf("warm-up turn ended with %s", evs[len(evs)-1].Name)
	}
	closeConns()
	baseline := settledGoroutines()

	enrichers := []string{"offers.search", "points.balance"}
	for _, id := range enrichers {
		held.demo.Inject(id, ccsdemo.Fault{Hang: true})
	}
	turnID, eventsURL := postTurn(t, ta, tok, twoIntentMessage)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ta.srv.URL+eventsURL, nil)
	resp := openStream(t, ta, req)
	held.waitUntil(t, "both sub-agents are inside their CCS calls", func() bool {
		return held.running("offers.search") == 1 && held.running("points.balance") == 1
	})

	if got := ta.do(t, http.MethodDelete, "/v1/turns/"+turnID, tok, nil, nil).StatusCode; got != http.StatusNoContent {
		t.Fatalf("DELETE = %d, want 204", got)
	}
	evs := readAll(t, resp.Body)
	resp.Body.Close()
	if got := decode[stream.TurnCompleted](t, evs[len(evs)-1]).Outcome; got != stream.OutcomeCancelled {
		t.Errorf("stream outcome = %q, want cancelled", got)
	}
	if rec := awaitTurnStored(t, ta, "alice", turnID); rec.Outcome != stream.OutcomeCancelled {
		t.Errorf("stored outcome = %q, want cancelled", rec.Outcome)
	}
	held.waitUntil(t, "both hanging CCS calls have ended", func() bool {
		return held.running("offers.search") == 0 && held.running("points.balance") == 0
	})
	for _, id := range enrichers {
		// Warm-up call plus the cancelled one: nothing was retried or left running.
		if started, ended := held.counts(id); started != 2 || ended != 2 {
			t.Errorf("%s: %d calls started, %d ended; want 2 and 2", id, started, ended)
		}
	}

	closeConns()
	waitGoroutinesAtMost(t, baseline)
}
