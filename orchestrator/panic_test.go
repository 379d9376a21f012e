package orchestrator

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/stream"
)

// A panic in the orchestrator's own model call fails that turn in plain words and leaves the
// service serving the next one.
func TestPanickingModelFailsOnlyItsTurn(t *testing.T) {
	panicking := true
	model := &scriptedModel{
		route: func(msgs []llms.MessageContent, o llms.CallOptions) (*llms.ContentResponse, error) {
			if panicking {
				panic("model exploded")
			}
			return textResponse("Hello again."), nil
		},
	}
	orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	store := &fakeStore{}
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	var logs bytes.Buffer
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for r, err := range hub.Follow(t.Context(), first.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, r.Event.Name())
		if e, ok := r.Event.(stream.Error); ok && strings.Contains(e.Message, "exploded") {
			t.Errorf("the panic reached the user: %q", e.Message)
		}
		if tc, ok := r.Event.(stream.TurnCompleted); ok && tc.Outcome != stream.OutcomeFailed {
			t.Errorf("turn.completed outcome = %s, want failed", tc.Outcome)
		}
	}
	if got := strings.Join(names, " "); got != "turn.started error turn.completed" {
		t.Errorf("events = %s, want turn.started error turn.completed", got)
	}
	rec, err := store.Turn(t.Context(), "alice", first.ID)
	if err != nil || rec.State != TurnCompleted || rec.Outcome != stream.OutcomeFailed {
		t.Errorf("stored turn = %+v, %v; want completed, failed", rec, err)
	}
	if !strings.Contains(logs.String(), `"alert":"turn_panic"`) {
		t.Errorf("no alert logged: %s", logs.String())
	}

	panicking = false
	second, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hi again"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := store.Turn(t.Context(), "alice", second.ID); rec.Outcome != stream.OutcomeOK {
		t.Errorf("the next turn ended %s, want ok", rec.Outcome)
	}
}
