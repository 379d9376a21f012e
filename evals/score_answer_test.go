package evals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

func TestCheckAnswer(t *testing.T) {
	tests := []struct {
		name              string
		reply             string
		mentions, exclude []string
		wantMissing       []string
		wantPresent       []string
	}{
		{"case-insensitive", "You are a SILVER member.", []string{"silver"}, nil, nil, nil},
		{"whitespace collapsed", "Order\n  A-10231   has\tshipped", []string{"a-10231 has shipped"}, nil, nil, nil},
		{"no-break space", "12,450\u00a0points", []string{"12,450 points"}, nil, nil, nil},
		{"either alternative", "You have 2550 points to go.", []string{"2,550|2550"}, nil, nil, nil},
		{"missing", "You are a Gold member.", []string{"Silver", "Gold"}, nil, []string{"Silver"}, nil},
		{"excluded present", "You are a Gold member.", []string{"Gold"}, []string{"gold member", "Platinum"}, nil, []string{"gold member"}},
		{"curly apostrophe", "You don’t have any loans.", []string{"don't have"}, nil, nil, nil},
		{"word with a space", "No loans right now.", []string{"no "}, nil, nil, nil},
		{"word with a space is not a prefix", "Nothing found.", []string{"no "}, nil, []string{"no "}, nil},
		{"excludes only", "Your parcel is on its way.", nil, []string{"orders.recent"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			missing, present := checkAnswer(tt.reply, tt.mentions, tt.exclude)
			if diff := cmp.Diff(tt.wantMissing, missing); diff != "" {
				t.Errorf("checkAnswer() missing mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPresent, present); diff != "" {
				t.Errorf("checkAnswer() present mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Answer accuracy counts only turns with reply assertions, per expected vertical ("none" for
// turns expecting no sub-agent), and a turn that failed them is an answer failure.
func TestScoreAnswers(t *testing.T) {
	ds := &Dataset{Name: "a"}
	c := Case{ID: "c", User: "alice", Turns: []Turn{
		{Message: "tier?", Expect: []string{"rewards"}, ReplyMentions: []string{"Silver"}},
		{Message: "points?", Expect: []string{"rewards"}, ReplyMentions: []string{"12,450|12450"}},
		{Message: "deals and points", Expect: []string{"shop", "rewards"}, ReplyExcludes: []string{"error"}},
		{Message: "no assertion", Expect: []string{"travel"}},
		{Message: "hi", Expect: []string{}, ReplyExcludes: []string{"ask_"}},
	}}
	out := func(reply string, inv ...string) turnRun {
		return turnRun{out: TurnOutput{Reply: reply, Decision: &orchestrator.Decision{Invoked: inv, Cap: 3}}}
	}
	runs := []*caseRun{{dataset: ds, c: c, turns: []turnRun{
		out("You are Silver.", "rewards"),
		out("You have 12 450 points.", "rewards"),
		out("Deals: none. Points: 12450.", "shop", "rewards"),
		out("Your trip is soon.", "travel"),
		out("Hello!"),
	}}}
	rep := newScorer(testAgents, 3).score(runs)
	if got, want := rep.Overall.AnswerTurns, 4; got != want {
		t.Errorf("AnswerTurns = %d, want %d", got, want)
	}
	if got, want := rep.Overall.AnswerAccuracy, 0.75; got != want {
		t.Errorf("AnswerAccuracy = %v, want %v", got, want)
	}
	want := map[string]AnswerScore{
		"rewards": {Turns: 3, Passed: 2, Accuracy: 2.0 / 3},
		"shop":    {Turns: 1, Passed: 1, Accuracy: 1},
		"none":    {Turns: 1, Passed: 1, Accuracy: 1},
	}
	if diff := cmp.Diff(want, rep.Answers); diff != "" {
		t.Errorf("Answers mismatch (-want +got):\n%s", diff)
	}
	if got := rep.Datasets["a"]; got.AnswerTurns != 4 || got.AnswerAccuracy != 0.75 {
		t.Errorf("Datasets[a] answers = %d at %v, want 4 at 0.75", got.AnswerTurns, got.AnswerAccuracy)
	}
	var answerFailures []Failure
	for _, f := range rep.Failures {
		if f.Kind == FailAnswer {
			answerFailures = append(answerFailures, f)
		}
	}
	if len(answerFailures) != 1 || answerFailures[0].Turn != 2 || !strings.Contains(answerFailures[0].Message, `"12,450|12450"`) {
		t.Errorf("answer failures = %+v, want one for turn 2 naming the missing phrase", answerFailures)
	}
	tr := rep.Cases[0].Turns
	if tr[3].AnswerCorrect != nil {
		t.Errorf("turn without assertions: AnswerCorrect = %v, want unset", *tr[3].AnswerCorrect)
	}
	if rep.Cases[0].Passed {
		t.Error("case passed with a failed answer")
	}
}

func TestAnswerGates(t *testing.T) {
	rep := &Report{Overall: Overall{AnswerTurns: 4, AnswerAccuracy: 0.75}, Answers: map[string]AnswerScore{
		"rewards": {Turns: 3, Passed: 2, Accuracy: 2.0 / 3}, "shop": {Turns: 1, Passed: 1, Accuracy: 1},
	}}
	if got := answerGates(rep, 0); got != nil {
		t.Errorf("answerGates(min 0) = %v, want no gate", got)
	}
	got := map[string]bool{}
	for _, g := range answerGates(rep, 0.7) {
		got[g.Name] = g.Passed
	}
	want := map[string]bool{"answer_accuracy": true, "answer_accuracy:rewards": false, "answer_accuracy:shop": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answerGates(0.7) mismatch (-want +got):\n%s", diff)
	}
	none := answerGates(&Report{}, 0.5)
	if len(none) != 1 || none[0].Passed {
		t.Errorf("answerGates() without assertions = %+v, want one failed gate", none)
	}
}

// The whole run: --min-answer gates, reports show answers, and a baseline comparison sees a
// falling answer accuracy as a regression.
func TestRunGatesOnAnswers(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.yaml", `name: answers
cases:
  - id: deal
    turns:
      - {user: "any deal on shoes", expect: [shop], reply_mentions: ["deal info"]}
  - id: points
    turns:
      - {user: "my points", expect: [rewards], reply_mentions: ["Silver"], reply_excludes: ["points info"]}
`)
	run := func(min float64, base string) *Report {
		t.Helper()
		rep, err := Run(t.Context(), Config{Datasets: []string{path}, Target: &fakeTarget{}, SubAgents: testAgents,
			MinAnswer: min, NoCoverageGate: true, ReportDir: filepath.Join(dir, "out"), Baseline: base})
		if err != nil {
			t.Fatalf("Run() error = %v", err)
		}
		return rep
	}
	rep := run(0, "")
	if !rep.Passed() || rep.Overall.AnswerAccuracy != 0.5 {
		t.Fatalf("without --min-answer: passed %v, answers %v; want passed, 0.5", rep.Passed(), rep.Overall.AnswerAccuracy)
	}
	rep = run(0.6, "")
	if err := rep.GateError(); err == nil || !strings.Contains(err.Error(), "answer_accuracy:rewards") {
		t.Errorf("GateError() = %v, want the rewards answer gate failed", err)
	}
	for _, name := range []string{"report.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, "out", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "0.0% (0/1)") {
			t.Errorf("%s shows no answer accuracy per vertical", name)
		}
	}
	base := filepath.Join(t.TempDir(), "base.json")
	rep.Overall.AnswerAccuracy = 1
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(base), filepath.Base(base), string(js))
	again := run(0, base)
	if regs := again.Baseline.QualityRegressions(); !containsPrefix(regs, "overall.answer_accuracy") {
		t.Errorf("QualityRegressions() = %q, want overall.answer_accuracy", regs)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
