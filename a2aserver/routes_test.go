package a2aserver

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
)

// Mounted alone, the handler answers its routes' other methods as the whole handler does: 405
// in the JSON error shape, saying which method to use; unknown paths are 404.
func TestRoutesAnswerOtherMethods(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct {
		method, path string
		wantStatus   int
		wantCode     string
		wantAllow    string
	}{
		{http.MethodGet, "/a2a", http.StatusMethodNotAllowed, "method_not_allowed", "POST"},
		{http.MethodPost, CardPath, http.StatusMethodNotAllowed, "method_not_allowed", "GET, HEAD"},
		{http.MethodGet, "/elsewhere", http.StatusNotFound, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, h.srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := h.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body httpkit.ErrorResponse
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tt.wantStatus || body.Error.Code != tt.wantCode {
				t.Errorf("%s %s = %d %q, want %d %q", tt.method, tt.path, resp.StatusCode, body.Error.Code, tt.wantStatus, tt.wantCode)
			}
			if got := resp.Header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

// Mounted under a prefix (http.StripPrefix, as docs/embedding.md shows), the card advertises
// the endpoint where callers reach it, prefix included.
func TestAgentCardUnderAPrefix(t *testing.T) {
	svc := surfacetest.New(t, offline.New())
	h, err := New(Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob,
		Orchestrator: svc.Definition, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/agents/", http.StripPrefix("/agents", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/agents" + CardPath, "/agents//.well-known/../.well-known/agent-card.json"} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var card agentCard
		err = json.NewDecoder(resp.Body).Decode(&card)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if want := srv.URL + "/agents/a2a"; card.URL != want {
			t.Errorf("GET %s: card url = %q, want %q", path, card.URL, want)
		}
	}
}
