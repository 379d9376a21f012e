package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// downService answers every call as a service whose store is down.
type downService struct{}

var errStoreDown = fmt.Errorf("store: events: %w: dial tcp 127.0.0.1:5432: connection refused", orchestrator.ErrUnavailable)

func (downService) Start(context.Context, orchestrator.StartRequest) (orchestrator.TurnRecord, bool, error) {
	return orchestrator.TurnRecord{}, false, errStoreDown
}
func (downService) Cancel(context.Context, principal.Principal, string) error { return errStoreDown }
func (downService) Turn(context.Context, principal.Principal, string) (orchestrator.TurnRecord, error) {
	return orchestrator.TurnRecord{}, errStoreDown
}
func (downService) Episode(context.Context, principal.Principal, string) (orchestrator.Episode, error) {
	return orchestrator.Episode{}, errStoreDown
}
func (downService) EpisodeTail(context.Context, principal.Principal, string, int) (orchestrator.Episode, bool, error) {
	return orchestrator.Episode{}, false, errStoreDown
}

// anyone signs every request in as alice.
var anyone = principal.AuthenticatorFunc(func(*http.Request) (principal.Principal, error) { return "alice", nil })

// While the store is down every route that needs it answers 503 with Retry-After, in the JSON
// error shape and without the cause, and /readyz says not ready.
func TestStoreOutageAnswers503(t *testing.T) {
	tokens, err := principal.NewTurnTokens(principal.RandomSecret(), 0)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{
		Service: downService{}, Hub: stream.NewHub(stream.NewMemoryLogStore()), Auth: anyone, TurnTokens: tokens,
		Check:  func(context.Context) error { return errStoreDown },
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ method, path, body string }{
		{http.MethodPost, "/v1/turns", `{"message":"hi"}`},
		{http.MethodGet, "/v1/turns/turn_1", ""},
		{http.MethodGet, "/v1/turns/turn_1/events", ""},
		{http.MethodDelete, "/v1/turns/turn_1", ""},
		{http.MethodGet, "/v1/episodes/ep_1", ""},
		{http.MethodGet, "/readyz", ""},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
				t.Errorf("%s %s = %d (Retry-After %q) %s, want 503 with Retry-After", tt.method, tt.path, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			}
			if strings.Contains(rec.Body.String(), "connection refused") {
				t.Errorf("%s %s body = %s, want no internal cause", tt.method, tt.path, rec.Body)
			}
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Errorf("%s %s body is not JSON: %v", tt.method, tt.path, err)
			}
		})
	}
}
