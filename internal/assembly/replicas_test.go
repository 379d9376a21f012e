package assembly

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// These tests hold the replica contract over real HTTP (docs/architecture.md): two instances
// of the service share one PostgreSQL schema and one dev HS256 secret, as replicas behind a load balancer do, each on its
// own httptest server. Turns run on replica A; the tests then talk to replica B, which never ran
// them and knows them only through the store. What would otherwise be timed is held instead: a
// CCS call lasts until the test releases it (heldCCS), so "the turn is still running" is a fact,
// not a race. The only waits are bounded ones for state (B polls the store every 500ms).

// A turn started on A streams in full from B, through the events_url A minted: B follows it
// from the store while A runs it, and replays it again once it is over. Both read exactly what
// A's own clients read.
func TestReplicaStreamsTurnItDidNotRun(t *testing.T) {
	r := newReplicaPair(t)
	r.held.hold("offers.search") // the turn runs on A until B has shown part of it
	tok := r.a.token(t, "alice")
	c := startTurn(t, r.a, tok, "any deals on running shoes?")

	ctx, cancel := context.WithTimeout(t.Context(), streamWait) // a stalled follower fails, not hangs
	defer cancel()
	resp := openStream(t, r.b, eventsRequest(ctx, r.b, c.EventsURL, "", 0))
	var followed []stream.WireEvent
	released := false
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatalf("reading B's stream: %v", err)
		}
		followed = append(followed, ev)
		if ev.Name == "status" && !released {
			// The turn cannot complete before the release, so B, having shown this much, is
			// following a turn still running on A.
			r.held.waitUntil(t, "A's turn is inside its CCS call", func() bool { return r.held.running("offers.search") == 1 })
			r.held.release("offers.search")
			released = true
		}
		if ev.Name == "turn.completed" {
			break
		}
	}
	if n := len(followed); n == 0 || followed[n-1].Name != "turn.completed" {
		t.Fatalf("B's stream = %+v, want it to end with turn.completed", fromWire(followed))
	}
	if started, _ := r.held.counts("offers.search"); started != 1 {
		t.Fatalf("offers.search calls = %d, want 1", started)
	}
	if got := decode[stream.TurnCompleted](t, followed[len(followed)-1]).Outcome; got != stream.OutcomeOK {
		t.Errorf("outcome = %q, want ok", got)
	}

	fromA := fromWire(fullStream(t, r.a, tok, c.TurnID)) // checks ids 1..n
	if diff := cmp.Diff(fromA, fromWire(followed)); diff != "" {
		t.Errorf("B following the running turn != A's stream (-A +B):\n%s", diff)
	}
	if diff := cmp.Diff(fromA, fromWire(fullStream(t, r.b, tok, c.TurnID))); diff != "" {
		t.Errorf("B replaying the finished turn != A's stream (-A +B):\n%s", diff)
	}
	r.checkBRanNothing(t, "offers.search")
}

// A client reads part of a turn from A, loses its connection, and resumes on B with
// Last-Event-ID: B sends exactly the rest, once each and in order, as A goes on running it.
func TestReplicaResumesStreamOfAnother(t *testing.T) {
	r := newReplicaPair(t)
	r.held.hold("offers.search") // keeps the turn running while the client moves to B
	tok := r.a.token(t, "alice")
	c := startTurn(t, r.a, tok, "any deals on running shoes?")

	// On A, through events_url, up to the first status line, then away.
	ctx1, cancel1 := context.WithTimeout(t.Context(), streamWait)
	resp1 := openStream(t, r.a, eventsRequest(ctx1, r.a, c.EventsURL, "", 0))
	var first []stream.WireEvent
	for ev, err := range stream.ReadEvents(resp1.Body) {
		if err != nil {
			t.Fatalf("reading A's stream: %v", err)
		}
		first = append(first, ev)
		if ev.Name == "status" {
			break
		}
	}
	cancel1()
	resp1.Body.Close()
	k := len(first)
	if k < 2 || first[k-1].Name != "status" {
		t.Fatalf("A's stream gave %+v, want events up to the first status", fromWire(first))
	}
	if rec, err := r.b.Service.Turn(t.Context(), "alice", c.TurnID); err != nil || rec.State != orchestrator.TurnRunning {
		t.Fatalf("turn seen from B after the disconnect = %s, %v; want still running", rec.State, err)
	}

	// On B, with the bearer token, after k. The headers are in before the release: B is
	// following a turn that is still running on A.
	ctx2, cancel2 := context.WithTimeout(t.Context(), streamWait)
	defer cancel2()
	resp2 := openStream(t, r.b, eventsRequest(ctx2, r.b, "/v1/turns/"+c.TurnID+"/events", tok, k))
	r.held.release("offers.search")
	rest := readAll(t, resp2.Body)

	var ids, want []uint64
	for _, ev := range rest {
		ids = append(ids, ev.ID)
	}
	full := fromWire(fullStream(t, r.a, tok, c.TurnID))
	for id := uint64(k + 1); id <= uint64(len(full)); id++ {
		want = append(want, id)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("ids resumed on B after %d (-want +got):\n%s", k, diff)
	}
	if diff := cmp.Diff(full, fromWire(append(first, rest...))); diff != "" {
		t.Errorf("A's first part + B's rest != the whole stream (-want +got):\n%s", diff)
	}
	r.checkBRanNothing(t, "offers.search")
}

// B cannot cancel a turn that runs on A and says so; it serves the episode, running and then
// completed, to its owner, and nothing of it to anyone else.
func TestReplicaCancelEpisodeAndAccess(t *testing.T) {
	r := newReplicaPair(t)
	r.held.hold("offers.search")
	alice, bob := r.a.token(t, "alice"), r.a.token(t, "bob")
	c := startTurn(t, r.a, alice, "any deals on running shoes?")
	r.held.waitUntil(t, "A's turn is inside its CCS call", func() bool { return r.held.running("offers.search") == 1 })

	resp := r.b.do(t, http.MethodDelete, "/v1/turns/"+c.TurnID, alice, nil, nil)
	if code := errorCode(t, resp); resp.StatusCode != http.StatusConflict || code != "running_elsewhere" {
		t.Errorf("DELETE on B of a turn running on A = %d %q, want 409 running_elsewhere", resp.StatusCode, code)
	}
	if n := r.held.running("offers.search"); n != 1 {
		t.Errorf("A's CCS call after the refused cancel: %d running, want 1", n)
	}

	episode := func(t *testing.T) orchestrator.Episode {
		t.Helper()
		resp := r.b.do(t, http.MethodGet, "/v1/episodes/"+c.EpisodeID, alice, nil, nil)
		var ep orchestrator.Episode
		if err := json.NewDecoder(resp.Body).Decode(&ep); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET episode on B = %d, %v", resp.StatusCode, err)
		}
		if len(ep.Turns) != 1 || ep.Turns[0].ID != c.TurnID {
			t.Fatalf("episode on B = %+v, want the one turn %s", ep, c.TurnID)
		}
		return ep
	}
	// Another principal learns nothing on B, not even that the turn runs (no 409 for bob).
	bobSeesNothing := func(t *testing.T) {
		for _, tc := range []struct{ name, method, path string }{
			{"turn", http.MethodGet, "/v1/turns/" + c.TurnID},
			{"events", http.MethodGet, "/v1/turns/" + c.TurnID + "/events"},
			{"episode", http.MethodGet, "/v1/episodes/" + c.EpisodeID},
			{"cancel", http.MethodDelete, "/v1/turns/" + c.TurnID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := r.b.do(t, tc.method, tc.path, bob, nil, nil).StatusCode; got != http.StatusNotFound {
					t.Errorf("%s %s on B as bob = %d, want 404", tc.method, tc.path, got)
				}
			})
		}
	}

	t.Run("bob while running", bobSeesNothing)
	if got := episode(t).Turns[0].State; got != orchestrator.TurnRunning {
		t.Errorf("turn in the episode on B = %s, want running", got)
	}

	r.held.release("offers.search")
	awaitTurnStored(t, r.b, "alice", c.TurnID)
	got := episode(t).Turns[0]
	onA, err := r.a.Service.Turn(t.Context(), "alice", c.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != orchestrator.TurnCompleted || got.Outcome != stream.OutcomeOK || got.Reply == "" || got.Reply != onA.Reply {
		t.Errorf("turn in the episode on B = %s %q %q, want completed, ok, A's reply %q", got.State, got.Outcome, got.Reply, onA.Reply)
	}
	if got.Decision == nil || !cmp.Equal(got.Decision.Invoked, []string{"shop"}) {
		t.Errorf("routing on B = %+v, want shop invoked", got.Decision)
	}
	// Cancelling a finished turn is the same conflict wherever it ran (409 turn_finished).
	if got := r.b.do(t, http.MethodDelete, "/v1/turns/"+c.TurnID, alice, nil, nil).StatusCode; got != http.StatusConflict {
		t.Errorf("DELETE on B of the finished turn = %d, want 409", got)
	}
	t.Run("bob once completed", bobSeesNothing)
	r.checkBRanNothing(t, "offers.search")
}

// The same Idempotency-Key and body sent to both replicas make one turn, dispatched once,
// whether B gets the request after A answered or both get it at once.
func TestReplicaIdempotencyKey(t *testing.T) {
	const message, key = "how many points do I have?", "replica-key-1"
	for _, tc := range []struct {
		name string
		// together sends both requests at once, so that the store alone decides which
		// replica's insert wins.
		together bool
	}{
		{name: "A then B"},
		{name: "at once", together: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReplicaPair(t)
			tok := r.a.token(t, "alice")
			type answer struct {
				status int
				c      created
				err    error
			}
			var onA, onB answer
			send := func(ta *testApp, into *answer) {
				into.status, into.c, into.err = postTurnKeyed(t.Context(), ta, tok, message, key)
			}
			if tc.together {
				var wg sync.WaitGroup
				wg.Go(func() { send(r.a, &onA) })
				wg.Go(func() { send(r.b, &onB) })
				wg.Wait()
			} else {
				send(r.a, &onA)
				send(r.b, &onB)
			}
			for name, got := range map[string]answer{"A": onA, "B": onB} {
				if got.err != nil || got.status != http.StatusAccepted || got.c.TurnID == "" {
					t.Fatalf("POST on %s = %d, %v, want 202 with a turn", name, got.status, got.err)
				}
			}
			if onA.c.TurnID != onB.c.TurnID || onA.c.EpisodeID != onB.c.EpisodeID {
				t.Errorf("turns: A %s in %s, B %s in %s; want the same turn", onA.c.TurnID, onA.c.EpisodeID, onB.c.TurnID, onB.c.EpisodeID)
			}
			if status, _, err := postTurnKeyed(t.Context(), r.b, tok, "something else", key); err != nil || status != http.StatusConflict {
				t.Errorf("same key, other body on B = %d, %v; want 409", status, err)
			}

			// The turn token B minted works on A, and the stream is that of a single turn.
			ctx, cancel := context.WithTimeout(t.Context(), streamWait)
			defer cancel()
			resp := openStream(t, r.a, eventsRequest(ctx, r.a, onB.c.EventsURL, "", 0))
			evs := readAll(t, resp.Body)
			if got := decode[stream.TurnStarted](t, evs[0]).TurnID; got != onA.c.TurnID {
				t.Errorf("events_url from B streams turn %s, want %s", got, onA.c.TurnID)
			}

			// No turn runs anywhere now, so the CCS has seen every dispatch there was.
			if err := r.a.Service.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if err := r.b.Service.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if ep, err := r.b.Service.Episode(t.Context(), "alice", onA.c.EpisodeID); err != nil || len(ep.Turns) != 1 {
				t.Errorf("episode = %d turns, %v; want one", len(ep.Turns), err)
			}
			if tc.together {
				checkCCSCalls(t, r.held.demo, "points.balance") // either replica may have run it
			} else {
				r.checkBRanNothing(t, "points.balance")
			}
		})
	}
}
