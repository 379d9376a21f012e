package evals

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var suggestAgents = []AgentInfo{
	{ID: "shop", ToolNames: []string{"search_offers", "list_coupons"}, Enrichers: []string{"offers.search", "coupons.list"}},
	{ID: "rewards", ToolNames: []string{"get_points_balance", "get_tier", "browse_rewards"}, Enrichers: []string{"points.balance", "rewards.tier", "rewards.catalog"}},
}

// suggestData is a context service that knows bob's points, tier and catalog and nothing
// else; the catalog holds 12000, which must not count as the balance's 1200.
func suggestData(_ context.Context, user, enricher string) ([]byte, error) {
	data := map[string]string{
		"points.balance":  `{"points": 48900, "expiring_soon": 1200}`,
		"rewards.tier":    `{"name": "Gold", "next_tier": "Platinum", "points_to_next": 11100}`,
		"rewards.catalog": `{"rewards": [{"name": "Airport lounge day pass", "cost": 12000}]}`,
	}
	if d, ok := data[enricher]; ok && user == "bob" {
		return []byte(d), nil
	}
	return nil, errors.New("needs parameters")
}

func TestSuggest(t *testing.T) {
	no, yes := false, true
	rep := &Report{Cases: []CaseReport{{Dataset: "d", ID: "c", User: "bob", Turns: []TurnReport{
		// misrouted: rewards should have taken it
		{Index: 1, Message: "when do they run out", Expected: []string{"rewards"}, Invoked: []string{"shop"}},
		// routed well, answered badly from the balance: the missing facts are in get_tier's data
		{Index: 2, Message: "am I gold or platinum", Expected: []string{"rewards"}, Invoked: []string{"rewards"}, RoutingCorrect: true,
			AnswerCorrect: &no, ReplyMissing: []string{"Gold", "11,100|11100"},
			Agents: []AgentReport{{Agent: "rewards", Outcome: "ok", Tools: []string{"get_points_balance"}}}},
		// answered badly with facts no tool holds: the agent
		{Index: 3, Message: "what's my member number", Expected: []string{"rewards"}, Invoked: []string{"rewards"}, RoutingCorrect: true,
			AnswerCorrect: &no, ReplyMissing: []string{"M-42"}},
		// only an excluded phrase: nothing to trace, the agent
		{Index: 4, Message: "points please", Expected: []string{"rewards"}, Invoked: []string{"rewards"}, RoutingCorrect: true,
			AnswerCorrect: &no, ReplyPresent: []string{"loyalty-ledger"}},
		// "1200" is in the balance and, as part of 12000, in the catalog: the balance
		{Index: 5, Message: "how many expire", Expected: []string{"rewards"}, Invoked: []string{"rewards"}, RoutingCorrect: true,
			AnswerCorrect: &no, ReplyMissing: []string{"1,200|1200"},
			Agents: []AgentReport{{Agent: "rewards", Outcome: "ok", Tools: []string{"get_points_balance"}}}},
		// fine, and a turn that expected nobody: no suggestion
		{Index: 6, Message: "any deals", Expected: []string{"shop"}, Invoked: []string{"shop"}, RoutingCorrect: true, AnswerCorrect: &yes},
		{Index: 7, Message: "hi", Expected: []string{}, Invoked: []string{"shop"}},
		// the same message again is suggested once
		{Index: 8, Message: "when do they run out", Expected: []string{"rewards"}, Invoked: []string{}},
	}}}}
	got := Suggest(t.Context(), rep, suggestAgents, suggestData)
	type row struct{ Agent, Tool, Reason, Examples string }
	var rows []row
	for _, s := range got {
		var ex []string
		for _, e := range s.Examples {
			ex = append(ex, e.Text)
		}
		rows = append(rows, row{s.Agent, s.Tool, s.Reason, strings.Join(ex, "; ")})
	}
	want := []row{
		{"rewards", "", "routing", "when do they run out"},
		{"rewards", "get_tier", "answer", "am I gold or platinum"},
		{"rewards", "", "answer", "what's my member number; points please"},
		{"rewards", "get_points_balance", "answer", "how many expire"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Suggest() mismatch (-want +got):\n%s", diff)
	}
	if got[0].Examples[0].From != "d/c turn 1" || got[0].Examples[0].Note != "reached {shop}" {
		t.Errorf("routing example = %+v, want from d/c turn 1, reached {shop}", got[0].Examples[0])
	}
	// An answer from another tool than the one holding what it missed says which it called;
	// one from the right tool does not.
	if note := got[1].Examples[0].Note; !strings.HasSuffix(note, "; it called get_points_balance") {
		t.Errorf("get_tier example's note = %q, want it to name the tool called", note)
	}
	if note := got[3].Examples[0].Note; strings.Contains(note, "it called") {
		t.Errorf("get_points_balance example's note = %q, want no tool named", note)
	}

	// Without data (an HTTP target), answer misses go to the agent.
	for _, s := range Suggest(t.Context(), rep, suggestAgents, nil) {
		if s.Tool != "" {
			t.Errorf("Suggest() without data named tool %q", s.Tool)
		}
	}
}

// The file is YAML a reader can parse back, one entry per agent or tool, examples as written.
func TestWriteSuggestions(t *testing.T) {
	in := []Suggestion{
		{Agent: "rewards", Reason: FailRouting, Examples: []SuggestedExample{{Text: `when do they "run out": #1`, From: "d/c turn 1", Note: "reached {shop}\nsecond line"}}},
		{Agent: "rewards", Tool: "get_tier", Reason: FailAnswer, Examples: []SuggestedExample{{Text: "am I gold", From: "d/c turn 2", Note: `the reply does not mention "Gold"`}}},
	}
	var buf bytes.Buffer
	if err := WriteSuggestions(&buf, in); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Suggestions []struct {
			Agent    string   `yaml:"agent"`
			Tool     string   `yaml:"tool"`
			Why      string   `yaml:"why"`
			Examples []string `yaml:"examples"`
		} `yaml:"suggestions"`
	}
	if err := yaml.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("suggestions are not YAML: %v\n%s", err, buf.String())
	}
	if len(back.Suggestions) != 2 || back.Suggestions[0].Examples[0] != in[0].Examples[0].Text ||
		back.Suggestions[1].Tool != "get_tier" || back.Suggestions[1].Why != "answer" {
		t.Errorf("parsed back %+v from\n%s", back, buf.String())
	}
	if !strings.Contains(buf.String(), "# d/c turn 1: reached {shop} second line") {
		t.Errorf("the example's comment is missing or broken:\n%s", buf.String())
	}

	buf.Reset()
	if err := WriteSuggestions(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "suggestions: []") {
		t.Errorf("empty suggestions = %q, want suggestions: []", buf.String())
	}
}
