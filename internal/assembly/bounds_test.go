package assembly

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/stream"
)

// TestStreamOutlivesTheBodyReadBound: the body read bound ends with the body. A turn streamed
// in the response of its POST keeps streaming long after the bound has passed: net/http's own
// read of the connection after the body must not inherit the deadline, or it would cancel the
// request in the middle of the stream. (net/http lifts it when the body ends; this holds the
// bound to that.)
func TestStreamOutlivesTheBodyReadBound(t *testing.T) {
	const bound = 50 * time.Millisecond
	model := newBlockingModel()
	ta := newStreamApp(t, streamSetup{
		models: map[string]llms.Model{"default": model},
		edit:   func(c *config.Config) { c.HTTP.BodyReadTimeout = bound },
	})
	t.Cleanup(model.open)
	resp := ta.do(t, http.MethodPost, "/v1/turns", ta.token(t, "alice"), map[string]string{"message": "take your time"},
		map[string]string{"Accept": "text/event-stream"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/turns = %d, want 200", resp.StatusCode)
	}
	model.waitHeld(t, 1)
	time.Sleep(4 * bound) // not a synchronisation: the bound must have passed for the test to mean anything
	model.open()
	var last stream.WireEvent
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		last = ev
		if ev.Name == "turn.completed" {
			break
		}
	}
	if last.Name != "turn.completed" {
		t.Fatalf("the stream ended with %q, want turn.completed", last.Name)
	}
}

// TestNULBytesNeverReachTheStore sends NUL bytes in every text a turn carries to the real
// stores: each answers 400, never 500 (PostgreSQL refuses NUL in text).
func TestNULBytesNeverReachTheStore(t *testing.T) {
	drivers := map[string]func(*config.Config){
		"sqlite": func(c *config.Config) { c.Store = config.Store{Driver: "sqlite", DSN: t.TempDir() + "/nul.db"} },
	}
	if os.Getenv(postgresDSNEnv) != "" {
		drivers["postgres"] = func(c *config.Config) { c.Store = config.Store{Driver: "postgres", DSN: replicaSchemaDSN(t)} }
	}
	for name, edit := range drivers {
		t.Run(name, func(t *testing.T) {
			ta := newTestApp(t, "../../demo", edit)
			tok := ta.token(t, "alice")
			for _, body := range []map[string]string{
				{"message": "hi\x00"}, {"message": "hi", "episode_id": "e\x00"},
				{"message": "hi", "locale": "en\x00"}, {"message": "hi", "location": "\x00"},
			} {
				if resp := ta.do(t, http.MethodPost, "/v1/turns", tok, body, nil); resp.StatusCode != http.StatusBadRequest {
					t.Errorf("POST /v1/turns %q = %d, want 400", body, resp.StatusCode)
				}
			}
			for _, path := range []string{"/v1/turns/t%00", "/v1/episodes/e%00", "/v1/turns/t%00/events"} {
				if resp := ta.do(t, http.MethodGet, path, tok, nil, nil); resp.StatusCode != http.StatusBadRequest {
					t.Errorf("GET %s = %d, want 400", path, resp.StatusCode)
				}
			}
			r := ta.rpc(t, tok, "message/send", userMessage("m\x00", "hi"))
			if r.Error == nil || r.Error.Code != -32602 {
				t.Errorf("A2A message/send with a NUL messageId = %+v, want invalid params", r.Error)
			}
		})
	}
}
