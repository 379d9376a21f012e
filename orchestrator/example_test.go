package orchestrator_test

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// A bound orchestrator answers a turn: the offline model routes to the sub-agent whose
// description fits, the sub-agent (a plain function here) answers, and the orchestrator
// composes the reply.
func ExampleOrchestrator_Run() {
	concierge := &definitions.Definition{
		Kind: definitions.KindOrchestrator, ID: "concierge", Prompt: "You are a helpful concierge.",
		SubAgents: []string{"weather"}, FanOutCap: 3, Enabled: definitions.Enabled{Value: true},
	}
	weather := &definitions.Definition{
		Kind: definitions.KindSubAgent, ID: "weather", Name: "Weather", Timeout: time.Second,
		Description: "Forecasts: rain, sunshine, temperature and wind for the days ahead.",
		Examples:    []string{"will it rain tomorrow"}, Enabled: definitions.Enabled{Value: true},
	}
	o, err := orchestrator.New(orchestrator.Config{
		Definition: concierge,
		SubAgents:  []*definitions.Definition{weather},
		Runtimes: map[string]ask.Agent{
			"weather": ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
				return ask.Answer{Text: "Light rain tomorrow, 12°C."}, nil
			}),
		},
		Model: offline.New(),
	})
	if err != nil {
		panic(err)
	}
	res, err := o.Run(context.Background(), orchestrator.Turn{ID: "t1", Principal: "alice", Message: "is it going to rain tomorrow?"},
		stream.SinkFunc(func(stream.Event) {}))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Decision.Invoked, res.Outcome)
	fmt.Println(res.Reply)
	// Output:
	// [weather] ok
	// Light rain tomorrow, 12°C.
}
