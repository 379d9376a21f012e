package subagents_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// TestEnvelopeHandling drives one rewards tool call through every envelope outcome the demo CCS
// can produce and checks what the sub-agent's LLM sees, the reply's outcome and the counters.
func TestEnvelopeHandling(t *testing.T) {
	key := []byte("shared-signing-key")
	const failures = "switchboard_ccs_failures_total"
	tests := []struct {
		name     string
		demo     ccsdemo.Options
		fault    ccsdemo.Fault
		check    ccs.CheckOptions
		want     parsedResult
		outcome  ask.Outcome
		counters map[string]map[string]int64 // metric -> attributes -> value
		alert    string                      // the alert's reason, "" for none
	}{
		{
			name:    "ok",
			want:    parsedResult{Status: "ok", HasData: true},
			outcome: ask.OutcomeOK,
		},
		{
			name:     "status error is unavailable and counted",
			fault:    ccsdemo.Fault{Status: ccs.StatusError},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{failures: {"enricher=points.balance,reason=status_error": 1}},
		},
		{
			name:    "partial is used with a caveat",
			fault:   ccsdemo.Fault{Status: ccs.StatusPartial},
			want:    parsedResult{Status: "partial", HasNote: true, HasData: true},
			outcome: ask.OutcomePartial,
		},
		{
			name:     "unknown status is unavailable and counted",
			fault:    ccsdemo.Fault{Status: "degraded"},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{failures: {"enricher=points.balance,reason=unknown_status": 1}},
		},
		{
			name:     "status in another case is unknown and counted",
			fault:    ccsdemo.Fault{Status: "OK"},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{failures: {"enricher=points.balance,reason=unknown_status": 1}},
		},
		{
			name:     "major version skew is unavailable and counted",
			fault:    ccsdemo.Fault{MajorBump: true},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{versionMetric: {"": 1}},
		},
		{
			name:     "http 500 is unavailable",
			fault:    ccsdemo.Fault{HTTPStatus: http.StatusInternalServerError},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{failures: {"enricher=points.balance,reason=unavailable": 1}},
		},
		{
			name:     "http 503 is unavailable",
			fault:    ccsdemo.Fault{HTTPStatus: http.StatusServiceUnavailable},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{failures: {"enricher=points.balance,reason=unavailable": 1}},
		},
		{
			name:    "signed envelope with the shared key is used",
			demo:    ccsdemo.Options{SigningKey: key},
			check:   ccs.CheckOptions{SigningKey: key},
			want:    parsedResult{Status: "ok", HasData: true},
			outcome: ask.OutcomeOK,
		},
		{
			name:     "bad signature is treated like a principal mismatch",
			demo:     ccsdemo.Options{SigningKey: key},
			fault:    ccsdemo.Fault{BadSignature: true},
			check:    ccs.CheckOptions{SigningKey: key},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{mismatchMetric: {"consumer=switchboard": 1}},
			alert:    string(ccs.ReasonBadSignature),
		},
		{
			name:     "missing signature when one is required",
			check:    ccs.CheckOptions{SigningKey: key},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{mismatchMetric: {"consumer=switchboard": 1}},
			alert:    string(ccs.ReasonBadSignature),
		},
		{
			name:     "validly signed envelope of another user",
			demo:     ccsdemo.Options{SigningKey: key},
			fault:    ccsdemo.Fault{Status: ccs.StatusPartial, WrongPrincipal: true},
			check:    ccs.CheckOptions{SigningKey: key},
			want:     parsedResult{Status: "unavailable", HasNote: true},
			outcome:  ask.OutcomeUnavailable,
			counters: map[string]map[string]int64{mismatchMetric: {"consumer=switchboard": 1}},
			alert:    string(ccs.ReasonPrincipalMismatch),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.demo, ccs.ClientConfig{})
			if tt.fault != (ccsdemo.Fault{}) {
				h.demo.Inject("points.balance", tt.fault)
			}
			m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
			a := h.agent("rewards", m, tt.check)

			reply, err := a.Ask(t.Context(), ask.Question{
				Request:   "how many points do i have",
				Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "turn-1"},
			})
			if err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			if reply.Outcome != tt.outcome {
				t.Errorf("Ask().Outcome = %q, want %q", reply.Outcome, tt.outcome)
			}
			if reply.Text == "" {
				t.Error("Ask().Text is empty")
			}
			results := m.toolResults("")
			if len(results) != 1 {
				t.Fatalf("tool results sent to the LLM = %q, want one", results)
			}
			if diff := cmp.Diff(tt.want, parseResult(t, results[0])); diff != "" {
				t.Errorf("tool result %s (-want +got):\n%s", results[0], diff)
			}
			if tt.want.Status == "unavailable" && results[0] != unavailableResult {
				t.Errorf("tool result = %s, want exactly %s", results[0], unavailableResult)
			}
			if tt.want.HasData != (len(reply.Components) == 1) {
				t.Errorf("Ask().Components = %d, want %d", len(reply.Components), map[bool]int{true: 1}[tt.want.HasData])
			}

			for _, name := range []string{mismatchMetric, versionMetric, failures} {
				want := tt.counters[name]
				if want == nil {
					want = map[string]int64{}
				}
				if diff := cmp.Diff(want, h.counter(name)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
			alerts := h.alerts()
			switch {
			case tt.alert == "" && len(alerts) != 0:
				t.Errorf("security alerts = %v, want none", alerts)
			case tt.alert != "" && (len(alerts) != 1 || alerts[0]["reason"] != tt.alert):
				t.Errorf("security alerts = %v, want one with reason %s", alerts, tt.alert)
			}
			if got := len(h.demo.Calls()); got != 1 {
				t.Errorf("CCS calls = %d, want 1", got)
			}
			assertNoPartialLeak(t, tt.demo, tt.fault, m.transcript())
		})
	}
}

// assertNoPartialLeak fetches the same faulted envelope from an oracle CCS and checks that
// nothing from its partial[] appears in what the LLM was sent.
func assertNoPartialLeak(t *testing.T, demo ccsdemo.Options, fault ccsdemo.Fault, transcript string) {
	t.Helper()
	demo.Faults = map[string]ccsdemo.Fault{"points.balance": fault}
	resp, err := oracle(t, demo).Enrich(t.Context(), ccs.EnricherRequest{Principal: ccsdemo.Alice, EnricherID: "points.balance"})
	if err != nil {
		return // no envelope, so no partial[] to leak
	}
	if (fault.Status == ccs.StatusError || fault.Status == ccs.StatusPartial) && len(resp.Partial) == 0 {
		t.Fatalf("oracle envelope with status %s has no partial[]; the leak check would be vacuous", fault.Status)
	}
	for _, fs := range resp.Partial {
		for _, s := range []string{fs.Source, fs.Reason} {
			if strings.Contains(transcript, s) {
				t.Errorf("LLM messages contain partial[] text %q", s)
			}
		}
	}
	for _, s := range []string{"upstream 503", "10.20.3.17", "deadline exceeded", "internal", "status_error"} {
		if strings.Contains(transcript, s) {
			t.Errorf("LLM messages contain %q", s)
		}
	}
}

// TestPartialAndUnavailableMix: one tool usable and one not makes the reply partial, and the
// usable data still reaches the LLM.
func TestPartialAndUnavailableMix(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	h.demo.Inject("rewards.tier", ccsdemo.Fault{Status: ccs.StatusError})
	m := &scriptedModel{toolCalls: []llms.ToolCall{
		call("c1", "get_points_balance", "{}"),
		call("c2", "get_tier", "{}"),
	}}
	reply, err := h.agent("rewards", m, ccs.CheckOptions{}).Ask(t.Context(), ask.Question{
		Request:   "points and tier",
		Inherited: ask.Inherited{Principal: ccsdemo.Alice},
	})
	if err != nil {
		t.Fatalf("Ask() error = %v", err)
	}
	if reply.Outcome != ask.OutcomePartial {
		t.Errorf("Ask().Outcome = %q, want %q", reply.Outcome, ask.OutcomePartial)
	}
	var got []parsedResult
	for _, r := range m.toolResults("") {
		got = append(got, parseResult(t, r))
	}
	want := []parsedResult{{Status: "ok", HasData: true}, {Status: "unavailable", HasNote: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	if !strings.Contains(m.transcript(), "12450") {
		t.Error("alice's points balance (12450) did not reach the LLM")
	}
	if len(reply.Components) != 1 || !strings.Contains(string(reply.Components[0]), `"type":"points_balance"`) {
		t.Errorf("Ask().Components = %s, want one points_balance component", reply.Components)
	}
}
