package assembly

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// TestDevFaultsApplyToTheCallerOnly: the dev fault endpoint lets a signed-in user break their own
// CCS calls, never another user's; clearing clears only the caller's.
func TestDevFaultsApplyToTheCallerOnly(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
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

// The dev fault endpoint takes the eval datasets' words too, and a fault it cannot read is
// named in the error with the words it knows.
func TestDevFaultsBody(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	bob := ta.token(t, "bob")
	tests := []struct {
		name    string
		body    any
		status  int
		message string // part of the error message, for a 400
	}{
		{"a word", map[string]any{"points.balance": "hang"}, http.StatusNoContent, ""},
		{"an eval dataset's word", map[string]any{"points.balance": "timeout"}, http.StatusNoContent, ""},
		{"an object", map[string]any{"points.balance": map[string]any{"latency": "10ms"}}, http.StatusNoContent, ""},
		{"an unknown word", map[string]any{"points.balance": "slow"}, http.StatusBadRequest, `unknown fault "slow"`},
		{"an unknown key", map[string]any{"points.balance": map[string]any{"delay": "1s"}}, http.StatusBadRequest, `unknown field "delay"`},
		{"not an object", []string{"hang"}, http.StatusBadRequest, "such as {\"points.balance\": \"hang\"}"},
		{"an enricher no sub-agent calls", map[string]any{"points.balanse": "hang"}, http.StatusBadRequest, "No bound sub-agent calls enricher points.balanse"},
		{"every enricher", map[string]any{"*": "error"}, http.StatusNoContent, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var problem struct {
				Error struct{ Code, Message string }
			}
			resp := ta.do(t, http.MethodPut, "/v1/dev/ccs-faults", bob, tc.body, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("PUT %v = %d, want %d", tc.body, resp.StatusCode, tc.status)
			}
			if tc.status != http.StatusBadRequest {
				return
			}
			if err := json.NewDecoder(resp.Body).Decode(&problem); err != nil {
				t.Fatal(err)
			}
			if tc.message != "" && !strings.Contains(problem.Error.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", problem.Error.Message, tc.message)
			}
			if problem.Error.Code == "invalid_body" && !strings.Contains(problem.Error.Message, "hang, major_bump") {
				t.Errorf("message = %q, want the fault words listed", problem.Error.Message)
			}
		})
	}
}

// The service in dev mode refuses, before any route, a request addressed to a name that is
// not the developer's own: a page rebinding its name to 127.0.0.1 mints no token.
func TestDevModeRefusesReboundNames(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	for host, want := range map[string]int{"rebind.attacker.example": http.StatusForbidden, "localhost": http.StatusOK} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/dev/token", strings.NewReader(`{"sub":"bob"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST /v1/dev/token with Host %s = %d, want %d", host, resp.StatusCode, want)
		}
	}
}
