package breaker_test

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/internal/breaker"
)

func TestAgentRefusesAtOnceWhenOpen(t *testing.T) {
	set, err := breaker.New(breaker.Config{ErrorThreshold: 2}, breaker.WithLogger(quiet))
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	calls := 0
	remote := ask.Func(func(ctx context.Context, _ ask.Question) (ask.Answer, error) {
		calls++
		if err := ctx.Err(); err != nil {
			return ask.Answer{}, err
		}
		return ask.Answer{}, errDown
	})
	agent := breaker.NewAgent(set, "shop", remote)

	// A turn the user cancelled says nothing about the remote agent.
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for range 3 {
		if _, err := agent.Ask(cancelled, question); !errors.Is(err, context.Canceled) {
			t.Fatalf("Ask(cancelled) = %v, want context.Canceled", err)
		}
	}
	for i := range 2 {
		if _, err := agent.Ask(t.Context(), question); !errors.Is(err, errDown) {
			t.Fatalf("call %d: Ask() = %v, want the remote's error", i+1, err)
		}
	}
	ans, err := agent.Ask(t.Context(), question)
	if err != nil || ans.Outcome != ask.OutcomeUnavailable {
		t.Errorf("Ask() with the breaker open = %+v, %v; want outcome unavailable and no error", ans, err)
	}
	if calls != 5 {
		t.Errorf("remote calls = %d, want 5 (none once open)", calls)
	}
	if got := set.State(breaker.AgentTarget("shop")); got != breaker.Open {
		t.Errorf("State(a2a:shop) = %v, want open", got)
	}
}
