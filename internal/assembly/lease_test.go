package assembly

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// Replica A stops renewing its lease (as when it dies, or loses the database) while its turn
// waits on the CCS: replica B ends the turn once the lease has run out, and B's client gets a
// plain-words error and turn.completed (failed). When A, alive after all, then finishes the
// turn, the failed outcome stands: A's own client ends on failed too.
func TestReplicaEndsTurnOfALapsedLease(t *testing.T) {
	dsn := replicaSchemaDSN(t)
	held := newHeldCCS(t)
	edit := func(c *config.Config) {
		c.Store = config.Store{Driver: "postgres", DSN: dsn}
		c.CCS.URL = held.srv.URL
		c.Instance = config.Instance{Heartbeat: 50 * time.Millisecond, Lease: 300 * time.Millisecond}
	}
	a := newStreamApp(t, streamSetup{edit: edit})
	b := newStreamApp(t, streamSetup{edit: edit})
	held.hold("offers.search")
	tok := a.token(t, "alice")
	c := startTurn(t, a, tok, "any deals on running shoes?")
	held.waitUntil(t, "A's turn is inside its CCS call", func() bool { return held.running("offers.search") == 1 })

	ctx, cancel := context.WithTimeout(t.Context(), streamWait)
	defer cancel()
	fromA := openStream(t, a, eventsRequest(ctx, a, c.EventsURL, "", 0))
	defer fromA.Body.Close()

	// A's heartbeat stops; its turn goes on running.
	a.sweeper.cancel()
	<-a.sweeper.done

	resp := openStream(t, b, eventsRequest(ctx, b, c.EventsURL, "", 0))
	var onB []stream.WireEvent
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatalf("reading B's stream: %v", err)
		}
		onB = append(onB, ev)
	}
	resp.Body.Close()
	n := len(onB)
	if n < 2 || onB[n-2].Name != "error" || onB[n-1].Name != "turn.completed" ||
		decode[stream.TurnCompleted](t, onB[n-1]).Outcome != stream.OutcomeFailed {
		t.Fatalf("B's stream = %+v, want it to end on an error and turn.completed failed", fromWire(onB))
	}
	if got, err := b.Service.Turn(ctx, "alice", c.TurnID); err != nil || got.Outcome != stream.OutcomeFailed {
		t.Fatalf("turn on B = %+v, %v; want failed", got, err)
	}
	if got := b.do(t, http.MethodDelete, "/v1/turns/"+c.TurnID, tok, nil, nil); got.StatusCode != http.StatusConflict || errorCode(t, got) != "turn_finished" {
		t.Errorf("DELETE on B = %d, want 409 turn_finished", got.StatusCode)
	}

	// A finishes late: its end is refused, and its client is told the turn failed.
	held.release("offers.search")
	var onA []stream.WireEvent
	for ev, err := range stream.ReadEvents(fromA.Body) {
		if err != nil {
			t.Fatalf("reading A's stream: %v", err)
		}
		onA = append(onA, ev)
	}
	if n := len(onA); n < 2 || onA[n-2].Name != "error" || decode[stream.TurnCompleted](t, onA[n-1]).Outcome != stream.OutcomeFailed {
		t.Errorf("A's stream ends %+v, want an error and turn.completed failed", fromWire(onA[max(0, n-2):]))
	}
	if err := a.Service.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Service.Turn(ctx, "alice", c.TurnID); err != nil || got.State != orchestrator.TurnCompleted || got.Outcome != stream.OutcomeFailed {
		t.Errorf("turn after A's late end = %s %s, %v; want completed, failed", got.State, got.Outcome, err)
	}
}
