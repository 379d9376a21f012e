package assembly

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/stream"
)

// episodeSurface starts a turn in a client-chosen episode over one of the HTTP surfaces, with
// key as its idempotency key (Idempotency-Key, runId, messageId), and follows it to its end.
// It returns the episode id the surface answered with, or fails t when the surface refused the
// turn.
type episodeSurface struct {
	name string
	send func(t *testing.T, ta *testApp, token, episodeID, message, key string) string
}

// episodeKeySeq makes idempotency keys unique.
var episodeKeySeq atomic.Int64

func nextKey(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, episodeKeySeq.Add(1))
}

var episodeSurfaces = []episodeSurface{
	{"rest", func(t *testing.T, ta *testApp, token, episodeID, message, key string) string {
		t.Helper()
		resp := ta.do(t, http.MethodPost, "/v1/turns", token, map[string]string{"episode_id": episodeID, "message": message},
			map[string]string{"Idempotency-Key": key})
		b, _ := io.ReadAll(resp.Body)
		var created struct {
			EpisodeID string `json:"episode_id"`
			EventsURL string `json:"events_url"`
		}
		if resp.StatusCode != http.StatusAccepted || json.Unmarshal(b, &created) != nil {
			t.Fatalf("POST /v1/turns in %s = %d %s, want 202", episodeID, resp.StatusCode, b)
		}
		events := ta.do(t, http.MethodGet, created.EventsURL, "", nil, nil)
		for ev, err := range stream.ReadEvents(events.Body) {
			if err != nil || ev.Name == "turn.completed" {
				break
			}
		}
		return created.EpisodeID
	}},
	{"agui", func(t *testing.T, ta *testApp, token, episodeID, message, key string) string {
		t.Helper()
		resp := ta.do(t, http.MethodPost, "/agui", token, map[string]any{
			"threadId": episodeID, "runId": key, "state": map[string]any{}, "tools": []any{},
			"context": []any{}, "forwardedProps": map[string]any{},
			"messages": []any{map[string]any{"id": key, "role": "user", "content": message}},
		}, map[string]string{"Accept": "text/event-stream"})
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST /agui in %s = %d %s, want a run", episodeID, resp.StatusCode, b)
		}
		var thread, last string
		for ev, err := range stream.ReadEvents(resp.Body) {
			if err != nil {
				t.Fatalf("reading the run: %v", err)
			}
			var e struct{ Type, ThreadID string }
			if err := json.Unmarshal(ev.Data, &e); err != nil {
				t.Fatal(err)
			}
			if e.Type == "RUN_STARTED" {
				thread = e.ThreadID
			}
			last = e.Type
		}
		if last != "RUN_FINISHED" {
			t.Errorf("run in %s ended with %s, want RUN_FINISHED", episodeID, last)
		}
		return thread
	}},
	{"a2a", func(t *testing.T, ta *testApp, token, episodeID, message, key string) string {
		t.Helper()
		params := userMessage(key, message)
		params["message"].(map[string]any)["contextId"] = episodeID
		task := ta.a2aTask(t, token, "message/send", params)
		if task.Status.State != "completed" {
			t.Errorf("task in %s = %s, want completed", episodeID, task.Status.State)
		}
		return task.ContextID
	}},
}

// TestEpisodeIDsArePerUser has alice and bob use the same episode ids over every surface and
// store: each gets a conversation of their own, whoever used an id first, and nothing bob can
// send or read tells him which ids alice uses.
func TestEpisodeIDsArePerUser(t *testing.T) {
	drivers := map[string]func(*config.Config){
		"memory": nil,
		"sqlite": func(c *config.Config) { c.Store = config.Store{Driver: "sqlite", DSN: t.TempDir() + "/scope.db"} },
	}
	if os.Getenv(postgresDSNEnv) != "" {
		drivers["postgres"] = func(c *config.Config) { c.Store = config.Store{Driver: "postgres", DSN: replicaSchemaDSN(t)} }
	}
	for name, edit := range drivers {
		t.Run(name, func(t *testing.T) {
			ta := newTestApp(t, "../../demo", edit)
			alice, bob := ta.token(t, "alice"), ta.token(t, "bob")
			for _, s := range episodeSurfaces {
				t.Run(s.name, func(t *testing.T) {
					testEpisodeIDsPerUser(t, ta, s, alice, bob)
				})
			}
		})
	}
}

func testEpisodeIDsPerUser(t *testing.T, ta *testApp, s episodeSurface, alice, bob string) {
	shared, alices, fresh := s.name+"-shared", s.name+"-alices", s.name+"-fresh"
	messages := func(token, episodeID string) (int, []string) {
		t.Helper()
		resp := ta.do(t, http.MethodGet, "/v1/episodes/"+episodeID, token, nil, nil)
		var ep struct {
			Turns []struct{ Message string } `json:"turns"`
		}
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil
		}
		if err := json.NewDecoder(resp.Body).Decode(&ep); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, turn := range ep.Turns {
			out = append(out, turn.Message)
		}
		return resp.StatusCode, out
	}
	want := func(token, who, episodeID string, msgs ...string) {
		t.Helper()
		code, got := messages(token, episodeID)
		if code != http.StatusOK {
			t.Errorf("GET /v1/episodes/%s as %s = %d, want 200", episodeID, who, code)
			return
		}
		if diff := cmp.Diff(msgs, got); diff != "" {
			t.Errorf("%s's episode %s (-want +got):\n%s", who, episodeID, diff)
		}
	}

	// bob takes the id first; alice is not locked out of it, and their conversations stay apart.
	if got := s.send(t, ta, bob, shared, "how many points do I have?", nextKey("k")); got != shared {
		t.Errorf("bob's turn went to episode %q, want %q", got, shared)
	}
	if got := s.send(t, ta, alice, shared, "any deals on running shoes?", nextKey("k")); got != shared {
		t.Errorf("alice's turn went to episode %q, want %q", got, shared)
	}
	s.send(t, ta, alice, shared, "what tier am i in?", nextKey("k"))
	want(alice, "alice", shared, "any deals on running shoes?", "what tier am i in?")
	want(bob, "bob", shared, "how many points do I have?")

	// The same request from both, idempotency key and all, is two turns: keys are each
	// principal's own too.
	same, key := s.name+"-same", nextKey("same")
	s.send(t, ta, alice, same, "how many points do I have?", key)
	s.send(t, ta, bob, same, "how many points do I have?", key)
	want(alice, "alice", same, "how many points do I have?")
	want(bob, "bob", same, "how many points do I have?")

	// An id only alice uses reads to bob exactly as one nobody uses.
	s.send(t, ta, alice, alices, "what tier am i in?", nextKey("k"))
	rAlices := ta.do(t, http.MethodGet, "/v1/episodes/"+alices, bob, nil, nil)
	rFresh := ta.do(t, http.MethodGet, "/v1/episodes/"+fresh, bob, nil, nil)
	bAlices, _ := io.ReadAll(rAlices.Body)
	bFresh, _ := io.ReadAll(rFresh.Body)
	if rAlices.StatusCode != http.StatusNotFound || rAlices.StatusCode != rFresh.StatusCode || string(bAlices) != string(bFresh) {
		t.Errorf("GET alice's episode as bob = %d %s; a never-used id = %d %s; want the same 404",
			rAlices.StatusCode, bAlices, rFresh.StatusCode, bFresh)
	}
	// Sending into it is answered as into a new id (send fails the test on a refusal), and
	// starts a conversation of bob's own that leaves alice's as it was.
	if got := s.send(t, ta, bob, alices, "how many points do I have?", nextKey("k")); got != alices {
		t.Errorf("bob's turn went to episode %q, want %q", got, alices)
	}
	if got := s.send(t, ta, bob, fresh, "how many points do I have?", nextKey("k")); got != fresh {
		t.Errorf("bob's turn went to episode %q, want %q", got, fresh)
	}
	want(bob, "bob", alices, "how many points do I have?")
	want(alice, "alice", alices, "what tier am i in?")
}
