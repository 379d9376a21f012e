package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Mounted under a prefix with http.StripPrefix, as docs/embedding.md shows, the events_url a
// new turn answers with is one the client can follow: the prefix included.
func TestEventsURLUnderAPrefix(t *testing.T) {
	inner := newBoundedServer(t, nil) // the handler, served at the root
	mux := http.NewServeMux()
	mux.Handle("/assistant/", http.StripPrefix("/assistant", inner.Config.Handler))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/assistant/v1/turns", strings.NewReader(`{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok-alice")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		EventsURL string `json:"events_url"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /assistant/v1/turns = %d, %v", resp.StatusCode, err)
	}
	if !strings.HasPrefix(started.EventsURL, "/assistant/v1/turns/") {
		t.Fatalf("events_url = %q, want it under /assistant/", started.EventsURL)
	}
	resp, err = srv.Client().Get(srv.URL + started.EventsURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET events_url = %d, want 200", resp.StatusCode)
	}
}
