package agui

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

var alice = principal.AuthenticatorFunc(func(*http.Request) (principal.Principal, error) { return "alice", nil })

// cancelService answers Cancel with err and counts the calls.
type cancelService struct {
	TurnService
	err   error
	calls int
}

func (c *cancelService) Cancel(context.Context, principal.Principal, string) error {
	c.calls++
	return c.err
}

// A run whose client left as the turn ended finds the turn finished or gone: nothing is left
// to cancel, and nothing is worth a warning. Any other failure to cancel is.
func TestCancelAbandonedWarnsOnlyOnFailure(t *testing.T) {
	for _, tt := range []struct {
		name     string
		err      error
		wantWarn bool
	}{
		{"cancelled", nil, false},
		{"already finished", orchestrator.ErrTurnFinished, false},
		{"not found", orchestrator.ErrNotFound, false},
		{"store down", errors.New("store: connection refused"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			svc := &cancelService{err: tt.err}
			h, err := New(Config{Service: svc, Hub: stream.NewHub(nil), Auth: alice,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequestWithContext(t.Context(), "POST", Route, nil)
			h.cancelAbandoned(r, "turn_1")
			if svc.calls != 1 {
				t.Errorf("Cancel calls = %d, want 1", svc.calls)
			}
			if got := logs.Len() > 0; got != tt.wantWarn {
				t.Errorf("warned = %v (%q), want %v", got, logs.String(), tt.wantWarn)
			}
		})
	}
}
