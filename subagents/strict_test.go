package subagents_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// An envelope that says its principal twice, in two cases, or says it with a number, never
// reaches the model: it names no single user, so it is a principal mismatch (counted and
// alerted). Other duplicate keys are malformed.
func TestHostileEnvelopesAreSuppressed(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		mismatch   bool
	}{
		{"case-variant principal", `{"status":"ok","principal":"bob","PRINCIPAL":"alice","domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":99999}}`, true},
		{"duplicate principal", `{"status":"ok","principal":"bob","principal":"alice","domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":99999}}`, true},
		{"status error then ok", `{"status":"error","principal":"alice","domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":99999},"status":"ok"}`, false},
		{"principal a number", `{"status":"ok","principal":42,"domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":99999}}`, true},
		{"principal an array", `{"status":"ok","principal":["alice"],"domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":99999}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			client, err := ccs.NewClient(ccs.ClientConfig{BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
			a := h.agentWith("rewards", m, client, ccs.CheckOptions{})
			reply, err := a.Ask(t.Context(), ask.Question{Request: "my points", Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			if results := m.toolResults(""); len(results) != 1 || results[0] != unavailableResult {
				t.Errorf("tool results = %q, want the unavailable note only", results)
			}
			if reply.Outcome != ask.OutcomeUnavailable {
				t.Errorf("outcome = %q, want unavailable", reply.Outcome)
			}
			counted := h.counter(mismatchMetric)["consumer=switchboard"] == 1
			if counted != tc.mismatch || (len(h.alerts()) == 1) != tc.mismatch {
				t.Errorf("mismatch counted %v, alerts %v; want a mismatch: %v", counted, h.alerts(), tc.mismatch)
			}
		})
	}
}

// A user cancelling the turn is not a CCS failure of kind timeout.
func TestCancelledCallCountsAsCancelled(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	h.demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	a := h.agent("rewards", m, ccs.CheckOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(h.demo.Calls()) == 0 { // the call has reached the CCS
			runtime.Gosched()
		}
		cancel()
	}()
	_, _ = a.Ask(ctx, ask.Question{Request: "my points", Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "t"}})
	got := h.counter("switchboard_ccs_failures_total")
	if got["enricher=points.balance,reason=cancelled"] != 1 || got["enricher=points.balance,reason=timeout"] != 0 {
		t.Errorf("ccs failures = %v, want one cancelled and no timeout", got)
	}
}
