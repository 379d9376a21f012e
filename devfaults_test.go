package switchboard

import (
	"net/http"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// TestDevFaultsApplyToTheCallerOnly: the dev fault endpoint lets a signed-in user break their own
// CCS calls, never another user's; clearing clears only the caller's.
func TestDevFaultsApplyToTheCallerOnly(t *testing.T) {
	ta := newTestApp(t, "agents", nil)
	alice, bob := ta.token(t, "alice"), ta.token(t, "bob")
	outcome := func(tok string) stream.Outcome {
		t.Helper()
		events := ta.streamTurn(t, tok, "", pointsQuestion)
		return decode[stream.TurnCompleted](t, events[len(events)-1]).Outcome
	}
	if resp := ta.do(t, http.MethodPut, "/v1/dev/ccs-faults", bob, map[string]any{"*": map[string]any{"status": "error"}}, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT /v1/dev/ccs-faults as bob = %d, want 204", resp.StatusCode)
	}
	if got := outcome(alice); got != stream.OutcomeOK {
		t.Errorf("alice's turn with bob's faults = %s, want ok", got)
	}
	if got := outcome(bob); got == stream.OutcomeOK {
		t.Errorf("bob's turn with his own faults = ok, want it to show the failure")
	}
	if resp := ta.do(t, http.MethodDelete, "/v1/dev/ccs-faults", alice, nil, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /v1/dev/ccs-faults as alice = %d, want 204", resp.StatusCode)
	}
	if got := outcome(bob); got == stream.OutcomeOK {
		t.Errorf("bob's turn after alice cleared hers = ok, want his faults kept")
	}
	if resp := ta.do(t, http.MethodDelete, "/v1/dev/ccs-faults", bob, nil, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /v1/dev/ccs-faults as bob = %d, want 204", resp.StatusCode)
	}
	if got := outcome(bob); got != stream.OutcomeOK {
		t.Errorf("bob's turn after he cleared his faults = %s, want ok", got)
	}
}
