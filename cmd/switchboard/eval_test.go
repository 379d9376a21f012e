package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/evals"
)

// A misrouted turn becomes a candidate example for the agent that should have taken it, and
// --min-answer fails the run on replies that miss their assertions.
func TestEvalSuggestAndMinAnswer(t *testing.T) {
	dir := t.TempDir()
	dataset := filepath.Join(dir, "d.yaml")
	// The dataset insists that a shopping question belongs to travel: a routing miss by
	// construction, whatever the model does with it.
	body := `name: suggest
cases:
  - id: shoes
    turns:
      - {user: "any deals on running shoes?", expect: [travel], reply_mentions: ["zz-no-reply-says-this"]}
`
	if err := os.WriteFile(dataset, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	suggest := filepath.Join(dir, "out", "suggest.yaml")
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--agents", "../../demo", "--dataset", dataset, "--no-coverage-gate",
		"--min-accuracy", "0", "--min-answer", "0.5", "--suggest", suggest}, &out, &errOut, envMap(nil))
	if code != 1 || !strings.Contains(errOut.String(), "answer_accuracy") {
		t.Errorf("exit %d, stderr %q; want 1 and the answer gate named", code, errOut.String())
	}
	if !strings.Contains(out.String(), "answers 0.0% of 1 turns") {
		t.Errorf("summary lacks the answer accuracy:\n%s", out.String())
	}
	data, err := os.ReadFile(suggest)
	if err != nil {
		t.Fatalf("--suggest wrote nothing: %v", err)
	}
	var got struct {
		Suggestions []suggestionYAML `yaml:"suggestions"`
	}
	if err := yaml.Unmarshal(data, &got); err != nil {
		t.Fatalf("suggestions are not YAML: %v\n%s", err, data)
	}
	found := slices.ContainsFunc(got.Suggestions, func(s suggestionYAML) bool {
		return s.Agent == "travel" && s.Tool == "" && s.Why == "routing" && slices.Contains(s.Examples, "any deals on running shoes?")
	})
	if !found {
		t.Errorf("no routing suggestion for travel in\n%s", data)
	}
}

// The summary counts suggestions in words that fit the count: one misrouted turn makes "1
// candidate example for 1 agent or tool".
func TestEvalSuggestSummary(t *testing.T) {
	dir := t.TempDir()
	dataset := filepath.Join(dir, "d.yaml")
	body := `name: suggest
cases:
  - id: shoes
    turns:
      - {user: "any deals on running shoes?", expect: [travel]}
`
	if err := os.WriteFile(dataset, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	suggest := filepath.Join(dir, "suggest.yaml")
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--agents", "../../demo", "--dataset", dataset, "--no-coverage-gate",
		"--min-accuracy", "0", "--suggest", suggest}, &out, &errOut, envMap(nil))
	if code != 0 {
		t.Fatalf("exit %d, stderr %q; want 0", code, errOut.String())
	}
	if want := "suggestions: " + suggest + " (1 candidate example for 1 agent or tool)\n"; !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
}

// suggestionYAML is one entry of the file --suggest writes.
type suggestionYAML struct {
	Agent    string   `yaml:"agent"`
	Tool     string   `yaml:"tool"`
	Why      string   `yaml:"why"`
	Examples []string `yaml:"examples"`
}

func TestEvalMinAnswerRange(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml", "--min-answer", "85"}, &out, &errOut, envMap(nil))
	if code != 2 || !strings.Contains(errOut.String(), "--min-answer must be between 0 and 1") {
		t.Errorf("exit %d, stderr %q; want 2 and the range", code, errOut.String())
	}
}

// A --target that is no http(s) URL is a usage error that says what one looks like, not a
// server that "does not answer".
func TestEvalTargetNotAURL(t *testing.T) {
	for _, target := range []string{"localhost:8080", "127.0.0.1:8080", "ftp://host", "http://"} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), []string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml", "--target", target}, &out, &errOut, envMap(nil))
		if code != 2 || !strings.Contains(errOut.String(), "http://127.0.0.1:8080") {
			t.Errorf("eval --target %s = exit %d, stderr %q; want 2 and an example URL", target, code, errOut.String())
		}
	}
}

// A failed gate's detail (for pair coverage, a dozen missing pairs) was printed twice: in the
// summary on stdout and again in the exit message. The exit message names the gates only.
func TestEvalGateFailureSaidOnce(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--agents", "../../demo", "--dataset", "../../evals/testdata/datasets/no-route.yaml"}, &out, &errOut, envMap(nil))
	if code != 1 {
		t.Fatalf("eval = %d, want 1 (pair coverage fails); stderr:\n%s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "FAILED gate pair_coverage: 0 of 12 ordered pairs covered") {
		t.Errorf("summary lacks the failed gate with its detail:\n%s", out.String())
	}
	const want = "switchboard eval: gates failed: pair_coverage (the summary on stdout says why)\n"
	if got := errOut.String(); !strings.HasSuffix(got, want) || strings.Contains(got, "ordered pairs") {
		t.Errorf("eval stderr ends %q, want it to end %q without the detail", got, want)
	}
}

// The demo CCS's dates are relative to the day, so a reply_mentions naming one passes only on
// the day it was written; --today pins that day. Alice's points expire 21 days after it.
func TestEvalTodayPinsDemoDates(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "d.yaml")
	body := `name: today
cases:
  - id: expiry
    turns:
      - {user: "how many points do I have?", expect: [rewards], reply_mentions: ["Jan 31, 2030"]}
`
	if err := os.WriteFile(dataset, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--agents", "../../demo", "--dataset", dataset, "--no-coverage-gate",
		"--min-answer", "1", "--today", "2030-01-10"}, &out, &errOut, envMap(nil))
	if code != 0 {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut.String(), out.String())
	}
}

func TestEvalTodayUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"not a date", []string{"--today", "27/11/2026"}, "write it as YYYY-MM-DD"},
		{"with --target", []string{"--today", "2026-11-27", "--target", "http://127.0.0.1:1"}, "does not use"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml"}, tc.args...)
			if code := run(t.Context(), args, &out, &errOut, envMap(nil)); code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}

// A --baseline that does not exist is refused before any case runs, naming the flag.
func TestEvalBaselineMissing(t *testing.T) {
	for _, baseline := range []string{filepath.Join(t.TempDir(), "none.json"), t.TempDir()} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), []string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml", "--baseline", baseline}, &out, &errOut, envMap(nil))
		if code != 2 || !strings.Contains(errOut.String(), "--baseline "+baseline) || out.Len() > 0 {
			t.Errorf("--baseline %s: exit %d, stdout %q, stderr %q; want 2 naming the flag and no run", baseline, code, out.String(), errOut.String())
		}
	}
}

// failAfter is a writer that takes n bytes, then fails: stdout closed under a pipe.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, os.ErrClosed
	}
	w.n -= len(p)
	return len(p), nil
}

// The comparison with --baseline that cannot be written is an error, as the summary is.
func TestPrintEvalBaselineWriteError(t *testing.T) {
	rep := &evals.Report{Baseline: &evals.BaselineDiff{File: "base.json"}}
	var summary bytes.Buffer
	if err := rep.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	err := printEval(&failAfter{n: summary.Len()}, evalFlags{}, rep)
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("printEval = %v, want the baseline's write error", err)
	}
}
