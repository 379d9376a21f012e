package assembly

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// testApp is the whole service on an httptest server: offline model, embedded demo CCS,
// memory store, dev auth.
type testApp struct {
	*App
	srv *httptest.Server
}

func newTestApp(t *testing.T, agentsDir string, edit func(*config.Config)) *testApp {
	t.Helper()
	return newAppWith(t, agentsDir, func(o *Input) {
		if edit != nil {
			edit(o.Config)
		}
	})
}

// newAppWith is newTestApp with the assembly options at hand.
func newAppWith(t *testing.T, agentsDir string, opt func(*Input)) *testApp {
	t.Helper()
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Turns.Deadline = 20 * time.Second
	o := Input{Config: &cfg, Agents: agentsDir, Logger: slog.New(slog.DiscardHandler)}
	if opt != nil {
		opt(&o)
	}
	return serveApp(t, o)
}

// serveApp assembles the service from o and serves it on an httptest server; when the test
// ends it cancels running turns, waits for them and closes everything.
func serveApp(t *testing.T, o Input) *testApp {
	t.Helper()
	a, err := New(t.Context(), o)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a.Service.CancelAll()
		_ = a.Service.Wait(ctx)
		_ = a.Close()
	})
	return &testApp{App: a, srv: srv}
}

func (ta *testApp) token(t *testing.T, sub string) string {
	t.Helper()
	tok, err := ta.DevSigner.Mint(sub, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (ta *testApp) do(t *testing.T, method, path, token string, body any, hdr map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, ta.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := ta.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// streamTurn posts a message with Accept: text/event-stream and reads the whole stream.
func (ta *testApp) streamTurn(t *testing.T, token, episodeID, message string) []stream.WireEvent {
	t.Helper()
	body := map[string]string{"message": message}
	if episodeID != "" {
		body["episode_id"] = episodeID
	}
	resp := ta.do(t, http.MethodPost, "/v1/turns", token, body, map[string]string{"Accept": "text/event-stream"})
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /v1/turns = %d %s", resp.StatusCode, b)
	}
	var events []stream.WireEvent
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		events = append(events, ev)
		if ev.Name == "turn.completed" {
			break
		}
	}
	return events
}

func decode[T any](t *testing.T, ev stream.WireEvent) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Data, &v); err != nil {
		t.Fatalf("decode %s: %v", ev.Name, err)
	}
	return v
}

// The acceptance turn of the first issue: two intents for alice, over real HTTP and SSE.
func TestTwoIntentTurnEndToEnd(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	tok := ta.token(t, "alice")
	events := ta.streamTurn(t, tok, "", "any deals on running shoes? and how many points do I have?")

	names := map[string]int{}
	statusFrom := map[string]bool{}
	var reply, episode string
	var lastID uint64
	for _, ev := range events {
		names[ev.Name]++
		if ev.ID <= lastID {
			t.Errorf("event id %d after %d: ids must increase", ev.ID, lastID)
		}
		lastID = ev.ID
		switch ev.Name {
		case "turn.started":
			episode = decode[stream.TurnStarted](t, ev).EpisodeID
		case "status":
			for _, s := range decode[stream.Status](t, ev).Sources {
				statusFrom[s.AgentID] = true
			}
		case "reply.completed":
			reply = decode[stream.ReplyCompleted](t, ev).Text
		case "turn.completed":
			if got := decode[stream.TurnCompleted](t, ev).Outcome; got != stream.OutcomeOK {
				t.Errorf("outcome = %q, want ok", got)
			}
		}
	}
	if events[0].Name != "turn.started" || events[len(events)-1].Name != "turn.completed" {
		t.Errorf("stream runs %s..%s, want turn.started..turn.completed", events[0].Name, events[len(events)-1].Name)
	}
	if !statusFrom["shop"] || !statusFrom["rewards"] {
		t.Errorf("status sources = %v, want shop and rewards", statusFrom)
	}
	if names["reply.delta"] == 0 {
		t.Error("no reply.delta events")
	}
	low := strings.ToLower(reply)
	if !strings.Contains(low, "pegasus") || !strings.Contains(low, "points") {
		t.Errorf("reply does not mention an offer (the Pegasus) and points: %q", reply)
	}

	resp := ta.do(t, http.MethodGet, "/v1/episodes/"+episode, tok, nil, nil)
	var ep orchestrator.Episode
	if err := json.NewDecoder(resp.Body).Decode(&ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.Turns) != 1 || ep.Turns[0].Decision == nil {
		t.Fatalf("episode = %+v, want one turn with a routing record", ep)
	}
	invoked := slices.Sorted(slices.Values(ep.Turns[0].Decision.Invoked))
	if !slices.Equal(invoked, []string{"rewards", "shop"}) {
		t.Errorf("stored invoked = %v, want [rewards shop]", invoked)
	}
}

// A new YAML agent is routed by the offline model with no code change.
func TestNewAgentIsRoutedWithoutCodeChange(t *testing.T) {
	dir := copyAgents(t, func(name string, data []byte) []byte {
		if name != "concierge.yaml" {
			return data
		}
		out := bytes.Replace(data, []byte("sub_agents: [shop, rewards, support, travel]"), []byte("sub_agents: [shop, rewards, support, travel, garden]"), 1)
		if bytes.Equal(out, data) {
			t.Fatal("concierge.yaml: sub_agents line not found")
		}
		return out
	})
	garden := `kind: sub_agent
id: garden
name: Garden
description: >-
  Gardening help: when and how much to water plants, pruning, repotting, soil and compost,
  and dealing with pests or yellowing leaves on vegetables, herbs and house plants.
examples:
  - "how often should i water my tomatoes"
  - "my basil leaves are going yellow"
prompt: You are a friendly gardening expert.
`
	if err := os.WriteFile(filepath.Join(dir, "garden.yaml"), []byte(garden), 0o600); err != nil {
		t.Fatal(err)
	}
	ta := newTestApp(t, dir, nil)
	tok := ta.token(t, "alice")
	events := ta.streamTurn(t, tok, "", "the leaves on my tomato plants are turning yellow, am I watering them too much?")
	turnID := decode[stream.TurnStarted](t, events[0]).TurnID
	rec, err := ta.Service.Turn(t.Context(), "alice", turnID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Decision == nil || !slices.Equal(rec.Decision.Invoked, []string{"garden"}) {
		t.Errorf("invoked = %+v, want [garden]", rec.Decision)
	}
}

func TestIdempotencyKey(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	tok := ta.token(t, "alice")
	post := func(msg string) (int, map[string]string) {
		resp := ta.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": msg}, map[string]string{"Idempotency-Key": "k-1"})
		var body map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	s1, b1 := post("how many points do I have?")
	s2, b2 := post("how many points do I have?")
	if s1 != http.StatusAccepted || s2 != http.StatusAccepted || b1["turn_id"] != b2["turn_id"] {
		t.Errorf("same key, same body: %d %v / %d %v, want one turn", s1, b1, s2, b2)
	}
	if s3, _ := post("something else"); s3 != http.StatusConflict {
		t.Errorf("same key, other body = %d, want 409", s3)
	}
}

func TestOtherPrincipalsTurnsAreNotFound(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	alice, bob := ta.token(t, "alice"), ta.token(t, "bob")
	resp := ta.do(t, http.MethodPost, "/v1/turns", alice, map[string]string{"message": "how many points do I have?"}, nil)
	var created struct{ TurnID, EpisodeID, EventsURL string }
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &map[string]any{}); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST = %d %s", resp.StatusCode, body)
	}
	var m map[string]string
	_ = json.Unmarshal(body, &m)
	created.TurnID, created.EpisodeID, created.EventsURL = m["turn_id"], m["episode_id"], m["events_url"]

	for _, tc := range []struct{ name, method, path, token string }{
		{"turn", http.MethodGet, "/v1/turns/" + created.TurnID, bob},
		{"events", http.MethodGet, "/v1/turns/" + created.TurnID + "/events", bob},
		{"episode", http.MethodGet, "/v1/episodes/" + created.EpisodeID, bob},
		{"cancel", http.MethodDelete, "/v1/turns/" + created.TurnID, bob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ta.do(t, tc.method, tc.path, tc.token, nil, nil).StatusCode; got != http.StatusNotFound {
				t.Errorf("%s %s as bob = %d, want 404", tc.method, tc.path, got)
			}
		})
	}
	// A turn token works for its own turn only; any other use is an invalid token (401 in the
	// JSON error shape), which says nothing about whether the other turn exists.
	otherTurn := strings.Replace(created.EventsURL, created.TurnID, "turn_000000000000000000000000", 1)
	forged := created.EventsURL[:strings.Index(created.EventsURL, "token=")] + "token=not-a-token"
	for name, u := range map[string]string{"another turn": otherTurn, "forged": forged} {
		resp := ta.do(t, http.MethodGet, u, "", nil, nil)
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusUnauthorized || body.Error.Code != "invalid_token" {
			t.Errorf("turn token on %s = %d %q, want 401 invalid_token", name, resp.StatusCode, body.Error.Code)
		}
	}
	// The events_url itself streams the turn to a client without a bearer header.
	resp = ta.do(t, http.MethodGet, created.EventsURL, "", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events_url = %d", resp.StatusCode)
	}
	var last string
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev.Name
		if last == "turn.completed" {
			break
		}
	}
	if last != "turn.completed" {
		t.Errorf("events_url stream ended at %q", last)
	}
	// A client whose link expired fetches the turn with its bearer token for a fresh one.
	var fetched struct {
		EventsURL string `json:"events_url"`
	}
	if err := json.NewDecoder(ta.do(t, http.MethodGet, "/v1/turns/"+created.TurnID, alice, nil, nil).Body).Decode(&fetched); err != nil {
		t.Fatal(err)
	}
	if resp := ta.do(t, http.MethodGet, fetched.EventsURL, "", nil, nil); !strings.Contains(fetched.EventsURL, "token=") || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/turns/{id} events_url %q = %d, want a working link", fetched.EventsURL, resp.StatusCode)
	}
}

func TestRequestValidation(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	tok := ta.token(t, "alice")
	for _, tc := range []struct {
		name, token, body string
		status            int
		code              string
	}{
		{"no token", "", `{"message":"hi"}`, 401, "unauthenticated"},
		{"bad token", "not-a-jwt", `{"message":"hi"}`, 401, "invalid_token"},
		{"blank message", tok, `{"message":"   "}`, 400, "invalid_message"},
		{"not json", tok, `message=hi`, 400, "invalid_body"},
		{"unknown field", tok, `{"message":"hi","mesage":"x"}`, 400, "invalid_body"},
		{"not an object", tok, `[1,2]`, 400, "invalid_body"},
		{"too long", tok, `{"message":"` + strings.Repeat("a", 5000) + `"}`, 400, "invalid_message"},
		{"too large", tok, `{"message":"` + strings.Repeat("a", 70000) + `"}`, 413, "too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/turns", strings.NewReader(tc.body))
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := ta.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message string }
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.Error.Code != tc.code || body.Error.Message == "" {
				t.Errorf("= %d %+v, want %d %s with a message", resp.StatusCode, body, tc.status, tc.code)
			}
			if tc.token != "" && strings.Contains(body.Error.Message, tc.token) {
				t.Error("error message echoes the token")
			}
		})
	}
}

// DELETE mid-fan-out cancels every sub-agent: both CCS calls hang until their context ends,
// and the stream ends with outcome cancelled.
func TestDeleteCancelsRunningTurn(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	ta.Demo.Inject("offers.search", ccsdemo.Fault{Hang: true})
	ta.Demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	tok := ta.token(t, "alice")
	resp := ta.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": "any deals on running shoes? and how many points do I have?"}, nil)
	var created map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&created)
	events := ta.do(t, http.MethodGet, created["events_url"], "", nil, nil)

	var outcome stream.Outcome
	seenStatus := 0
	for ev, err := range stream.ReadEvents(events.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Name == "status" {
			seenStatus++
			if seenStatus == 1 { // both sub-agents are inside their CCS calls by now or soon
				if got := ta.do(t, http.MethodDelete, "/v1/turns/"+created["turn_id"], tok, nil, nil).StatusCode; got != http.StatusNoContent {
					t.Fatalf("DELETE = %d, want 204", got)
				}
			}
		}
		if ev.Name == "turn.completed" {
			outcome = decode[stream.TurnCompleted](t, ev).Outcome
			break
		}
	}
	if outcome != stream.OutcomeCancelled {
		t.Errorf("outcome = %q, want cancelled", outcome)
	}
	rec, err := ta.Service.Turn(t.Context(), "alice", created["turn_id"])
	if err != nil || rec.State != orchestrator.TurnCompleted || rec.Outcome != stream.OutcomeCancelled {
		t.Errorf("stored turn = %+v, %v; want completed and cancelled", rec, err)
	}
}

// Cancelling a turn that has ended is a conflict the client can act on, not a silent success.
func TestDeleteFinishedTurnIsAConflict(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	tok := ta.token(t, "alice")
	events := ta.streamTurn(t, tok, "", "how many points do I have?")
	id := decode[stream.TurnStarted](t, events[0]).TurnID
	resp := ta.do(t, http.MethodDelete, "/v1/turns/"+id, tok, nil, nil)
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusConflict || body.Error.Code != "turn_finished" {
		t.Errorf("DELETE of a finished turn = %d %q, want 409 turn_finished", resp.StatusCode, body.Error.Code)
	}
}

// GET /v1/episodes/{id}?limit=N serves the newest N turns, oldest first, and says whether
// older ones exist; a limit that is no page size is refused, and another user's episode is
// not found, paged or not.
func TestEpisodeLimit(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	alice, bob := ta.token(t, "alice"), ta.token(t, "bob")
	const episode = "ep-paged"
	messages := []string{"how many points do I have?", "where is my order?", "what tier am I in?"}
	for _, m := range messages {
		ta.streamTurn(t, alice, episode, m)
	}
	page := func(query, token string) (int, episodeView) {
		t.Helper()
		resp := ta.do(t, http.MethodGet, "/v1/episodes/"+episode+query, token, nil, nil)
		var v episodeView
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, v
	}
	for _, tc := range []struct {
		query string
		want  []string
		more  bool
	}{
		{"", messages, false},
		{"?limit=2", messages[1:], true},
		{"?limit=3", messages, false},
		{"?limit=50", messages, false},
	} {
		status, v := page(tc.query, alice)
		var got []string
		for _, turn := range v.Turns {
			got = append(got, turn.Message)
		}
		if status != http.StatusOK || !slices.Equal(got, tc.want) || v.More != tc.more {
			t.Errorf("GET %s = %d, turns %q more %v; want %q more %v", tc.query, status, got, v.More, tc.want, tc.more)
		}
	}
	for _, q := range []string{"?limit=0", "?limit=-1", "?limit=abc", "?limit=1001"} {
		if status, _ := page(q, alice); status != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", q, status)
		}
	}
	if status, _ := page("?limit=2", bob); status != http.StatusNotFound {
		t.Errorf("bob GET ?limit=2 = %d, want 404", status)
	}
}

type episodeView struct {
	Turns []struct {
		Message string `json:"message"`
	} `json:"turns"`
	More bool `json:"more"`
}
