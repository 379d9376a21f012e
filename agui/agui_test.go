package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// clientEvent is an AG-UI event as a client decodes it.
type clientEvent map[string]any

func (e clientEvent) typ() string         { s, _ := e["type"].(string); return s }
func (e clientEvent) str(k string) string { s, _ := e[k].(string); return s }

// runInput is a RunAgentInput as HttpAgent sends it: the whole client-side history, the new
// user message last.
func runInput(threadID, runID string, msgs ...any) map[string]any {
	return map[string]any{
		"threadId": threadID, "runId": runID, "protocolVersion": "1.0",
		"state": map[string]any{}, "tools": []any{}, "context": []any{}, "forwardedProps": map[string]any{},
		"messages": msgs,
	}
}

func userMsg(id, text string) map[string]any {
	return map[string]any{"id": id, "role": "user", "content": text}
}

// postAGUI sends body to /agui as the owner of token, with the headers HttpAgent sends.
// twoIntents asks two sub-agents at once.
const twoIntents = "any deals on running shoes? and how many points do I have?"

// harness is the AG-UI handler over a real orchestrator (the demo definitions, the offline
// model) whose sub-agents are fakes: they answer at once, or rewards hangs until its context
// ends while svc.Hang is set.
type harness struct {
	srv *httptest.Server
	svc *surfacetest.Service
}

func newHarness(t testing.TB, edit func(*Config)) *harness {
	t.Helper()
	return newHarnessWithModel(t, offline.New(), edit)
}

func newHarnessWithModel(t testing.TB, model llms.Model, edit func(*Config)) *harness {
	t.Helper()
	svc := surfacetest.New(t, model)
	cfg := Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	handler, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{srv: httptest.NewServer(handler), svc: svc}
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) postAGUI(ctx context.Context, t *testing.T, token string, body any) *http.Response {
	t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.srv.URL+"/agui", strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// runEvents posts a run and reads its whole event stream, checking it as @ag-ui/client's
// verifier does.
func (h *harness) runEvents(t *testing.T, token string, body any) []clientEvent {
	t.Helper()
	resp := h.postAGUI(t.Context(), t, token, body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /agui = %d %s %s, want an event stream", resp.StatusCode, ct, b)
	}
	var events []clientEvent
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Name != "message" || ev.ID != 0 {
			t.Errorf("SSE event name %q id %d: AG-UI events are bare data lines", ev.Name, ev.ID)
		}
		var e clientEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatalf("data %q: %v", ev.Data, err)
		}
		events = append(events, e)
	}
	if err := verifyAGUI(events); err != nil {
		t.Fatalf("event sequence: %v\n%v", err, events)
	}
	return events
}

// verifyAGUI checks the rules @ag-ui/client 1.0 enforces on a run (verifyEvents): RUN_STARTED
// first, a step started once before it finishes, text content inside its message, nothing open
// at RUN_FINISHED, nothing after the end; and the required fields of each event.
func verifyAGUI(events []clientEvent) error {
	steps, texts := map[string]bool{}, map[string]bool{}
	for i, e := range events {
		if i == 0 && e.typ() != eventRunStarted {
			return fmt.Errorf("first event %s, want RUN_STARTED", e.typ())
		}
		if i > 0 && (events[i-1].typ() == eventRunFinished || events[i-1].typ() == eventRunError) {
			return fmt.Errorf("event %d (%s) after the end", i, e.typ())
		}
		need := map[string][]string{
			eventRunStarted: {"threadId", "runId"}, eventRunFinished: {"threadId", "runId"}, eventRunError: {"message"},
			eventStepStarted: {"stepName"}, eventStepFinished: {"stepName"},
			eventTextMessageStart: {"messageId"}, eventTextMessageContent: {"messageId", "delta"}, eventTextMessageEnd: {"messageId"},
			eventActivitySnapshot: {"messageId", "activityType"},
		}[e.typ()]
		if need == nil {
			return fmt.Errorf("event %d has unexpected type %q", i, e.typ())
		}
		for _, k := range need {
			if _, ok := e[k].(string); !ok {
				return fmt.Errorf("event %d (%s) lacks string %s", i, e.typ(), k)
			}
		}
		switch e.typ() {
		case eventStepStarted:
			if steps[e.str("stepName")] {
				return fmt.Errorf("step %s started twice", e.str("stepName"))
			}
			steps[e.str("stepName")] = true
		case eventStepFinished:
			if !steps[e.str("stepName")] {
				return fmt.Errorf("step %s finished but not started", e.str("stepName"))
			}
			delete(steps, e.str("stepName"))
		case eventTextMessageStart:
			if texts[e.str("messageId")] {
				return fmt.Errorf("message %s started twice", e.str("messageId"))
			}
			texts[e.str("messageId")] = true
		case eventTextMessageContent, eventTextMessageEnd:
			if !texts[e.str("messageId")] {
				return fmt.Errorf("%s of message %s outside it", e.typ(), e.str("messageId"))
			}
			if e.typ() == eventTextMessageEnd {
				delete(texts, e.str("messageId"))
			} else if e.str("delta") == "" {
				return fmt.Errorf("empty delta")
			}
		case eventActivitySnapshot:
			if _, ok := e["content"].(map[string]any); !ok {
				return fmt.Errorf("activity without an object content")
			}
		case eventRunFinished:
			if len(steps) > 0 || len(texts) > 0 {
				return fmt.Errorf("RUN_FINISHED with steps %v or messages %v open", steps, texts)
			}
		}
	}
	if n := len(events); n == 0 || (events[n-1].typ() != eventRunFinished && events[n-1].typ() != eventRunError) {
		return fmt.Errorf("the stream does not end with RUN_FINISHED or RUN_ERROR")
	}
	return nil
}

func types(events []clientEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.typ())
	}
	return out
}

func TestAGUIRunStreamsTwoIntents(t *testing.T) {
	h := newHarness(t, nil)
	events := h.runEvents(t, "tok-alice", runInput("thread-1", "run-1", userMsg("u1", twoIntents)))

	start := events[0]
	turnID, _ := start["metadata"].(map[string]any)["turnId"].(string)
	if start.str("threadId") != "thread-1" || start.str("runId") != "run-1" || turnID == "" {
		t.Fatalf("RUN_STARTED = %v, want the input's thread and run and the turn id", start)
	}
	var started, finished []string
	var reply strings.Builder
	var lines []string
	pieces, firstText := 0, -1
	for i, e := range events {
		switch e.typ() {
		case eventStepStarted:
			started = append(started, e.str("stepName"))
		case eventStepFinished:
			finished = append(finished, e.str("stepName"))
			if firstText >= 0 {
				t.Errorf("step %s finished after the reply began", e.str("stepName"))
			}
		case eventTextMessageStart:
			firstText = i
			if e.str("role") != "assistant" || e.str("messageId") != turnID {
				t.Errorf("TEXT_MESSAGE_START = %v, want the assistant's, with the turn id", e)
			}
		case eventTextMessageContent:
			pieces++
			reply.WriteString(e.str("delta"))
		case eventActivitySnapshot:
			if e.str("activityType") != "status" || e["replace"] != true {
				t.Errorf("activity = %v, want a replacing status", e)
			}
			lines = append(lines, e["content"].(map[string]any)["text"].(string))
		}
	}
	slices.Sort(started)
	slices.Sort(finished)
	if diff := cmp.Diff([]string{"rewards", "shop"}, started); diff != "" {
		t.Errorf("steps started (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(started, finished); diff != "" {
		t.Errorf("steps finished (-started +finished):\n%s", diff)
	}
	if len(lines) == 0 {
		t.Error("no status line reached the run as an activity")
	}
	rec, err := h.svc.Service.Turn(t.Context(), "alice", turnID)
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for r, err := range h.svc.Hub.Follow(t.Context(), turnID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Event.(stream.ReplyDelta); ok {
			deltas++
		}
	}
	if pieces != deltas || reply.String() != rec.Reply || rec.EpisodeID != "thread-1" {
		t.Errorf("reply in %d pieces %q, stored %q from %d deltas in episode %s; want the stored reply, a piece per delta, in thread-1",
			pieces, reply.String(), rec.Reply, deltas, rec.EpisodeID)
	}
	end := events[len(events)-1]
	if end.typ() != eventRunFinished || end["outcome"].(map[string]any)["type"] != "success" || end["result"].(map[string]any)["outcome"] != "ok" {
		t.Errorf("last event = %v, want RUN_FINISHED success, outcome ok", end)
	}
	if end.str("threadId") != "thread-1" || end.str("runId") != "run-1" {
		t.Errorf("RUN_FINISHED = %v, want the input's thread and run", end)
	}

	// The same runId is the same turn, streamed again from its start, not a second dispatch.
	again := h.runEvents(t, "tok-alice", runInput("thread-1", "run-1", userMsg("u1", twoIntents)))
	if got := again[0]["metadata"].(map[string]any)["turnId"]; got != turnID || !slices.Equal(types(again), types(events)) {
		t.Errorf("same runId again: turn %v, events %v; want turn %s replayed as %v", got, types(again), turnID, types(events))
	}
	resp := h.postAGUI(t.Context(), t, "tok-alice", runInput("thread-1", "run-1", userMsg("u1", "something else")))
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("same runId, other message = %d, want 409", resp.StatusCode)
	}

	// A second run on the thread continues the episode: the turn loop sees the first exchange.
	h.runEvents(t, "tok-alice", runInput("thread-1", "run-2",
		userMsg("u1", twoIntents), map[string]any{"id": turnID, "role": "assistant", "content": rec.Reply},
		userMsg("u2", "what tier am i in?")))
	ep, err := h.svc.Service.Episode(t.Context(), "alice", "thread-1")
	if err != nil || len(ep.Turns) != 2 || ep.Turns[1].Message != "what tier am i in?" {
		t.Errorf("episode thread-1 = %+v, %v; want the two runs' turns", ep.Turns, err)
	}
	// A threadId is each principal's own: bob's run under alice's threadId is a thread of his,
	// run as under any new id, and alice's is left as it was.
	bobs := h.runEvents(t, "tok-bob", runInput("thread-1", "run-b", userMsg("b1", "how many points do I have?")))
	if end := bobs[len(bobs)-1]; end.typ() != eventRunFinished || end.str("threadId") != "thread-1" {
		t.Errorf("bob's run under alice's threadId ended with %v, want RUN_FINISHED in thread-1", end)
	}
	if ep, err := h.svc.Service.Episode(t.Context(), "bob", "thread-1"); err != nil || len(ep.Turns) != 1 || ep.Turns[0].Message != "how many points do I have?" {
		t.Errorf("bob's thread-1 = %+v, %v; want his one run", ep.Turns, err)
	}
	if ep, err := h.svc.Service.Episode(t.Context(), "alice", "thread-1"); err != nil || len(ep.Turns) != 2 {
		t.Errorf("alice's thread-1 after bob's run = %d turns, %v; want her 2", len(ep.Turns), err)
	}
}

func TestAGUIAbortCancelsTheRun(t *testing.T) {
	h := newHarness(t, nil)
	h.svc.Hang.Store(true) // rewards waits until its run is cancelled
	ctx, abort := context.WithCancel(t.Context())
	defer abort()
	resp := h.postAGUI(ctx, t, "tok-alice", runInput("thread-c", "run-c", userMsg("u1", twoIntents)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /agui = %d", resp.StatusCode)
	}
	var turnID string
	sawRewards := false
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var e clientEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatal(err)
		}
		if e.typ() == eventRunStarted {
			turnID = e["metadata"].(map[string]any)["turnId"].(string)
		}
		if e.typ() == eventStepStarted && e.str("stepName") == "rewards" {
			sawRewards = true
			break // the run is mid-way: rewards is working
		}
	}
	if !sawRewards {
		t.Fatal("the stream ended before the rewards step started")
	}
	if rec, err := h.svc.Service.Turn(t.Context(), "alice", turnID); err != nil || rec.State != orchestrator.TurnRunning {
		t.Fatalf("turn before the abort = %+v, %v; want running (events arrive live)", rec.State, err)
	}
	abort() // what HttpAgent.abortRun does: the request goes away

	// The turn ends as cancelled: follow its log to the end.
	var outcome stream.Outcome
	for r, err := range h.svc.Hub.Follow(t.Context(), turnID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if done, ok := r.Event.(stream.TurnCompleted); ok {
			outcome = done.Outcome
		}
	}
	if outcome != stream.OutcomeCancelled {
		t.Errorf("aborted run's turn ended %q, want cancelled", outcome)
	}
}

// brokenModel is an orchestrator LLM that is down.
type brokenModel struct{}

func (brokenModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errors.New("provider: 503 upstream connect error")
}

func (brokenModel) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("provider: 503 upstream connect error")
}

// A failed turn ends the run with RUN_ERROR in plain words, after the apology the turn wrote.
func TestAGUIFailedRunEndsInRunError(t *testing.T) {
	h := newHarnessWithModel(t, brokenModel{}, nil)
	events := h.runEvents(t, "tok-alice", runInput("thread-f", "run-f", userMsg("u1", twoIntents)))
	end := events[len(events)-1]
	if end.typ() != eventRunError || end.str("code") != "turn_failed" {
		t.Fatalf("last event = %v, want RUN_ERROR turn_failed", end)
	}
	if msg := end.str("message"); msg == "" || strings.Contains(msg, "503") || strings.Contains(msg, "provider") {
		t.Errorf("RUN_ERROR message = %q, want plain words without internals", msg)
	}
	for _, e := range events {
		if strings.Contains(fmt.Sprint(e), "upstream") {
			t.Errorf("event %v leaks the provider error", e)
		}
	}
}

// An AG-UI run is an event stream: the per-principal stream limit applies to it.
func TestAGUIStreamLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Streams = httpkit.NewStreamCounter(httpkit.StreamLimits{PerPrincipal: 1}, nil) })
	h.svc.Hang.Store(true) // the first run stays open
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := h.postAGUI(ctx, t, "tok-alice", runInput("t-l1", "r-l1", userMsg("u", twoIntents)))
	for ev, err := range stream.ReadEvents(first.Body) { // the stream is open once it has begun
		if err != nil || strings.Contains(string(ev.Data), eventRunStarted) {
			break
		}
	}
	second := h.postAGUI(t.Context(), t, "tok-alice", runInput("t-l2", "r-l2", userMsg("u", "how many points do I have?")))
	var body httpkit.ErrorResponse
	_ = json.NewDecoder(second.Body).Decode(&body)
	if second.StatusCode != http.StatusTooManyRequests || body.Error.Code != "rate_limited" || second.Header.Get("Retry-After") == "" {
		t.Errorf("second run while one is open = %d %+v (Retry-After %q), want 429 rate_limited", second.StatusCode, body.Error, second.Header.Get("Retry-After"))
	}
	if ep, err := h.svc.Service.Episode(t.Context(), "alice", "t-l2"); err == nil {
		t.Errorf("the refused run started a turn: %+v", ep.Turns)
	}
	// Another user has streams of their own.
	if other := h.postAGUI(ctx, t, "tok-bob", runInput("t-l3", "r-l3", userMsg("u", "any deals on tvs?"))); other.StatusCode != http.StatusOK {
		t.Errorf("bob's run = %d, want 200", other.StatusCode)
	}
}

func TestAGUIBadRequests(t *testing.T) {
	h := newHarness(t, nil)
	ok := runInput("t", "r", userMsg("u", "hi"))
	with := func(k string, v any) map[string]any {
		m := runInput("t", "r", userMsg("u", "hi"))
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name   string
		token  string
		body   any
		status int
		code   string
	}{
		{"no token", "", ok, http.StatusUnauthorized, "unauthenticated"},
		{"bad token", "nope", ok, http.StatusUnauthorized, "invalid_token"},
		{"not json", "tok-alice", `{"threadId":`, http.StatusBadRequest, "invalid_body"},
		{"empty body", "tok-alice", ``, http.StatusBadRequest, "invalid_body"},
		{"two objects", "tok-alice", `{} {}`, http.StatusBadRequest, "invalid_body"},
		{"no threadId", "tok-alice", with("threadId", ""), http.StatusBadRequest, "invalid_body"},
		{"no runId", "tok-alice", with("runId", nil), http.StatusBadRequest, "invalid_body"},
		{"threadId a number", "tok-alice", with("threadId", 7), http.StatusBadRequest, "invalid_body"},
		{"no messages", "tok-alice", with("messages", []any{}), http.StatusBadRequest, "invalid_message"},
		{"last is the assistant's", "tok-alice", with("messages", []any{userMsg("u", "hi"), map[string]any{"id": "a", "role": "assistant", "content": "hello"}}), http.StatusBadRequest, "invalid_message"},
		{"blank", "tok-alice", with("messages", []any{userMsg("u", "  ")}), http.StatusBadRequest, "invalid_message"},
		{"content an object", "tok-alice", with("messages", []any{map[string]any{"id": "u", "role": "user", "content": map[string]any{}}}), http.StatusBadRequest, "invalid_message"},
		{"image part", "tok-alice", with("messages", []any{map[string]any{"id": "u", "role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is this?"},
			map[string]any{"type": "image", "source": map[string]any{"type": "url", "value": "https://x/y.png"}}}}}), http.StatusUnsupportedMediaType, "unsupported_content"},
		{"too long", "tok-alice", with("messages", []any{userMsg("u", strings.Repeat("a", 4001))}), http.StatusBadRequest, "invalid_message"},
		{"too large", "tok-alice", with("messages", []any{userMsg("u", strings.Repeat("a", 1100<<10))}), http.StatusRequestEntityTooLarge, "too_large"},
		{"locale a number", "tok-alice", with("forwardedProps", map[string]any{"locale": 5}), http.StatusBadRequest, "invalid_body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.postAGUI(t.Context(), t, tc.token, tc.body)
			var got httpkit.ErrorResponse
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatalf("status %d, body is not a JSON error: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tc.status || got.Error.Code != tc.code || got.Error.Message == "" {
				t.Errorf("POST /agui = %d %+v, want %d %s", resp.StatusCode, got.Error, tc.status, tc.code)
			}
		})
	}
	// A long thread's history, sent with every run, is not too large: only its last message counts.
	var long []any
	for i := range 100 {
		long = append(long, userMsg(fmt.Sprint("u", i), strings.Repeat("history ", 250)),
			map[string]any{"id": fmt.Sprint("a", i), "role": "assistant", "content": strings.Repeat("reply ", 300)})
	}
	long = append(long, userMsg("u-last", "how many points do I have?"))
	if events := h.runEvents(t, "tok-alice", runInput("t-long", "r-long", long...)); events[len(events)-1].typ() != eventRunFinished {
		t.Errorf("a run with a 380 KB history = %v, want it to finish", types(events))
	}
	// Text parts are read like a string; unknown fields (an open protocol) are ignored.
	body := runInput("t-parts", "r-parts", map[string]any{"id": "u", "role": "user", "content": []any{
		map[string]any{"type": "text", "text": "how many points"}, map[string]any{"type": "text", "text": "do I have?"}}})
	body["resume"] = []any{}
	body["somethingNew"] = true
	events := h.runEvents(t, "tok-alice", body)
	if ep, err := h.svc.Service.Episode(t.Context(), "alice", "t-parts"); err != nil || ep.Turns[0].Message != "how many points\ndo I have?" {
		t.Errorf("episode = %+v, %v; want the parts joined", ep, err)
	}
	if events[len(events)-1].typ() != eventRunFinished {
		t.Errorf("events = %v, want a finished run", types(events))
	}
}

func TestTranslator(t *testing.T) {
	step := func(typ, name string) any { return stepEvent{Type: typ, StepName: name} }
	text := func(d string) any {
		return textContentEvent{Type: eventTextMessageContent, MessageID: "turn", Delta: d}
	}
	startText := textStartEvent{Type: eventTextMessageStart, MessageID: "turn", Role: "assistant"}
	endText := textEndEvent{Type: eventTextMessageEnd, MessageID: "turn"}
	status := func(line string, sources ...statusSource) any {
		if sources == nil {
			sources = []statusSource{}
		}
		return activityEvent{Type: eventActivitySnapshot, MessageID: "turn:status", ActivityType: "status", Replace: true,
			Content: statusLine{Text: line, Sources: sources}}
	}
	finished := func(kind, outcome string) any {
		return runFinishedEvent{Type: eventRunFinished, ThreadID: "th", RunID: "run", Outcome: runOutcome{Type: kind},
			Result: map[string]any{"outcome": outcome, "turnId": "turn"}}
	}
	shop := stream.Source{AgentID: "shop", Event: "searching_offers"}
	rewards := stream.Source{AgentID: "rewards", Event: "looking_up_points_balance"}
	for _, tc := range []struct {
		name    string
		events  []stream.Event
		invoked []string
		want    []any
	}{
		{
			name: "steps from status lines, closed when the reply begins",
			events: []stream.Event{stream.TurnStarted{}, stream.Status{Text: "Searching offers…", Sources: []stream.Source{shop}},
				stream.Status{Text: "Merged", Sources: []stream.Source{shop, rewards}},
				stream.ReplyDelta{Text: "Hel"}, stream.ReplyDelta{Text: "lo"}, stream.ReplyCompleted{Text: "Hello"},
				stream.TurnCompleted{Outcome: stream.OutcomeOK}},
			invoked: []string{"shop", "rewards"},
			want: []any{step(eventStepStarted, "shop"), status("Searching offers…", statusSource{"shop", "searching_offers"}),
				step(eventStepStarted, "rewards"), status("Merged", statusSource{"shop", "searching_offers"}, statusSource{"rewards", "looking_up_points_balance"}),
				step(eventStepFinished, "shop"), step(eventStepFinished, "rewards"), startText, text("Hel"), text("lo"),
				endText, finished("success", "ok")},
		},
		{
			name:    "a silent sub-agent is a step from the routing record",
			events:  []stream.Event{stream.ReplyCompleted{Text: "All at once"}, stream.TurnCompleted{Outcome: stream.OutcomeDegraded}},
			invoked: []string{"support"},
			want: []any{startText, text("All at once"), endText, step(eventStepStarted, "support"), step(eventStepFinished, "support"),
				finished("success", "degraded")},
		},
		{
			name:   "the rest of a reply the deltas did not carry",
			events: []stream.Event{stream.ReplyDelta{Text: "Half"}, stream.ReplyCompleted{Text: "Half and half"}, stream.TurnCompleted{Outcome: stream.OutcomeOK}},
			want:   []any{startText, text("Half"), text(" and half"), endText, finished("success", "ok")},
		},
		{
			name:    "cancelled while a sub-agent works",
			events:  []stream.Event{stream.Status{Text: "Looking…", Sources: []stream.Source{rewards}}, stream.TurnCompleted{Outcome: stream.OutcomeCancelled}},
			invoked: []string{"rewards"},
			want: []any{step(eventStepStarted, "rewards"), status("Looking…", statusSource{"rewards", "looking_up_points_balance"}),
				step(eventStepFinished, "rewards"), finished("cancelled", "cancelled")},
		},
		{
			name:   "failed with a notice",
			events: []stream.Event{stream.Error{Message: "Shop is slow today.", IsFinal: false}, stream.Error{Message: "That took too long.", IsFinal: true}, stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
			want:   []any{status("Shop is slow today."), runErrorEvent{Type: eventRunError, Message: "That took too long.", Code: "turn_failed"}},
		},
		{
			name:   "failed silently",
			events: []stream.Event{stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
			want:   []any{runErrorEvent{Type: eventRunError, Message: msgFailed, Code: "turn_failed"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranslator("th", "run", "turn")
			var got []any
			for i, ev := range tc.events {
				if done, ok := ev.(stream.TurnCompleted); ok {
					got = append(got, tr.finish(done.Outcome, tc.invoked)...)
					continue
				}
				got = append(got, tr.translate(stream.Record{ID: uint64(i + 1), Event: ev})...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("translate (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzDecodeRunInput(f *testing.F) {
	for _, s := range []string{
		`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`,
		`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"a"},{"type":"image"}]}],"forwardedProps":{"locale":"fr"}}`,
		`{"threadId":"t","runId":"r","messages":[{"role":"assistant"}]}`, `[]`, `{"messages":null}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		run, bad := decodeRunInput(strings.NewReader(string(body)))
		if bad != nil {
			if bad.Message == "" || bad.Code == "" || bad.Status < 400 {
				t.Fatalf("decodeRunInput error = %+v", bad)
			}
			return
		}
		if run.threadID == "" || run.runID == "" || strings.TrimSpace(run.message) == "" || len([]rune(run.message)) > orchestrator.MaxMessageRunes {
			t.Fatalf("decodeRunInput(%q) = %+v without an error", body, run)
		}
	})
}
