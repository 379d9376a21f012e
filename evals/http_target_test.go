package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// fakeAPI speaks the part of switchboard's HTTP API the HTTP target uses: dev tokens, turns
// streamed as SSE, the stored turn, and the dev fault endpoint.
type fakeAPI struct {
	mu       sync.Mutex
	turns    map[string]fakeTurn // turn id -> turn
	n        int
	faults   map[string]ccsdemo.Fault
	faultLog []string // method and caller of each fault call
	limited  int      // the next POST /v1/turns answered 429
	posts    int
}

type fakeTurn struct {
	user, episode, message string
}

func newFakeAPI(t *testing.T) (*fakeAPI, *httptest.Server) {
	api := &fakeAPI{turns: map[string]fakeTurn{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/dev/token", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Sub string }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Sub == "" {
			http.Error(w, `{"error":{"code":"invalid_body","message":"Send a sub."}}`, http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"token":"tok-%s"}`, body.Sub)
	})
	mux.HandleFunc("POST /v1/turns", func(w http.ResponseWriter, r *http.Request) {
		user, ok := bearerUser(r)
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"unauthorized","message":"Sign in first."}}`)
			return
		}
		if r.Header.Get("Accept") != "text/event-stream" {
			http.Error(w, "want a stream", http.StatusNotAcceptable)
			return
		}
		api.mu.Lock()
		api.posts++
		limited := api.limited > 0
		if limited {
			api.limited--
		}
		api.mu.Unlock()
		if limited {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"code":"rate_limited","message":"You are starting turns too quickly."}}`)
			return
		}
		var body struct {
			EpisodeID string `json:"episode_id"`
			Message   string `json:"message"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		api.mu.Lock()
		api.n++
		id := fmt.Sprintf("turn_%d", api.n)
		if body.EpisodeID == "" {
			body.EpisodeID = fmt.Sprintf("ep_%d", api.n)
		}
		api.turns[id] = fakeTurn{user: user, episode: body.EpisodeID, message: body.Message}
		api.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		// A comment, CRLF line ends and a reply split over data lines exercise the parser.
		fmt.Fprint(w, ": hello\r\n\r\n")
		fmt.Fprintf(w, "id: 1\r\nevent: turn.started\r\ndata: {\"turn_id\":%q,\"episode_id\":%q}\r\n\r\n", id, body.EpisodeID)
		fmt.Fprint(w, "id: 2\nevent: status\ndata: {\"text\":\"Searching offers…\",\"sources\":[{\"agent_id\":\"shop\",\"event\":\"searching_offers\"}]}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "id: 3\nevent: reply.delta\ndata: {\"text\":\"You said: \"}\n\n")
		fmt.Fprintf(w, "id: 4\nevent: reply.completed\ndata: {\"text\":%q}\n\n", "You said: "+body.Message)
		fmt.Fprintf(w, "id: 5\nevent: turn.completed\ndata: {\"turn_id\":%q,\"outcome\":\"ok\"}\n\n", id)
		// Anything after turn.completed is never read.
		fmt.Fprint(w, "id: 6\nevent: bogus\ndata: {}\n\n")
	})
	mux.HandleFunc("GET /v1/turns/{id}", func(w http.ResponseWriter, r *http.Request) {
		user, _ := bearerUser(r)
		api.mu.Lock()
		turn, ok := api.turns[r.PathValue("id")]
		api.mu.Unlock()
		if !ok || turn.user != user {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"No such turn or episode."}}`)
			return
		}
		started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		fmt.Fprintf(w, `{"turn_id":%q,"episode_id":%q,"state":"completed","outcome":"ok","routing":{"invoked":["shop"],"intent_count":1,"cap":3,"cap_behaviour":"within","dropped":[],"agents":[{"agent":"shop","outcome":"ok","started":%q,"latency_ms":2}]}}`,
			r.PathValue("id"), turn.episode, started.Format(time.RFC3339Nano))
	})
	faults := func(w http.ResponseWriter, r *http.Request) {
		user, ok := bearerUser(r)
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		api.mu.Lock()
		defer api.mu.Unlock()
		api.faultLog = append(api.faultLog, r.Method+" "+user)
		if r.Method == http.MethodDelete {
			api.faults = nil
		} else if err := json.NewDecoder(r.Body).Decode(&api.faults); err != nil {
			http.Error(w, "bad faults", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
	mux.HandleFunc("PUT /v1/dev/ccs-faults", faults)
	mux.HandleFunc("DELETE /v1/dev/ccs-faults", faults)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return api, srv
}

func bearerUser(r *http.Request) (string, bool) {
	return strings.CutPrefix(r.Header.Get("Authorization"), "Bearer tok-")
}

func TestHTTPTarget(t *testing.T) {
	api, srv := newFakeAPI(t)
	target, err := NewHTTPTarget(srv.URL+"/", srv.Client())
	if err != nil {
		t.Fatalf("NewHTTPTarget() error = %v", err)
	}
	ctx := t.Context()
	first, err := target.Turn(ctx, TurnInput{User: "bob", Message: "deals on shoes"})
	if err != nil {
		t.Fatalf("Turn() error = %v", err)
	}
	second, err := target.Turn(ctx, TurnInput{User: "bob", EpisodeID: first.EpisodeID, Message: "and my points"})
	if err != nil {
		t.Fatalf("Turn() error = %v", err)
	}
	if first.TurnID != "turn_1" || first.EpisodeID != "ep_1" || second.EpisodeID != "ep_1" {
		t.Errorf("ids = %s/%s then %s/%s, want turn_1/ep_1 then the same episode", first.TurnID, first.EpisodeID, second.TurnID, second.EpisodeID)
	}
	if got := api.turns["turn_2"]; got.user != "bob" || got.episode != "ep_1" {
		t.Errorf("server saw %+v, want bob's turn in ep_1", got)
	}
	if first.Reply != "You said: deals on shoes" || first.Outcome != "ok" || len(first.Events) != 5 {
		t.Errorf("output = reply %q, outcome %q, %d events; want the reply, ok and 5 events", first.Reply, first.Outcome, len(first.Events))
	}
	wantDecision := &orchestrator.Decision{
		Invoked: []string{"shop"}, IntentCount: 1, Cap: 3, CapBehaviour: "within",
		Agents: []orchestrator.AgentOutcome{{Agent: "shop", Outcome: "ok", Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Latency: 2 * time.Millisecond}},
	}
	if diff := cmp.Diff(wantDecision, first.Decision); diff != "" {
		t.Errorf("Decision mismatch (-want +got):\n%s", diff)
	}
	if first.Latency <= 0 {
		t.Errorf("Latency = %v, want > 0", first.Latency)
	}

	err = target.InjectFaults(ctx, "bob", []AgentFault{
		{Agent: "rewards", Kind: FaultError, Enrichers: []string{"points.balance", "rewards.tier"}},
		{Agent: "travel", Kind: FaultTimeout, Enrichers: []string{"trips.upcoming"}},
		{Agent: "support", Kind: FaultPrincipalMismatch, Enrichers: []string{"orders.recent"}},
	})
	if err != nil {
		t.Fatalf("InjectFaults() error = %v", err)
	}
	wantFaults := map[string]ccsdemo.Fault{
		"points.balance": {Status: "error"}, "rewards.tier": {Status: "error"},
		"trips.upcoming": {Hang: true}, "orders.recent": {WrongPrincipal: true},
	}
	if diff := cmp.Diff(wantFaults, api.faults); diff != "" {
		t.Errorf("server faults mismatch (-want +got):\n%s", diff)
	}
	if err := target.ClearFaults(ctx, "bob"); err != nil {
		t.Fatalf("ClearFaults() error = %v", err)
	}
	// The server scopes faults to their caller: they are set and cleared as the case's user.
	if api.faults != nil || !cmp.Equal([]string{"PUT bob", "DELETE bob"}, api.faultLog) {
		t.Errorf("after clear: faults %v, calls %v", api.faults, api.faultLog)
	}
}

// TestHTTPTargetRetriesRateLimitedTurns: a server's 429 is waited out (Retry-After), not
// scored as a failed case.
func TestHTTPTargetRetriesRateLimitedTurns(t *testing.T) {
	api, srv := newFakeAPI(t)
	api.limited = 1
	target, err := NewHTTPTarget(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	out, err := target.Turn(t.Context(), TurnInput{User: "bob", Message: "deals"})
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("Turn() = %+v, %v; want ok after one 429", out, err)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.posts != 2 {
		t.Errorf("POST /v1/turns calls = %d, want 2 (one limited, one accepted)", api.posts)
	}
	if n := target.RateLimitWaits(); n != 1 {
		t.Errorf("RateLimitWaits() = %d, want 1", n)
	}
}

func TestHTTPTargetErrors(t *testing.T) {
	_, srv := newFakeAPI(t)
	tests := []struct {
		name    string
		opts    []HTTPOption
		in      TurnInput
		wantErr string
	}{
		{"rejected token", []HTTPOption{WithTokenSource(func(context.Context, string) (string, error) { return "nope", nil })},
			TurnInput{User: "alice", Message: "hi"}, "HTTP 401: unauthorized: Sign in first."},
		{"token source fails", []HTTPOption{WithTokenSource(func(context.Context, string) (string, error) { return "", errors.New("no key") })},
			TurnInput{User: "alice", Message: "hi"}, "no key"},
		{"dev token refused", nil, TurnInput{User: "", Message: "hi"}, "dev token for  (is the server in dev mode?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, err := NewHTTPTarget(srv.URL, nil, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = target.Turn(t.Context(), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Turn() error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	for _, bad := range []string{"", "ftp://x", "localhost:8080", "http://"} {
		if _, err := NewHTTPTarget(bad, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("NewHTTPTarget(%q) error = %v, want ErrConfig", bad, err)
		}
	}
}

func TestHTTPTargetNoFaultEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/dev/token", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"token":"t"}`) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	target, err := NewHTTPTarget(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	err = target.InjectFaults(t.Context(), "alice", []AgentFault{{Agent: "shop", Kind: FaultError, Enrichers: []string{"offers.search"}}})
	if !errors.Is(err, ErrNoFaultInjection) {
		t.Errorf("InjectFaults() error = %v, want ErrNoFaultInjection", err)
	}
}

func TestReadTurnStreamTruncated(t *testing.T) {
	_, err := readTurnStream(strings.NewReader("id: 1\nevent: turn.started\ndata: {\"turn_id\":\"t\",\"episode_id\":\"e\"}\n\n"))
	if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "without turn.completed") {
		t.Errorf("readTurnStream(truncated) error = %v, want a missing turn.completed", err)
	}
}
