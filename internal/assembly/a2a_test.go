package assembly

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// rpcResult is a JSON-RPC response as an A2A client reads it.
type rpcResult struct {
	ID     json.RawMessage
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}

// a2aTaskView is the part of an A2A Task these tests read.
type a2aTaskView struct {
	ID        string
	ContextID string
	Kind      string
	Status    struct{ State string }
	Artifacts []struct {
		Parts []struct{ Kind, Text string }
	}
}

func (v a2aTaskView) reply() string {
	var b strings.Builder
	for _, a := range v.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (ta *testApp) rpc(t *testing.T, token, method string, params any) rpcResult {
	t.Helper()
	resp := ta.do(t, http.MethodPost, "/a2a", token, map[string]any{"jsonrpc": "2.0", "id": "r1", "method": method, "params": params}, nil)
	return decodeRPCResult(t, resp)
}

func decodeRPCResult(t *testing.T, resp *http.Response) rpcResult {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /a2a = %d %s", resp.StatusCode, b)
	}
	var r rpcResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (ta *testApp) a2aTask(t *testing.T, token, method string, params any) a2aTaskView {
	t.Helper()
	r := ta.rpc(t, token, method, params)
	if r.Error != nil {
		t.Fatalf("%s error = %+v", method, r.Error)
	}
	var v a2aTaskView
	if err := json.Unmarshal(r.Result, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func userMessage(id, text string) map[string]any {
	return map[string]any{"message": map[string]any{"kind": "message", "messageId": id, "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}}
}

func TestA2AEndToEnd(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	alice, bob := ta.token(t, "alice"), ta.token(t, "bob")

	t.Run("card", func(t *testing.T) {
		resp := ta.do(t, http.MethodGet, "/.well-known/agent-card.json", "", nil, nil)
		var card struct {
			Name, URL, ProtocolVersion string
			Skills                     []struct{ ID string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
			t.Fatal(err)
		}
		var skills []string
		for _, s := range card.Skills {
			skills = append(skills, s.ID)
		}
		if card.Name != "Concierge" || card.URL != ta.srv.URL+"/a2a" || card.ProtocolVersion != "0.3.0" ||
			!slices.Equal(skills, []string{"shop", "rewards", "support", "travel"}) {
			t.Errorf("card = %+v, want the concierge at %s/a2a with four skills", card, ta.srv.URL)
		}
	})

	var task a2aTaskView
	t.Run("send", func(t *testing.T) {
		task = ta.a2aTask(t, alice, "message/send", userMessage("m-1", "any deals on running shoes? and how many points do I have?"))
		if task.Kind != "task" || task.Status.State != "completed" {
			t.Fatalf("task = %+v, want completed", task)
		}
		if reply := strings.ToLower(task.reply()); !strings.Contains(reply, "points") || !strings.Contains(reply, "pegasus") {
			t.Errorf("reply = %q, want an offer (the Pegasus) and points", reply)
		}
		rec, err := ta.Service.Turn(t.Context(), "alice", task.ID)
		if err != nil || rec.EpisodeID != task.ContextID || rec.Reply != task.reply() {
			t.Errorf("stored turn = %+v, %v; want the task's turn", rec, err)
		}
	})

	t.Run("get", func(t *testing.T) {
		if got := ta.a2aTask(t, alice, "tasks/get", map[string]string{"id": task.ID}); got.reply() != task.reply() || got.Status.State != "completed" {
			t.Errorf("tasks/get = %+v, want the completed task", got)
		}
		if r := ta.rpc(t, bob, "tasks/get", map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("tasks/get as bob = %+v, want -32001", r.Error)
		}
	})

	t.Run("stream", func(t *testing.T) {
		resp := ta.do(t, http.MethodPost, "/a2a", alice, map[string]any{"jsonrpc": "2.0", "id": 9, "method": "message/stream",
			"params": userMessage("m-2", "how many points do I have?")}, map[string]string{"Accept": "text/event-stream"})
		var kinds []string
		var final map[string]any
		for ev, err := range stream.ReadEvents(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			var r struct{ Result map[string]any }
			if err := json.Unmarshal(ev.Data, &r); err != nil {
				t.Fatal(err)
			}
			kind, _ := r.Result["kind"].(string)
			if len(kinds) == 0 || kinds[len(kinds)-1] != kind {
				kinds = append(kinds, kind)
			}
			final = r.Result
		}
		if want := []string{"task", "status-update", "artifact-update", "status-update"}; !slices.Equal(kinds, want) {
			t.Errorf("event kinds = %v, want %v", kinds, want)
		}
		if final["final"] != true || final["status"].(map[string]any)["state"] != "completed" {
			t.Errorf("last event = %v, want final and completed", final)
		}
	})

	t.Run("protocol errors", func(t *testing.T) {
		for _, tc := range []struct {
			body string
			code int
		}{
			{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{`, -32700},
			{`{"jsonrpc":"2.0","id":1,"method":"message/fly","params":{}}`, -32601},
			{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":7}}`, -32602},
		} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/a2a", strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+alice)
			resp, err := ta.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r := decodeRPCResult(t, resp)
			resp.Body.Close()
			if r.Error == nil || r.Error.Code != tc.code {
				t.Errorf("%s = %+v, want %d", tc.body, r.Error, tc.code)
			}
		}
	})
}

// tasks/cancel stops a turn whose CCS call hangs; the task ends canceled.
func TestA2ACancelsHangingTask(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	ta.Demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	alice := ta.token(t, "alice")
	params := userMessage("m-hang", "how many points do I have?")
	params["configuration"] = map[string]any{"blocking": false}
	task := ta.a2aTask(t, alice, "message/send", params)
	if task.Status.State != "working" {
		t.Fatalf("non-blocking send = %s, want working", task.Status.State)
	}
	if r := ta.rpc(t, ta.token(t, "bob"), "tasks/cancel", map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != -32001 {
		t.Errorf("tasks/cancel as bob = %+v, want -32001", r.Error)
	}
	if got := ta.a2aTask(t, alice, "tasks/cancel", map[string]string{"id": task.ID}); got.Status.State != "canceled" {
		t.Errorf("tasks/cancel = %s, want canceled", got.Status.State)
	}
	rec, err := ta.Service.Turn(t.Context(), "alice", task.ID)
	if err != nil || rec.Outcome != stream.OutcomeCancelled {
		t.Errorf("stored turn = %+v, %v; want cancelled", rec, err)
	}
	if r := ta.rpc(t, alice, "tasks/cancel", map[string]string{"id": task.ID}); r.Error == nil || r.Error.Code != -32002 {
		t.Errorf("second tasks/cancel = %+v, want -32002", r.Error)
	}
}

// hubWithRemoteTravel writes the demo agents with travel replaced by a remote definition at
// a2aURL, keeping its description and examples (what the orchestrator routes on).
func hubWithRemoteTravel(t *testing.T, a2aURL string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../../demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".yaml" || e.Name() == "travel.yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../../demo", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	travel := `kind: sub_agent
id: travel
name: Travel
description: >-
  Travel specialist for trips and bookings: the upcoming itinerary with flights and hotel
  stays, live flight information such as delays, departure time, gate and terminal, and hotels
  near an airport or in a destination city. Use it for questions about a trip, a flight, a
  hotel or a reservation.
examples:
  - "when is my next trip"
  - "is my flight delayed?"
  - "what gate does UA 212 leave from"
  - "find me a hotel in lisbon"
timeout: 15s
a2a_url: ` + a2aURL + "\n"
	if err := os.WriteFile(filepath.Join(dir, "travel.yaml"), []byte(travel), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Hub and spoke: switchboard A's travel sub-agent is switchboard B, reached over A2A. The
// user's principal travels with the call, and B answers for that user only.
func TestRemoteSubAgentIsAnotherSwitchboard(t *testing.T) {
	spoke := newTestApp(t, "../../demo", nil)
	for _, tc := range []struct {
		name      string
		tokenFor  principal.Principal // whose token A presents to B; "" = the user's own
		wantOK    bool
		wantSpoke int // turns B stores for alice in A's episode
	}{
		{name: "delegated for the user", wantOK: true, wantSpoke: 1},
		{name: "credential of another user is refused", tokenFor: "mallory", wantOK: false, wantSpoke: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hub := newAppWith(t, hubWithRemoteTravel(t, spoke.srv.URL+"/a2a"), func(o *Input) {
				o.A2ACredential = func(_ context.Context, p principal.Principal) (string, error) {
					if tc.tokenFor != "" {
						p = tc.tokenFor
					}
					return spoke.DevSigner.Mint(string(p), time.Minute)
				}
			})
			events := hub.streamTurn(t, hub.token(t, "alice"), "", "is my flight delayed?")
			started := decode[stream.TurnStarted](t, events[0])
			rec, err := hub.Service.Turn(t.Context(), "alice", started.TurnID)
			if err != nil || rec.Decision == nil {
				t.Fatalf("hub turn = %+v, %v", rec, err)
			}
			outcomes := map[string]ask.Outcome{}
			for _, a := range rec.Decision.Agents {
				outcomes[a.Agent] = a.Outcome
			}
			if got := outcomes["travel"]; (got == ask.OutcomeOK) != tc.wantOK {
				t.Errorf("travel outcome = %q (all: %v), want ok = %v", got, outcomes, tc.wantOK)
			}
			t.Logf("hub reply: %q", rec.Reply)
			reply := strings.ToLower(rec.Reply)
			if tc.wantOK && !strings.Contains(reply, "dl 1432") {
				t.Errorf("reply = %q, want the spoke's flight answer", rec.Reply)
			}
			ep, err := spoke.Service.Episode(t.Context(), "alice", started.EpisodeID)
			if n := len(ep.Turns); n != tc.wantSpoke {
				t.Errorf("spoke stored %d turns for alice in the hub's episode (%v), want %d", n, err, tc.wantSpoke)
			}
			if len(ep.Turns) == 1 {
				t.Logf("spoke reply: %q", ep.Turns[0].Reply)
			}
			if tc.wantOK && len(ep.Turns) == 1 && !slices.Equal(ep.Turns[0].Decision.Invoked, []string{"travel"}) {
				t.Errorf("spoke invoked %v, want its own travel sub-agent", ep.Turns[0].Decision.Invoked)
			}
		})
	}
}

// Switchboard-to-switchboard delegation as configured in production: the hub sends one service
// credential (a2a.credential_env, subject svc-hub) with the user in metadata; the spoke acts for
// that user only when it lists svc-hub in a2a.trusted_services.
func TestTwoSwitchboardsDelegateWithAServiceCredential(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []string
		wantOK  bool
	}{
		{name: "the spoke trusts the hub's credential", trusted: []string{"svc-hub"}, wantOK: true},
		{name: "the spoke does not", trusted: nil, wantOK: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spoke := newTestApp(t, "../../demo", func(c *config.Config) { c.A2A.TrustedServices = tc.trusted })
			hub := newAppWith(t, hubWithRemoteTravel(t, spoke.srv.URL+"/a2a"), func(o *Input) {
				o.Config.A2A.CredentialEnv = "A2A_TOKEN"
				o.Config.A2A.Credential = spoke.token(t, "svc-hub") // as ApplyEnv resolves it
			})
			events := hub.streamTurn(t, hub.token(t, "alice"), "", "is my flight delayed?")
			started := decode[stream.TurnStarted](t, events[0])
			rec, err := hub.Service.Turn(t.Context(), "alice", started.TurnID)
			if err != nil || rec.Decision == nil {
				t.Fatalf("hub turn = %+v, %v", rec, err)
			}
			var travel ask.Outcome
			for _, a := range rec.Decision.Agents {
				if a.Agent == "travel" {
					travel = a.Outcome
				}
			}
			if (travel == ask.OutcomeOK) != tc.wantOK {
				t.Errorf("travel outcome = %q, want ok = %v", travel, tc.wantOK)
			}
			ep, err := spoke.Service.Episode(t.Context(), "alice", started.EpisodeID)
			if tc.wantOK && (err != nil || len(ep.Turns) != 1 || !strings.Contains(rec.Reply, "DL 1432")) {
				t.Errorf("spoke episode for alice = %+v, %v; hub reply %q; want the spoke's flight answer, stored as alice's", ep.Turns, err, rec.Reply)
			}
			if !tc.wantOK && !errors.Is(err, orchestrator.ErrNotFound) {
				t.Errorf("untrusted: spoke episode for alice = %+v, %v; want nothing stored", ep.Turns, err)
			}
			if _, err := spoke.Service.Episode(t.Context(), "svc-hub", started.EpisodeID); !errors.Is(err, orchestrator.ErrNotFound) {
				t.Errorf("the service credential owns a spoke episode (%v): it must only act for alice", err)
			}
		})
	}
}

// Cancelling a hub turn that waits on the spoke cancels the spoke's task too: the spoke's turn
// ends cancelled instead of running on until its own timeout.
func TestCancelReachesTheRemoteSwitchboard(t *testing.T) {
	spoke := newTestApp(t, "../../demo", func(c *config.Config) { c.A2A.TrustedServices = []string{"svc-hub"} })
	spoke.Demo.Inject(ccsdemo.AnyEnricher, ccsdemo.Fault{Hang: true}) // the spoke's travel agent waits on CCS
	watched, spokeTasks := watchTaskIDs(spoke.Handler)
	spokeSrv := httptest.NewServer(watched)
	t.Cleanup(spokeSrv.Close)
	hub := newAppWith(t, hubWithRemoteTravel(t, spokeSrv.URL+"/a2a"), func(o *Input) {
		o.Config.A2A.Credential = spoke.token(t, "svc-hub")
	})

	resp := hub.do(t, http.MethodPost, "/v1/turns", hub.token(t, "alice"), map[string]string{"message": "is my flight delayed?"}, nil)
	var created struct {
		TurnID string `json:"turn_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.TurnID == "" {
		t.Fatalf("POST /v1/turns: %v", err)
	}
	var spokeTurn string
	select {
	case spokeTurn = <-spokeTasks: // the spoke has started the task and told the hub its id
	case <-time.After(20 * time.Second):
		t.Fatal("the spoke never started a task")
	}
	if err := hub.Service.Cancel(t.Context(), "alice", created.TurnID); err != nil {
		t.Fatalf("cancel the hub turn: %v", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // the spoke's travel timeout is 8s
	defer cancel()
	var outcome stream.Outcome
	for r, err := range spoke.Hub.Follow(ctx, spokeTurn, 0) {
		if err != nil {
			t.Fatalf("the spoke's turn %s did not end within 5s of the hub's cancel: %v", spokeTurn, err)
		}
		if done, ok := r.Event.(stream.TurnCompleted); ok {
			outcome = done.Outcome
		}
	}
	if outcome != stream.OutcomeCancelled {
		t.Errorf("the spoke's turn ended %q, want cancelled", outcome)
	}
}

// watchTaskIDs passes requests to h and sends on the channel the id of each A2A task that h
// names in a response (the first event of message/stream), as it is written.
func watchTaskIDs(h http.Handler) (http.Handler, <-chan string) {
	ids := make(chan string, 16)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&taskIDWriter{ResponseWriter: w, ids: ids}, r)
	}), ids
}

// taskIDPattern finds a JSON-RPC result that is a Task (its first field is the id; update
// events start with taskId).
var taskIDPattern = regexp.MustCompile(`"result":\{"id":"(turn_[0-9a-f]+)"`)

type taskIDWriter struct {
	http.ResponseWriter
	ids  chan<- string
	seen strings.Builder
	sent bool
}

func (w *taskIDWriter) Write(p []byte) (int, error) {
	if !w.sent {
		w.seen.Write(p)
		if m := taskIDPattern.FindStringSubmatch(w.seen.String()); m != nil {
			w.sent = true
			w.ids <- m[1]
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *taskIDWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *taskIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
