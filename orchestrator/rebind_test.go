package orchestrator

import (
	"context"
	"log/slog"
	"testing"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/stream"
)

// A reload swaps the orchestrator while a turn runs: that turn finishes with the sub-agents it
// started with, and the next turn uses the new ones.
func TestRebindKeepsRunningTurnsOnTheirSet(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	blocking := ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return ask.Answer{}, ctx.Err()
		}
		return ask.Answer{Text: "old shop answer", Outcome: ask.OutcomeOK}, nil
	})
	model := &scriptedModel{route: callTools("ask_shop"), compose: composeAll}
	oldOrc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": blocking, "rewards": answer("b"), "support": answer("c")})
	newOrc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("new shop answer"), "rewards": answer("b"), "support": answer("c")})

	store := &fakeStore{}
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	svc, err := NewService(ServiceConfig{Orchestrator: oldOrc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "deals?"})
	if err != nil {
		t.Fatal(err)
	}
	<-entered // the first turn is inside the old shop sub-agent
	if err := svc.Rebind(newOrc, nil); err != nil {
		t.Fatal(err)
	}
	if svc.Orchestrator() != newOrc {
		t.Fatal("Orchestrator() does not return the rebound orchestrator")
	}
	close(release)
	second, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "deals again?"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, want string
	}{{first.ID, "Composed: old shop answer"}, {second.ID, "Composed: new shop answer"}} {
		rec, err := store.Turn(t.Context(), "alice", c.id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Reply != c.want {
			t.Errorf("turn %s reply = %q, want %q", c.id, rec.Reply, c.want)
		}
	}
	if err := svc.Rebind(nil, nil); err == nil {
		t.Error("Rebind(nil) = nil, want an error")
	}
}
