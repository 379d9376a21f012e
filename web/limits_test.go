package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/a2aserver"
	"github.com/switchboard-ai/switchboard/agui"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// TestStreamLimitCoversEveryStreamingRoute: with one stream per principal, a stream held open
// by alice makes each other streaming route refuse her before any turn starts (AG-UI with 429,
// A2A message/stream and tasks/resubscribe with the rate-limited JSON-RPC error), while bob
// still streams.
func TestStreamLimitCoversEveryStreamingRoute(t *testing.T) {
	var limited []string
	h := newSurfacesHarness(t, httpkit.NewStreamCounter(httpkit.StreamLimits{PerPrincipal: 1},
		func(p principal.Principal, l string) { limited = append(limited, string(p)+":"+l) }))
	h.svc.Hang.Store(true) // rewards holds alice's turn, and so her stream, open
	resp := h.postAGUI(t.Context(), t, "tok-alice", runInput("thread-a", "run-a", userMsg("u1", twoIntents)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's first POST /agui = %d, want 200", resp.StatusCode)
	}
	var turnID string
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]any
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatal(err)
		}
		if e["type"] == "RUN_STARTED" {
			turnID = e["metadata"].(map[string]any)["turnId"].(string)
			break
		}
	}

	second := h.postAGUI(t.Context(), t, "tok-alice", runInput("thread-b", "run-b", userMsg("u1", "hello")))
	body, _ := io.ReadAll(second.Body)
	if second.StatusCode != http.StatusTooManyRequests || second.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"rate_limited"`) {
		t.Errorf("alice's second POST /agui = %d %s (Retry-After %q), want 429 rate_limited", second.StatusCode, body, second.Header.Get("Retry-After"))
	}
	if _, err := h.svc.Service.Turn(t.Context(), "alice", "run-b"); err == nil {
		t.Error("the refused AG-UI run started a turn")
	}
	for _, call := range []struct{ method, params string }{
		{"message/stream", `{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`},
		{"tasks/resubscribe", fmt.Sprintf(`{"id":%q}`, turnID)},
	} {
		r := h.post(t, "tok-alice", fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, call.method, call.params))
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("Retry-After") == "" || !strings.Contains(string(raw), `"code":-32029`) || !strings.Contains(string(raw), `"rate_limited"`) {
			t.Errorf("alice's A2A %s at her stream limit = %s (Retry-After %q), want the rate-limited JSON-RPC error", call.method, raw, r.Header.Get("Retry-After"))
		}
	}
	if bob := h.postAGUI(t.Context(), t, "tok-bob", runInput("thread-c", "run-c", userMsg("u1", "hello"))); bob.StatusCode != http.StatusOK {
		t.Errorf("bob's POST /agui = %d, want 200: alice's limit is hers", bob.StatusCode)
	}
	if want := slices.Repeat([]string{"alice:" + orchestrator.LimitStreamsPerPrincipal}, 3); !slices.Equal(limited, want) {
		t.Errorf("OnLimited calls = %v, want %v: three refusals of alice", limited, want)
	}
}

// surfacesHarness is the whole handler with the A2A and AG-UI surfaces mounted, sharing one
// stream counter, over the surfaces' test service.
type surfacesHarness struct {
	srv *httptest.Server
	svc *surfacetest.Service
}

func newSurfacesHarness(t *testing.T, streams *httpkit.StreamCounter) *surfacesHarness {
	t.Helper()
	svc := surfacetest.New(t, offline.New())
	a2a, err := a2aserver.New(a2aserver.Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob,
		Orchestrator: svc.Definition, SubAgents: svc.Orchestrator.SubAgents(), Streams: streams, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agui.New(agui.Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob, Streams: streams, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	turnTokens, err := principal.NewTurnTokens(principal.RandomSecret(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob, TurnTokens: turnTokens,
		Streams: streams, A2A: a2a, AGUI: ag, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &surfacesHarness{srv: srv, svc: svc}
}

func (h *surfacesHarness) postAGUI(ctx context.Context, t *testing.T, token string, body any) *http.Response {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.srv.URL+"/agui", strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (h *surfacesHarness) post(t *testing.T, token, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.srv.URL+"/a2a", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const twoIntents = "any deals on running shoes? and how many points do I have?"

func runInput(threadID, runID string, msgs ...any) map[string]any {
	return map[string]any{"threadId": threadID, "runId": runID, "messages": msgs, "tools": []any{}, "context": []any{}, "state": map[string]any{}}
}

func userMsg(id, text string) map[string]any {
	return map[string]any{"id": id, "role": "user", "content": text}
}
