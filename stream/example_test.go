package stream_test

import (
	"context"
	"fmt"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// Example wires one turn the way the orchestrator does: sub-agents' typed events go through
// the Renderer, everything the user sees goes through the Guard, and the TurnLog records it
// for every follower.
func Example() {
	hub := stream.NewHub(stream.NewMemoryLogStore())
	log := hub.Open("turn-1")
	guard := stream.NewGuard(log, stream.GuardConfig{Forbidden: []string{"offers.search"}})
	renderer := stream.NewRenderer(stream.RendererConfig{
		Vocabulary: map[string]map[string]definitions.StatusEvent{
			"shop": {"searching_offers": {Text: "Searching offers for {query}…", Policy: definitions.PolicyTransform}},
		},
		Out: guard,
	})

	guard.Publish(stream.TurnStarted{TurnID: "turn-1", EpisodeID: "ep-1"})
	renderer.Emit(stream.Emission{AgentID: "shop", Event: "searching_offers", Params: map[string]string{"query": "running shoes"}})
	renderer.Emit(stream.Emission{AgentID: "shop", Event: "not_declared"})
	renderer.Close() // before the reply starts
	guard.Publish(stream.ReplyDelta{Text: "Found 3 offers (offers.search returned HTTP 200)."})
	guard.Publish(stream.ReplyCompleted{Text: "Found 3 offers (offers.search returned HTTP 200)."})
	guard.Publish(stream.TurnCompleted{TurnID: "turn-1", Outcome: stream.OutcomeOK})

	for rec, err := range hub.Follow(context.Background(), "turn-1", 0) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		name, data, _ := stream.Marshal(rec.Event)
		fmt.Printf("%d %s %s\n", rec.ID, name, data)
	}
	// Output:
	// 1 turn.started {"turn_id":"turn-1","episode_id":"ep-1"}
	// 2 status {"text":"Searching offers for running shoes…","sources":[{"agent_id":"shop","event":"searching_offers"}]}
	// 3 reply.delta {"text":"Found 3 offers ( returned)."}
	// 4 reply.completed {"text":"Found 3 offers ( returned)."}
	// 5 turn.completed {"turn_id":"turn-1","outcome":"ok"}
}
