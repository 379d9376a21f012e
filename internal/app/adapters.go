package app

import (
	"context"
	"os"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
	"github.com/switchboard-ai/switchboard/subagents"
)

type llmModel = llms.Model

// appStore is what the service needs from a store.
type appStore interface {
	orchestrator.Store
	stream.LogStore
}

// subAgent injects a sub-agent runtime (local or remote) into the orchestrator, which knows
// only its own small interface (the orchestrator never imports subagents).
type subAgent struct{ rt subagents.Runtime }

var _ orchestrator.SubAgent = subAgent{}

func (s subAgent) Ask(ctx context.Context, q orchestrator.Question) (orchestrator.Answer, error) {
	r, err := s.rt.Ask(ctx, subagents.Request{
		Request:   q.Request,
		Inherited: subagents.Inherited(q.Inherited),
		Emit:      q.Emit,
	})
	return orchestrator.Answer{
		Text: r.Text, Outcome: orchestrator.Outcome(r.Outcome), Components: r.Components, Busy: r.Busy,
	}, err
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
