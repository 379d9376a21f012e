package evals

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// judgeModel answers from the reply it is shown: "good" replies get 5, others 2, and replies
// containing "fail" make the call fail. It records the prompts it saw.
type judgeModel struct {
	mu      sync.Mutex
	prompts []string
}

func (m *judgeModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var human string
	for _, p := range msgs[len(msgs)-1].Parts {
		if tp, ok := p.(llms.TextContent); ok {
			human += tp.Text
		}
	}
	m.mu.Lock()
	m.prompts = append(m.prompts, human)
	m.mu.Unlock()
	switch {
	case strings.Contains(human, "fail"):
		return nil, errors.New("provider down")
	case strings.Contains(human, "good"):
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "SCORE: 5\nClear."}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Score: 2 - vague"}}}, nil
}

func (m *judgeModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func TestJudgeAll(t *testing.T) {
	ds := &Dataset{Name: "d"}
	c := Case{ID: "c", Faults: map[string]FaultKind{"rewards": FaultError}, Turns: []Turn{
		{Message: "q1"}, {Message: "q2", AcknowledgeFailure: []string{"rewards"}}, {Message: "q3"}, {Message: "q4"},
	}}
	runs := []*caseRun{{dataset: ds, c: c, turns: []turnRun{
		{out: TurnOutput{Reply: "a good answer"}},
		{out: TurnOutput{Reply: "meh"}},
		{out: TurnOutput{Reply: "this will fail"}},
		{out: TurnOutput{Reply: ""}}, // nothing to judge
	}}}
	m := &judgeModel{}
	got := judgeAll(t.Context(), NewJudge(m, "judge-alias"), runs, 2)
	want := JudgeSummary{Status: "ok", Model: "judge-alias", Scored: 2, Errors: 1, Mean: 3.5, Histogram: map[string]int{"5": 1, "2": 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("judgeAll() mismatch (-want +got):\n%s", diff)
	}
	if runs[0].turns[0].judge != 5 || runs[0].turns[1].judge != 2 {
		t.Errorf("per-turn scores = %d, %d; want 5, 2", runs[0].turns[0].judge, runs[0].turns[1].judge)
	}
	found := false
	for _, p := range m.prompts {
		found = found || (strings.Contains(p, "q2") && strings.Contains(p, "unavailable during this turn: rewards"))
	}
	if !found {
		t.Errorf("no prompt told the judge that rewards was unavailable: %q", m.prompts)
	}
	if got := judgeAll(t.Context(), nil, runs, 2); got.Status != "skipped" {
		t.Errorf("judgeAll(nil) status = %q, want skipped", got.Status)
	}
}

func TestProgress(t *testing.T) {
	var plain bytes.Buffer
	p := newProgress(&plain, 20)
	p.start()
	for range 20 {
		p.step()
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if len(lines) != 11 || lines[0] != "evals: 0/20 cases" || lines[10] != "evals: 20/20 cases" {
		t.Errorf("plain progress = %q, want 11 lines from 0/20 to 20/20", lines)
	}
	var tty bytes.Buffer
	p = &progress{w: &tty, tty: true, total: 3}
	p.step()
	p.finish()
	if want := "\r[##########....................] 1/3 cases\n"; tty.String() != want {
		t.Errorf("tty progress = %q, want %q", tty.String(), want)
	}
	// What slows the run is said on each line.
	var noted bytes.Buffer
	p = newProgress(&noted, 1)
	p.note = func() string { return " (2 waits)" }
	p.step()
	if want := "evals: 1/1 cases (2 waits)\n"; noted.String() != want {
		t.Errorf("progress with a note = %q, want %q", noted.String(), want)
	}
	var nilProgress *progress
	nilProgress.step() // a run without a progress writer must not panic
}
