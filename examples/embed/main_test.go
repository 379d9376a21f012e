package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard"
)

// The outside module builds the service through the root package, with its own model, mounts
// only the A2A surface behind its own authentication, and gets a two-intent answer over A2A.
func TestEmbeddedA2AAnswersBothIntents(t *testing.T) {
	reply, err := run(t.Context(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"blue room", "lentil soup"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply %q does not mention %q", reply, want)
		}
	}
}

// Only what the program mounted is reachable, and only through its own authentication.
func TestOnlyTheA2ASurfaceIsMounted(t *testing.T) {
	srv, err := switchboard.New(t.Context(), switchboard.Options{
		Agents: "agents", Models: map[string]llms.Model{"default": deskModel{}},
		Authenticate: userOf, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(t.Context()) })
	web := httptest.NewServer(newMux(srv))
	t.Cleanup(web.Close)

	for _, tc := range []struct {
		name, method, path, apiKey string
		want                       int
	}{
		{"the card is public", http.MethodGet, "/agents/.well-known/agent-card.json", "", http.StatusOK},
		{"no API key", http.MethodPost, "/agents/a2a", "", http.StatusUnauthorized},
		{"an unknown API key", http.MethodPost, "/agents/a2a", "key-mallory", http.StatusUnauthorized},
		{"the REST API is not mounted", http.MethodPost, "/agents/v1/turns", "key-alice", http.StatusNotFound},
		{"nor the chat page", http.MethodGet, "/agents/", "key-alice", http.StatusNotFound},
		{"the program's own route", http.MethodGet, "/hello", "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tc.method, web.URL+tc.path, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.apiKey != "" {
				req.Header.Set("X-API-Key", tc.apiKey)
			}
			resp, err := web.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
			}
		})
	}
}

// With the program's own sign-in there is no dev sign-in route to mint tokens it would ignore.
func TestNoDevSignInBesideOwnAuthentication(t *testing.T) {
	srv, err := switchboard.New(t.Context(), switchboard.Options{
		Agents: "agents", Models: map[string]llms.Model{"default": deskModel{}},
		Authenticate: userOf, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(t.Context()) })
	web := httptest.NewServer(srv.Handler())
	t.Cleanup(web.Close)
	resp, err := web.Client().Post(web.URL+"/v1/dev/token", "application/json", strings.NewReader(`{"sub":"mallory"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /v1/dev/token = %d, want 404", resp.StatusCode)
	}
}
