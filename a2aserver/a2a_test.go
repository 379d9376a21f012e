package a2aserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// harness is the A2A handler over a real orchestrator (the demo definitions, the offline
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
	cfg := Config{
		Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob, Logger: slog.New(slog.DiscardHandler),
		Orchestrator: svc.Definition, SubAgents: svc.Orchestrator.SubAgents(), Version: "1.2.3",
	}
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

// post sends a raw JSON-RPC body to /a2a as the owner of token.
func (h *harness) post(t *testing.T, token, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.srv.URL+"/a2a", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
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

// testResponse is a JSON-RPC response as a client decodes it.
type testResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// rpc calls method with params and decodes the unary response.
func (h *harness) rpc(t *testing.T, token, method string, params any) testResponse {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "req-1", "method": method, "params": params})
	resp := h.post(t, token, string(body))
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /a2a %s = %d %s", method, resp.StatusCode, b)
	}
	var r testResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode %s response: %v", method, err)
	}
	return r
}

func (h *harness) task(t *testing.T, token, method string, params any) taskObject {
	t.Helper()
	r := h.rpc(t, token, method, params)
	if r.Error != nil {
		t.Fatalf("%s error = %+v", method, r.Error)
	}
	var task taskObject
	if err := json.Unmarshal(r.Result, &task); err != nil {
		t.Fatalf("%s result is not a task: %v: %s", method, err, r.Result)
	}
	return task
}

func sendParamsOf(messageID, text string, extra map[string]any) map[string]any {
	msg := map[string]any{"kind": "message", "messageId": messageID, "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}
	for k, v := range extra {
		msg[k] = v
	}
	return map[string]any{"message": msg}
}

const twoIntents = "any deals on running shoes? and how many points do I have?"

func replyText(task taskObject) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestAgentCard(t *testing.T) {
	for _, tc := range []struct {
		name      string
		publicURL string
		header    map[string]string
		wantURL   func(srv string) string
	}{
		{"from the request", "", nil, func(srv string) string { return srv + "/a2a" }},
		{"behind a TLS proxy", "", map[string]string{"X-Forwarded-Proto": "https"},
			func(srv string) string { return strings.Replace(srv, "http://", "https://", 1) + "/a2a" }},
		{"configured", "https://agents.example.com/sb/", nil, func(string) string { return "https://agents.example.com/sb/a2a" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *Config) { c.PublicURL = tc.publicURL })
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/.well-known/agent-card.json", nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := h.srv.Client().Do(req) // no token: the card is public
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET card = %d", resp.StatusCode)
			}
			var card agentCard
			if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
				t.Fatal(err)
			}
			wantURL := tc.wantURL(h.srv.URL)
			if card.URL != wantURL || len(card.AdditionalInterfaces) != 1 || card.AdditionalInterfaces[0].URL != wantURL {
				t.Errorf("card url = %q %+v, want %q", card.URL, card.AdditionalInterfaces, wantURL)
			}
			var skills []string
			for _, s := range card.Skills {
				skills = append(skills, s.ID)
				if s.Description == "" || s.Name == "" || len(s.Examples) == 0 || len(s.Tags) == 0 {
					t.Errorf("skill %s lacks a name, description, tags or examples: %+v", s.ID, s)
				}
			}
			if diff := cmp.Diff([]string{"shop", "rewards", "support", "travel"}, skills); diff != "" {
				t.Errorf("skills (-want +got):\n%s", diff)
			}
			card.URL, card.AdditionalInterfaces, card.Skills = "", nil, nil
			want := agentCard{
				ProtocolVersion: "0.3.0", Name: "Concierge", Version: "1.2.3", PreferredTransport: "JSONRPC",
				Description:  card.Description,
				Capabilities: agentCapabilities{Streaming: true},
				SecuritySchemes: map[string]securityScheme{"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
					Description: "A JWT whose subject is the user the agent acts for, or a service it trusts to act for the user named in metadata.principal."}},
				Security:          []map[string][]string{{"bearer": {}}},
				DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
			}
			if diff := cmp.Diff(want, card); diff != "" {
				t.Errorf("card (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(card.Description, "Personal concierge") {
				t.Errorf("description = %q, want the orchestrator definition's", card.Description)
			}
		})
	}
}

func TestNewNeedsAnOrchestrator(t *testing.T) {
	svc := surfacetest.New(t, offline.New())
	_, err := New(Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob})
	if err == nil {
		t.Error("New(no orchestrator) = nil error, want one: the card would describe nothing")
	}
}

func TestA2AErrors(t *testing.T) {
	h := newHarness(t, nil)
	send := func(params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"message/send","params":` + params + `}`
	}
	msg := func(fields string) string {
		return send(`{"message":{"kind":"message","messageId":"m-err","role":"user",` + fields + `}}`)
	}
	for _, tc := range []struct {
		name, token, body string
		code              int
		id                string
	}{
		{"malformed json", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":`, codeParse, "null"},
		{"empty body", "tok-alice", ``, codeParse, "null"},
		{"batch", "tok-alice", `[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]`, codeInvalidRequest, "null"},
		{"not an object", "tok-alice", `"hello"`, codeInvalidRequest, "null"},
		{"no id", "tok-alice", `{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"x"}}`, codeInvalidRequest, "null"},
		{"object id", "tok-alice", `{"jsonrpc":"2.0","id":{},"method":"tasks/get"}`, codeInvalidRequest, "null"},
		{"wrong version", "tok-alice", `{"jsonrpc":"1.0","id":"a","method":"tasks/get"}`, codeInvalidRequest, `"a"`},
		{"no method", "tok-alice", `{"jsonrpc":"2.0","id":"a"}`, codeInvalidRequest, `"a"`},
		{"unknown method", "tok-alice", `{"jsonrpc":"2.0","id":"a","method":"tasks/list"}`, codeMethodNotFound, `"a"`},
		{"positional params", "tok-alice", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":["x"]}`, codeInvalidParams, "3"},
		{"no params", "tok-alice", `{"jsonrpc":"2.0","id":3,"method":"message/send"}`, codeInvalidParams, "3"},
		{"no message", "tok-alice", send(`{}`), codeInvalidParams, "7"},
		{"wrong type", "tok-alice", send(`{"message":{"messageId":5}}`), codeInvalidParams, "7"},
		{"no messageId", "tok-alice", send(`{"message":{"role":"user","parts":[{"kind":"text","text":"hi"}]}}`), codeInvalidParams, "7"},
		{"agent role", "tok-alice", msg(`"role":"agent","parts":[{"kind":"text","text":"hi"}]`), codeInvalidParams, "7"},
		{"blank text", "tok-alice", msg(`"parts":[{"kind":"text","text":"  "}]`), codeInvalidParams, "7"},
		{"file part", "tok-alice", msg(`"parts":[{"kind":"file","file":{"uri":"https://x/y.png"}}]`), codeContentType, "7"},
		{"image output only", "tok-alice", send(`{"configuration":{"acceptedOutputModes":["image/png"]},"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}`), codeContentType, "7"},
		{"no role", "tok-alice", send(`{"message":{"messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`), codeInvalidParams, "7"},
		{"negative historyLength on send", "tok-alice", send(`{"configuration":{"historyLength":-1},"message":{"messageId":"m-h","role":"user","parts":[{"kind":"text","text":"hi"}]}}`), codeInvalidParams, "7"},
		{"negative historyLength on get", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"turn_x","historyLength":-3}}`, codeInvalidParams, "1"},
		{"fractional historyLength", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"turn_x","historyLength":1.5}}`, codeInvalidParams, "1"},
		{"someone else's principal", "tok-alice", send(`{"metadata":{"principal":"bob"},"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"how many points do I have?"}]}}`), codeInvalidParams, "7"},
		{"someone else's principal in the message", "tok-alice", msg(`"metadata":{"principal":"bob"},"parts":[{"kind":"text","text":"hi"}]`), codeInvalidParams, "7"},
		{"unknown follow-up task", "tok-alice", msg(`"taskId":"turn_nope","parts":[{"kind":"text","text":"and now?"}]`), codeTaskNotFound, "7"},
		{"get without id", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, codeInvalidParams, "1"},
		{"get unknown task", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"turn_nope"}}`, codeTaskNotFound, "1"},
		{"cancel unknown task", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"turn_nope"}}`, codeTaskNotFound, "1"},
		{"too large", "tok-alice", msg(`"parts":[{"kind":"text","text":"` + strings.Repeat("a", 70<<10) + `"}]`), codeInvalidRequest, "null"},
		{"too long", "tok-alice", msg(`"parts":[{"kind":"text","text":"` + strings.Repeat("a", 4001) + `"}]`), codeInvalidParams, "7"},
		{"push notifications", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{}}`, codePushNotSupported, "1"},
		{"extended card", "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`, codeNoExtendedCard, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.post(t, tc.token, tc.body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200 with a JSON-RPC error", resp.StatusCode)
			}
			var r testResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id || r.JSONRPC != "2.0" || len(r.Result) != 0 {
				t.Fatalf("response = %+v %s, want error %d with id %s", r.Error, r.ID, tc.code, tc.id)
			}
			// The message is the specification's text for the code; the detail is in data.
			specText := map[int]string{
				codeParse: "Invalid JSON payload", codeInvalidRequest: "Request payload validation error",
				codeMethodNotFound: "Method not found", codeInvalidParams: "Invalid parameters",
				codeTaskNotFound: "Task not found", codePushNotSupported: "Push Notification is not supported",
				codeContentType: "Incompatible content types", codeNoExtendedCard: "Authenticated Extended Card is not configured",
			}[tc.code]
			if r.Error.Message != specText {
				t.Errorf("error message = %q, want the specification's %q", r.Error.Message, specText)
			}
			if r.Error.Data == nil || r.Error.Data.Detail == "" || strings.Contains(r.Error.Data.Detail, "orchestrator:") || strings.Contains(r.Error.Data.Detail, "json:") {
				t.Errorf("error data = %+v: want the detail in plain words, nothing internal", r.Error.Data)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		if got := h.post(t, "", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`).StatusCode; got != http.StatusUnauthorized {
			t.Errorf("POST /a2a without a token = %d, want 401", got)
		}
	})
}

func TestA2ASendRoundTrip(t *testing.T) {
	h := newHarness(t, nil)
	task := h.task(t, "tok-alice", "message/send", sendParamsOf("m-1", twoIntents, nil))
	if task.Kind != "task" || task.Status.State != stateCompleted || task.ContextID == "" || task.Status.Timestamp == nil {
		t.Fatalf("task = %+v, want a completed task in a context", task)
	}
	reply := strings.ToLower(replyText(task))
	if !strings.Contains(reply, "points") || !strings.Contains(reply, "offer") {
		t.Errorf("reply = %q, want it to mention offers and points", reply)
	}
	if task.Metadata["outcome"] != "ok" {
		t.Errorf("metadata = %v, want outcome ok", task.Metadata)
	}

	// tasks/get returns the stored task as message/send did.
	if diff := cmp.Diff(task, h.task(t, "tok-alice", "tasks/get", map[string]string{"id": task.ID})); diff != "" {
		t.Errorf("tasks/get (-send +get):\n%s", diff)
	}
	// The history is the task's messages, the user's first; historyLength keeps the newest.
	type turnText struct{ ID, Role, Text string }
	history := func(tk taskObject) []turnText {
		var out []turnText
		for _, m := range tk.History {
			if m.Kind != "message" || m.TaskID != tk.ID || m.ContextID != tk.ContextID || len(m.Parts) != 1 {
				t.Errorf("history message %+v: want one text part in the task's context", m)
			}
			out = append(out, turnText{m.MessageID, m.Role, m.Parts[0].Text})
		}
		return out
	}
	user := turnText{"m-1", "user", twoIntents}
	agent := turnText{task.ID + "-reply", "agent", replyText(task)}
	for _, tc := range []struct {
		name   string
		length any
		want   []turnText
	}{
		{"all by default", nil, []turnText{user, agent}},
		{"more than there are", 10, []turnText{user, agent}},
		{"the newest", 1, []turnText{agent}},
		{"none", 0, nil},
	} {
		params := map[string]any{"id": task.ID}
		if tc.length != nil {
			params["historyLength"] = tc.length
		}
		if diff := cmp.Diff(tc.want, history(h.task(t, "tok-alice", "tasks/get", params))); diff != "" {
			t.Errorf("%s: tasks/get history (-want +got):\n%s", tc.name, diff)
		}
	}
	sendNoHistory := sendParamsOf("m-1", twoIntents, nil)
	sendNoHistory["configuration"] = map[string]any{"historyLength": 0}
	if got := h.task(t, "tok-alice", "message/send", sendNoHistory); len(got.History) != 0 || got.ID != task.ID {
		t.Errorf("message/send with historyLength 0 = %+v, want the task without history", got)
	}
	// The messageId is the idempotency key: the same message is the same task.
	if again := h.task(t, "tok-alice", "message/send", sendParamsOf("m-1", twoIntents, nil)); again.ID != task.ID {
		t.Errorf("resent message started task %s, want %s", again.ID, task.ID)
	}
	if r := h.rpc(t, "tok-alice", "message/send", sendParamsOf("m-1", "something else", nil)); r.Error == nil || r.Error.Code != codeInvalidParams {
		t.Errorf("reused messageId with other text = %+v, want invalid params", r.Error)
	}
	// contextId continues the episode; a follow-up by taskId too.
	h.task(t, "tok-alice", "message/send", sendParamsOf("m-2", "what tier am i in?", map[string]any{"contextId": task.ContextID}))
	h.task(t, "tok-alice", "message/send", sendParamsOf("m-3", "what can i redeem?", map[string]any{"taskId": task.ID}))
	ep, err := h.svc.Service.Episode(t.Context(), "alice", task.ContextID)
	if err != nil || len(ep.Turns) != 3 {
		t.Errorf("episode %s = %d turns, %v; want 3", task.ContextID, len(ep.Turns), err)
	}
	// Another principal sees nothing.
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		if r := h.rpc(t, "tok-bob", method, map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != codeTaskNotFound {
			t.Errorf("%s of alice's task as bob = %+v, want %d", method, r.Error, codeTaskNotFound)
		}
	}
	// A contextId is each principal's own: bob's message under alice's contextId starts a
	// conversation of his, answered as under any new id, and alice's is left as it was.
	if bobs := h.task(t, "tok-bob", "message/send", sendParamsOf("m-b", "hi", map[string]any{"contextId": task.ContextID})); bobs.ContextID != task.ContextID {
		t.Errorf("bob's task under alice's contextId is in context %q, want %q", bobs.ContextID, task.ContextID)
	}
	if ep, err := h.svc.Service.Episode(t.Context(), "bob", task.ContextID); err != nil || len(ep.Turns) != 1 || ep.Turns[0].Message != "hi" {
		t.Errorf("bob's episode %s = %+v, %v; want his one turn", task.ContextID, ep.Turns, err)
	}
	if ep, err := h.svc.Service.Episode(t.Context(), "alice", task.ContextID); err != nil || len(ep.Turns) != 3 {
		t.Errorf("alice's episode %s after bob's message = %d turns, %v; want her 3", task.ContextID, len(ep.Turns), err)
	}
	// A finished task cannot be canceled.
	if r := h.rpc(t, "tok-alice", "tasks/cancel", map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != codeTaskNotCancelable {
		t.Errorf("tasks/cancel of a finished task = %+v, want %d", r.Error, codeTaskNotCancelable)
	}
}

func TestA2ACancelRunningTask(t *testing.T) {
	h := newHarness(t, nil)
	h.svc.Hang.Store(true)
	params := sendParamsOf("m-hang", twoIntents, nil)
	params["configuration"] = map[string]any{"blocking": false}
	task := h.task(t, "tok-alice", "message/send", params)
	if task.Status.State != stateWorking {
		t.Fatalf("non-blocking send = %s, want working", task.Status.State)
	}
	if got := h.task(t, "tok-alice", "tasks/get", map[string]string{"id": task.ID}); got.Status.State != stateWorking {
		t.Errorf("tasks/get while hanging = %s, want working", got.Status.State)
	}
	canceled := h.task(t, "tok-alice", "tasks/cancel", map[string]string{"id": task.ID})
	if canceled.Status.State != stateCanceled || canceled.Status.Message == nil || canceled.Metadata["outcome"] != "cancelled" {
		t.Errorf("tasks/cancel = %+v, want canceled with a message", canceled.Status)
	}
	if got := h.task(t, "tok-alice", "tasks/get", map[string]string{"id": task.ID}); got.Status.State != stateCanceled {
		t.Errorf("tasks/get after cancel = %s, want canceled", got.Status.State)
	}
	if r := h.rpc(t, "tok-alice", "tasks/cancel", map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != codeTaskNotCancelable {
		t.Errorf("second tasks/cancel = %+v, want %d", r.Error, codeTaskNotCancelable)
	}
	// Resubscribing never shows the canceled task working again.
	replay, rerr := h.streamEvents(t, "tok-alice", "tasks/resubscribe", map[string]string{"id": task.ID})
	var states []string
	for _, ev := range replay {
		states = append(states, ev["status"].(map[string]any)["state"].(string))
	}
	if rerr != nil || !slices.Equal(states, []string{stateCanceled, stateCanceled}) || replay[1]["final"] != true {
		t.Errorf("resubscribe to the canceled task: states %v (%+v), want canceled, then the final canceled status", states, rerr)
	}
}

// streamEvents posts a streaming request and returns every result, decoded by kind.
func (h *harness) streamEvents(t *testing.T, token, method string, params any) ([]map[string]any, *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s-1", "method": method, "params": params})
	resp := h.post(t, token, string(body))
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("%s = %d %s, want an event stream", method, resp.StatusCode, ct)
	}
	var out []map[string]any
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			ID     string         `json:"id"`
			Result map[string]any `json:"result"`
			Error  *rpcError      `json:"error"`
		}
		if err := json.Unmarshal(ev.Data, &r); err != nil {
			t.Fatalf("event data %q: %v", ev.Data, err)
		}
		if r.ID != "s-1" {
			t.Errorf("event id = %q, want the request's", r.ID)
		}
		if r.Error != nil {
			return out, r.Error
		}
		out = append(out, r.Result)
	}
	return out, nil
}

func TestA2AStream(t *testing.T) {
	h := newHarness(t, nil)
	events, rerr := h.streamEvents(t, "tok-alice", "message/stream", sendParamsOf("m-s", twoIntents, nil))
	if rerr != nil {
		t.Fatalf("stream error = %+v", rerr)
	}
	if len(events) < 4 || events[0]["kind"] != "task" {
		t.Fatalf("events = %v, want the task first", events)
	}
	taskID := events[0]["id"].(string)
	var kinds, lines []string
	var reply strings.Builder
	finals := 0
	for i, ev := range events[1:] {
		kind := ev["kind"].(string)
		if ev["taskId"] != taskID || ev["contextId"] != events[0]["contextId"] {
			t.Errorf("event %d names task %v in %v, want %s", i, ev["taskId"], ev["contextId"], taskID)
		}
		if len(kinds) == 0 || kinds[len(kinds)-1] != kind {
			kinds = append(kinds, kind)
		}
		switch kind {
		case "status-update":
			if ev["final"] == true {
				finals++
			}
			if m, ok := ev["status"].(map[string]any)["message"].(map[string]any); ok {
				lines = append(lines, m["parts"].([]any)[0].(map[string]any)["text"].(string))
			}
		case "artifact-update":
			first := reply.Len() == 0
			if app, _ := ev["append"].(bool); app == first {
				t.Errorf("chunk %d: append = %v, want %v", i, app, !first)
			}
			nextIsChunk := i+2 < len(events) && events[i+2]["kind"] == "artifact-update"
			if last, _ := ev["lastChunk"].(bool); last == nextIsChunk {
				t.Errorf("chunk %d: lastChunk = %v, want it on the last chunk only", i, last)
			}
			reply.WriteString(ev["artifact"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string))
		}
	}
	// Status lines while the sub-agents work, then the reply, then the end.
	if diff := cmp.Diff([]string{"status-update", "artifact-update", "status-update"}, kinds); diff != "" {
		t.Errorf("event kinds in order (-want +got):\n%s", diff)
	}
	last := events[len(events)-1]
	if last["final"] != true || last["status"].(map[string]any)["state"] != stateCompleted || finals != 1 {
		t.Errorf("last event = %v (%d finals), want one final completed status", last, finals)
	}
	if len(lines) == 0 {
		t.Error("no status line reached the stream")
	}
	stored := h.task(t, "tok-alice", "tasks/get", map[string]string{"id": taskID})
	if reply.String() != replyText(stored) || reply.Len() == 0 {
		t.Errorf("streamed reply %q, stored reply %q: want the same", reply.String(), replyText(stored))
	}

	// tasks/resubscribe to the finished task: its final snapshot, then its terminal status only.
	replay, rerr := h.streamEvents(t, "tok-alice", "tasks/resubscribe", map[string]string{"id": taskID})
	if rerr != nil || len(replay) != 2 {
		t.Fatalf("resubscribe = %v, %+v; want the task and its final status", replay, rerr)
	}
	snap, final := replay[0], replay[1]
	if snap["kind"] != "task" || snap["status"].(map[string]any)["state"] != stateCompleted || len(snap["history"].([]any)) != 2 {
		t.Errorf("resubscribe snapshot = %v, want the completed task with its history", snap)
	}
	if final["kind"] != "status-update" || final["final"] != true || final["taskId"] != taskID || final["status"].(map[string]any)["state"] != stateCompleted {
		t.Errorf("resubscribe second event = %v, want the final completed status", final)
	}
	// Errors in a stream come as a JSON-RPC error event, which streaming clients read.
	if _, rerr := h.streamEvents(t, "tok-bob", "tasks/resubscribe", map[string]string{"id": taskID}); rerr == nil || rerr.Code != codeTaskNotFound {
		t.Errorf("bob resubscribing = %+v, want %d", rerr, codeTaskNotFound)
	}
	if _, rerr := h.streamEvents(t, "tok-alice", "message/stream", map[string]any{}); rerr == nil || rerr.Code != codeInvalidParams {
		t.Errorf("stream without a message = %+v, want %d", rerr, codeInvalidParams)
	}
}

func TestTaskTranslator(t *testing.T) {
	chunk := func(text string, app, last bool) artifactUpdate {
		return artifactUpdate{TaskID: "t", ContextID: "c", Kind: "artifact-update", Append: app, LastChunk: last,
			Artifact: artifact{ArtifactID: "reply", Name: "reply", Parts: []part{{Kind: "text", Text: text}}}}
	}
	status := func(state, text string, final bool) statusUpdate {
		u := statusUpdate{TaskID: "t", ContextID: "c", Kind: "status-update", Final: final, Status: taskStatus{State: state}}
		if text != "" {
			u.Status.Message = &message{Kind: "message", Role: "agent", Parts: []part{{Kind: "text", Text: text}}, TaskID: "t", ContextID: "c"}
		}
		return u
	}
	for _, tc := range []struct {
		name   string
		events []stream.Event
		want   []any
	}{
		{
			name: "deltas add up to the reply",
			events: []stream.Event{stream.TurnStarted{}, stream.Status{Text: "Looking…"}, stream.ReplyDelta{Text: "Hel"}, stream.ReplyDelta{Text: "lo"},
				stream.ReplyCompleted{Text: "Hello"}, stream.TurnCompleted{Outcome: stream.OutcomeOK}},
			want: []any{status(stateWorking, "", false), status(stateWorking, "Looking…", false), chunk("Hel", false, false),
				chunk("lo", true, true), status(stateCompleted, "", true)},
		},
		{
			name: "scrubbed reply replaces the chunks",
			events: []stream.Event{stream.ReplyDelta{Text: "secret "}, stream.ReplyDelta{Text: "x"},
				stream.ReplyCompleted{Text: "clean"}, stream.TurnCompleted{Outcome: stream.OutcomeDegraded}},
			want: []any{chunk("secret ", false, false), chunk("clean", false, true), status(stateCompleted, "", true)},
		},
		{
			name:   "reply without deltas",
			events: []stream.Event{stream.ReplyCompleted{Text: "All at once"}, stream.TurnCompleted{Outcome: stream.OutcomeOK}},
			want:   []any{chunk("All at once", false, true), status(stateCompleted, "", true)},
		},
		{
			name:   "cancelled mid-reply",
			events: []stream.Event{stream.ReplyDelta{Text: "Half"}, stream.TurnCompleted{Outcome: stream.OutcomeCancelled}},
			want:   []any{chunk("Half", false, true), status(stateCanceled, msgCanceled, true)},
		},
		{
			name:   "failed with a notice",
			events: []stream.Event{stream.Error{Message: "That took too long.", IsFinal: true}, stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
			want:   []any{status(stateWorking, "That took too long.", false), status(stateFailed, "That took too long.", true)},
		},
		{
			name:   "failed silently",
			events: []stream.Event{stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
			want:   []any{status(stateFailed, msgFailed, true)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &taskTranslator{taskID: "t", contextID: "c"}
			var got []any
			for i, ev := range tc.events {
				got = append(got, tr.translate(stream.Record{ID: uint64(i + 1), Event: ev})...)
			}
			noIDs := cmp.Transformer("noMessageID", func(m message) message { m.MessageID = ""; return m })
			if diff := cmp.Diff(tc.want, got, noIDs); diff != "" {
				t.Errorf("translate (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzDecodeRPC(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{}}}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"tasks/get","params":null}`,
		`[{"jsonrpc":"2.0"}]`, `{"id":null}`, ``, `{"jsonrpc":"2.0","id":-1,"method":"x","params":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, rerr := decodeRPC(body)
		if req.ID != nil && !validID(req.ID) {
			t.Fatalf("decodeRPC kept an invalid id %q", req.ID)
		}
		if rerr != nil {
			if rerr.Message == "" || !slices.Contains([]int{codeParse, codeInvalidRequest, codeInvalidParams}, rerr.Code) {
				t.Fatalf("decodeRPC error = %+v", rerr)
			}
			return
		}
		if req.Method == "" || req.ID == nil || (req.Params != nil && req.Params[0] != '{') {
			t.Fatalf("decodeRPC(%q) = %+v without an error", body, req)
		}
		// The response to whatever was accepted must encode.
		if _, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: req.ID}); err != nil {
			t.Fatalf("response with id %q does not encode: %v", req.ID, err)
		}
	})
}

// A trusted service (another switchboard whose sub-agent this one is) acts for the user its
// metadata names; nobody else may name another user.
func TestA2ADelegation(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Auth = surfacetest.Tokens{"tok-alice": "alice", "tok-bob": "bob", "tok-svc": "svc-hub"}
		c.TrustedServices = []principal.Principal{"svc-hub"}
	})
	forAlice := map[string]any{"principal": "alice"}
	params := sendParamsOf("m-svc", "how many points do I have?", map[string]any{"metadata": forAlice})
	task := h.task(t, "tok-svc", "message/send", params)
	if rec, err := h.svc.Service.Turn(t.Context(), "alice", task.ID); err != nil || rec.State != orchestrator.TurnCompleted {
		t.Fatalf("alice's turn %s = %+v, %v; want it completed, as hers", task.ID, rec.State, err)
	}
	if _, err := h.svc.Service.Turn(t.Context(), "svc-hub", task.ID); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("the service owns the turn (%v): it only acts for alice", err)
	}
	// Every method acts for the user the params' metadata names.
	if got := h.task(t, "tok-svc", "tasks/get", map[string]any{"id": task.ID, "metadata": forAlice}); got.ID != task.ID {
		t.Errorf("tasks/get for alice = %+v", got)
	}
	if r := h.rpc(t, "tok-svc", "tasks/get", map[string]any{"id": task.ID}); r.Error == nil || r.Error.Code != codeTaskNotFound {
		t.Errorf("tasks/get as the service itself = %+v, want %d", r.Error, codeTaskNotFound)
	}
	events, rerr := h.streamEvents(t, "tok-svc", "message/stream", map[string]any{"metadata": forAlice,
		"message": sendParamsOf("m-svc-2", "what tier am i in?", nil)["message"]})
	if rerr != nil || len(events) < 2 || events[len(events)-1]["final"] != true {
		t.Errorf("message/stream for alice = %v, %+v", events, rerr)
	} else if _, err := h.svc.Service.Turn(t.Context(), "alice", events[0]["id"].(string)); err != nil {
		t.Errorf("streamed turn is not alice's: %v", err)
	}

	for _, tc := range []struct {
		name, token string
		params      any
	}{
		{"an untrusted user naming another", "tok-bob", params},
		{"a principal that is not a string", "tok-svc", sendParamsOf("m-x", "hi", map[string]any{"metadata": map[string]any{"principal": 7}})},
		{"an empty principal", "tok-svc", sendParamsOf("m-x", "hi", map[string]any{"metadata": map[string]any{"principal": ""}})},
		{"params and message disagree", "tok-svc", map[string]any{"metadata": map[string]any{"principal": "bob"},
			"message": sendParamsOf("m-x", "hi", map[string]any{"metadata": forAlice})["message"]}},
		{"an untrusted tasks/get for another", "tok-bob", map[string]any{"id": task.ID, "metadata": forAlice}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := "message/send"
			if m, ok := tc.params.(map[string]any); ok && m["id"] != nil {
				method = "tasks/get"
			}
			if r := h.rpc(t, tc.token, method, tc.params); r.Error == nil || r.Error.Code != codeInvalidParams {
				t.Errorf("%s = %+v, want %d", method, r.Error, codeInvalidParams)
			}
		})
	}
}

func TestRPCErrMessages(t *testing.T) {
	for _, tc := range []struct {
		code   int
		detail string
		want   rpcError
	}{
		{codeTaskNotFound, "No task with this id belongs to you.", rpcError{Code: codeTaskNotFound, Message: "Task not found", Data: &errorData{Detail: "No task with this id belongs to you."}}},
		{codeTaskNotCancelable, "", rpcError{Code: codeTaskNotCancelable, Message: "Task cannot be canceled"}},
		{-32050, "Over the limit.", rpcError{Code: -32050, Message: "Over the limit.", Data: &errorData{Detail: "Over the limit."}}},
	} {
		if diff := cmp.Diff(&tc.want, rpcErr(tc.code, tc.detail)); diff != "" {
			t.Errorf("rpcErr(%d, %q) (-want +got):\n%s", tc.code, tc.detail, diff)
		}
	}
}

// Ids a store cannot hold as sent (NUL, a lone surrogate) are refused as invalid params.
func TestA2ARefusesUnholdableIDs(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct {
		field string
		want  int
	}{
		{`"messageId":"m\u0000"`, codeInvalidParams},
		{`"messageId":"m-\ud800"`, codeInvalidParams},
		{`"messageId":"m1","contextId":"c\u0000"`, codeInvalidParams},
		{`"messageId":"m2","taskId":"t\u0000"`, codeTaskNotFound}, // no task has such an id
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user",%s,"parts":[{"kind":"text","text":"hi"}]}}}`, tc.field)
		resp := h.post(t, "tok-alice", body)
		var r rpcResponse
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &r); resp.StatusCode != http.StatusOK || err != nil || r.Error == nil || r.Error.Code != tc.want {
			t.Errorf("A2A message/send with %s = %d %s, want JSON-RPC error %d", tc.field, resp.StatusCode, b, tc.want)
		}
	}
}

// A trusted service may name only a principal a token's subject could be.
func TestA2ADelegationChecksThePrincipal(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Auth = surfacetest.Tokens{"tok-svc": "svc-hub"}
		c.TrustedServices = []principal.Principal{"svc-hub"}
	})
	for _, name := range []string{"alice\r\nX-Evil: 1", "tab\there", "esc\u001b[31m", strings.Repeat("a", 60000)} {
		params := sendParamsOf("m-"+strconv.Itoa(len(name)), "how many points do I have?", map[string]any{"metadata": map[string]any{"principal": name}})
		r := h.rpc(t, "tok-svc", "message/send", params)
		if r.Error == nil || r.Error.Code != codeInvalidParams {
			t.Errorf("message/send for principal %.20q = %+v, want invalid params", name, r.Error)
		}
	}
}
