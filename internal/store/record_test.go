package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// The memory store copies decisions without JSON; what it gives back must be what the
// database stores give back through their JSON column.
func TestCloneDecisionMatchesJSON(t *testing.T) {
	started := time.Now() // with a monotonic reading, as the orchestrator records it
	for _, d := range []*orchestrator.Decision{
		{},
		{IntentCount: 4, Cap: 3, CapBehaviour: "over", Invoked: []string{"shop", "rewards", "travel"}, Dropped: []string{"ask_support"},
			Agents: []orchestrator.AgentOutcome{
				{Agent: "shop", Outcome: ask.OutcomeOK, Started: started, Latency: 1234567891, Tools: []string{"search_offers", "search_offers"}},
				{Agent: "rewards", Outcome: ask.OutcomeTimeout, Started: started.Add(time.Nanosecond), Latency: 3 * time.Nanosecond},
				{Agent: "travel", Outcome: ask.OutcomeCancelled, Started: started.UTC(), Latency: 8*time.Second + 1, Tools: []string{}},
			}},
		{Invoked: []string{}, Dropped: []string{}, Agents: []orchestrator.AgentOutcome{}},
	} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		want := new(orchestrator.Decision)
		if err := json.Unmarshal(b, want); err != nil {
			t.Fatal(err)
		}
		got, err := cloneDecision(d)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cloneDecision(%+v) differs from the JSON round trip (-json +clone):\n%s", d, diff)
		}
		if len(d.Invoked) > 0 && &got.Invoked[0] == &d.Invoked[0] {
			t.Error("the copy shares the caller's Invoked slice")
		}
		if len(d.Agents) > 0 && len(d.Agents[0].Tools) > 0 && &got.Agents[0].Tools[0] == &d.Agents[0].Tools[0] {
			t.Error("the copy shares the caller's Tools slice")
		}
	}
}
