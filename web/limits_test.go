package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// TestStreamLimitCoversEveryStreamingRoute: with one stream per principal, a stream held open
// by alice makes each other streaming route refuse her before any turn starts (AG-UI with 429,
// A2A message/stream and tasks/resubscribe with the rate-limited JSON-RPC error), while bob
// still streams.
func TestStreamLimitCoversEveryStreamingRoute(t *testing.T) {
	var limited []string
	h := newA2AHarness(t, func(c *Config) {
		c.Streams = StreamLimits{PerPrincipal: 1}
		c.OnLimited = func(l string) { limited = append(limited, l) }
	})
	h.hang.Store(true) // rewards holds alice's turn, and so her stream, open
	resp := h.postAGUI(t.Context(), t, "tok-alice", runInput("thread-a", "run-a", userMsg("u1", twoIntents)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's first POST /agui = %d, want 200", resp.StatusCode)
	}
	var turnID string
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var e aguiEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatal(err)
		}
		if e.typ() == aguiRunStarted {
			turnID = e["metadata"].(map[string]any)["turnId"].(string)
			break
		}
	}

	second := h.postAGUI(t.Context(), t, "tok-alice", runInput("thread-b", "run-b", userMsg("u1", "hello")))
	body, _ := io.ReadAll(second.Body)
	if second.StatusCode != http.StatusTooManyRequests || second.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"rate_limited"`) {
		t.Errorf("alice's second POST /agui = %d %s (Retry-After %q), want 429 rate_limited", second.StatusCode, body, second.Header.Get("Retry-After"))
	}
	if _, err := h.service.Turn(t.Context(), "alice", "run-b"); err == nil {
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
	if len(limited) != 3 {
		t.Errorf("OnLimited calls = %v, want three refusals", limited)
	}
}
