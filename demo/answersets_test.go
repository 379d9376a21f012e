package demo_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/evals"
)

// TestDemoAnswerSets replays the demo answer sets through the whole service in process (the
// offline model, the embedded demo CCS, the agents of this folder), as `switchboard eval
// --agents demo` does, and checks how many turns of each reply as their assertions ask: a
// change to a description, an example or a template that answers fewer fails, its misses
// logged. answers-dev2.yaml to answers-dev8.yaml were written before the changes they judge,
// so not every turn is answered yet.
func TestDemoAnswerSets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole service")
	}
	tests := []struct {
		file string
		// min is how many turns answer as asserted today.
		min int
	}{
		{file: "testdata/answers-dev.yaml", min: minAnswersDev},
		{file: "testdata/answers-dev2.yaml", min: minAnswersDev2},
		{file: "testdata/answers-dev3.yaml", min: minAnswersDev3},
		{file: "testdata/answers-dev4.yaml", min: minAnswersDev4},
		{file: "testdata/answers-dev5.yaml", min: minAnswersDev5},
		{file: "testdata/answers-dev6.yaml", min: minAnswersDev6},
		{file: "testdata/answers-dev7.yaml", min: minAnswersDev7},
		{file: "testdata/answers-dev8.yaml", min: minAnswersDev8},
	}
	agents, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cfg := switchboard.DefaultConfig()
	cfg.Store.Driver = "memory"
	cfg.Limits = switchboard.LimitsConfig{} // as in-process evals run: no per-user rate limit
	srv, err := switchboard.New(t.Context(), switchboard.Options{Agents: agents, Config: &cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("switchboard.New(%s) = %v", agents, err)
	}
	t.Cleanup(func() { _ = srv.Close(t.Context()) })
	parts := srv.Parts()
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			rep, err := evals.Run(t.Context(), evals.Config{
				Datasets:       []string{tt.file},
				Target:         evals.NewServiceTarget(parts.Service, parts.Hub, nil),
				SubAgents:      evals.AgentInfos(parts.Orchestrator.SubAgents()),
				MinAccuracy:    0.01,
				NoCoverageGate: true,
			})
			if err != nil {
				t.Fatalf("evals.Run(%s) = %v", tt.file, err)
			}
			passed, total := 0, 0
			for _, c := range rep.Cases {
				for _, turn := range c.Turns {
					if turn.AnswerCorrect == nil {
						continue
					}
					total++
					if *turn.AnswerCorrect {
						passed++
					} else {
						t.Logf("%s turn %d %q missed; reply:\n%s", c.ID, turn.Index, turn.Message, turn.Reply)
					}
				}
			}
			t.Logf("%s: %d of %d turns answer as asserted", tt.file, passed, total)
			if passed < tt.min {
				t.Errorf("%s: %d of %d turns answer as asserted, want at least %d", tt.file, passed, total, tt.min)
			}
		})
	}
}

// minAnswersDev is how many of the 50 turns of answers-dev.yaml answer today: 45 before the
// second set's round, 49 after it, 50 after the answer model's composing fixes.
const minAnswersDev = 50

// minAnswersDev2 is how many of the 73 turns of answers-dev2.yaml answer today: 48 when it was
// written, before the changes it judges; 70 after answers-dev3's first round ("how long have i
// been a member" reaches the profile); 71 after its third (a follow-up picking among the
// earlier answer asks the earlier tool).
const minAnswersDev2 = 71

// minAnswersDev3 is how many of the 66 turns of answers-dev3.yaml answer today: 54 when it was
// written, before the changes it judges; 58 after its first round, 60 after its second, 63
// after its third (a follow-up's place, no search in a look elsewhere, a thing another
// result holds as written).
const minAnswersDev3 = 63

// minAnswersDev4 is how many of the 87 turns of answers-dev4.yaml answer today: 66 when it was
// written, before the changes it judges; 73 after the agents' examples of its first round, 77
// after its second (tools' examples, a coupon expiring last, a refund's date when asked when),
// 78 after its third (the sub-agents' prompts hold the words users ask with, so that a result
// answering them is not joined by the agent's other tools), 79 once matching keeps the records
// sharing the most words with the question, 81 once a template's statement of data holding
// nothing asked gives way as the model's narration does.
const minAnswersDev4 = 81

// minAnswersDev5 is how many of the 40 turns of answers-dev5.yaml (the first minute's
// questions, half of which the data cannot answer) answer today: 22 when it was written,
// before the changes it judges; 27 once a template's statement of data holding nothing asked
// gives way as the model's narration does; 30 once the profile's template says where a
// password reset goes; 31 once "wheres my stuff" is read as asking after the user's things;
// 38 once the support and travel templates say what their data does not hold (shipping
// abroad, gift wrap, payments, customer service, closing an account, baggage) and a card or
// a payment reaches support; 39 once a search for a kind of discount says which it looked for.
const minAnswersDev5 = 39

// minAnswersDev6 is how many of the 51 turns of answers-dev6.yaml (a new user's first minute:
// policies, payments, travel questions the bookings cannot answer, four conversations)
// answer today: 39 when it was written, before the changes it judges; 48 once the support,
// travel and rewards templates say what their data does not hold and a card or a payment
// reaches support.
const minAnswersDev6 = 48

// minAnswersDev7 is how many of the 24 turns of answers-dev7.yaml (acts on the user's own
// things, conversations moving between agents, trade words of services the demo has not)
// answer today: 18 when it was written, before the changes it judges; 19 once a sub-agent's
// inherited summary of the conversation no longer counts as its trade's words; 20 once the
// returns template tells a question about the return window that it holds no policy; 21 once
// a word a record holds only in parentheses ("(wrong size)") no longer names it alone.
const minAnswersDev7 = 21

// minAnswersDev8 is how many of the 35 turns of answers-dev8.yaml (follow-ups without a
// subject of their own, in conversations of two to four turns) answer today: 25 when it was
// written, before the changes it judges; 27 once a place may follow "for" ("and for
// chicago?") and the unit a price is asked per ("a night") is no place; 30 once a follow-up
// after one that named its own thing ("and the keyboard", "which one works on shoes") leans on
// that thing rather than on the conversation's first request; 31 once comparatives and
// "nearby" ("is there anything cheaper nearby" after a hotel's price) name no new subject.
const minAnswersDev8 = 31
