package a2aserver

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
)

// Mounted alone, the handler answers its routes' other methods as the whole handler does: 405
// in the JSON error shape, saying which method to use; unknown paths are 404.
func TestRoutesAnswerOtherMethods(t *testing.T) {
	h := newHarness(t, nil)
	surfacetest.CheckMethods(t, h.srv, []surfacetest.MethodCase{
		{Method: http.MethodGet, Path: "/a2a", WantStatus: http.StatusMethodNotAllowed, WantCode: "method_not_allowed", WantAllow: "POST"},
		{Method: http.MethodPost, Path: CardPath, WantStatus: http.StatusMethodNotAllowed, WantCode: "method_not_allowed", WantAllow: "GET, HEAD"},
		{Method: http.MethodGet, Path: "/elsewhere", WantStatus: http.StatusNotFound, WantCode: "not_found", WantAllow: ""},
	})
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
