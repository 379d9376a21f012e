package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

const runDataset = `name: fake
cases:
  - id: switch
    user: bob
    turns:
      - {user: "any deal on shoes", expect: [shop]}
      - {user: "and my points", expect: [rewards]}
  - id: wrong
    turns:
      - {user: "where is my flight", expect: [support]}
  - id: double
    turns:
      - {user: "deal and points please", expect: [shop, rewards]}
  - id: hello
    turns:
      - {user: "hello", expect: []}
  - id: faulty
    faults: {rewards: error}
    turns:
      - {user: "[faulty] deal and points", expect: [shop, rewards], acknowledge_failure: [rewards]}
  - id: faulty-two-turns
    user: bob
    faults: {support: timeout}
    turns:
      - {user: "[faulty] my flight", expect: [travel]}
      - {user: "[faulty] my order", expect: [support], acknowledge_failure: [support]}
`

func TestRunWithFakeTarget(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "fake.yaml", runDataset)
	target := &fakeTarget{}
	var progress bytes.Buffer
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rep, err := Run(t.Context(), Config{
		Datasets: []string{path}, Target: target, TargetName: "fake", SubAgents: testAgents,
		Concurrency: 2, ReportDir: filepath.Join(dir, "out"), Progress: &progress, Model: "keywords",
		Now: func() time.Time { return now },
	})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}

	// One episode per case, turns in order, as the case's user.
	wantEpisodes := map[string]bool{"any deal on shoes|and my points": true}
	found := false
	for ep, msgs := range target.episodes {
		if wantEpisodes[strings.Join(msgs, "|")] {
			found = target.users[ep] == "bob"
		}
	}
	if !found || len(target.episodes) != 6 {
		t.Errorf("episodes = %v (users %v), want 6 with the switch case's two turns in one of bob's", target.episodes, target.users)
	}
	if target.maxActive > 2 {
		t.Errorf("max concurrent turns = %d, want at most 2", target.maxActive)
	}
	if target.overlapWithFaults != 0 {
		t.Errorf("%d fault-free turns ran while faults were injected", target.overlapWithFaults)
	}
	wantInjected := [][]AgentFault{
		{{Agent: "rewards", Kind: FaultError, Enrichers: []string{"points.balance", "rewards.tier"}}},
		{{Agent: "support", Kind: FaultTimeout, Enrichers: []string{"orders.recent"}}},
	}
	if diff := cmp.Diff(wantInjected, target.injected); diff != "" {
		t.Errorf("injected faults mismatch (-want +got):\n%s", diff)
	}
	if target.clears != 2 {
		t.Errorf("ClearFaults calls = %d, want 2", target.clears)
	}
	// Faults are set and cleared for the user each case runs as.
	if diff := cmp.Diff([]string{"alice", "alice", "bob", "bob"}, target.faultUsers); diff != "" {
		t.Errorf("users of the fault calls (-want +got):\n%s", diff)
	}

	o := rep.Overall
	// 8 turns; only "wrong" misroutes (flight -> travel, expected support).
	if o.Cases != 6 || o.Turns != 8 || o.RoutingAccuracy != 7.0/8 {
		t.Errorf("overall = %+v, want 6 cases, 8 turns, accuracy 7/8", o)
	}
	if o.IntentSwitchTurns != 2 || o.IntentSwitchAccuracy != 1 {
		t.Errorf("intent switch = %d turns at %v, want 2 at 1", o.IntentSwitchTurns, o.IntentSwitchAccuracy)
	}
	if o.FanOutTurns != 2 || o.FanOutAccuracy != 1 {
		t.Errorf("fan-out = %d turns at %v, want 2 at 1", o.FanOutTurns, o.FanOutAccuracy)
	}
	if o.FailureAckTurns != 2 || o.FailureAckRate != 1 {
		t.Errorf("failure ack = %d turns at %v, want 2 at 1", o.FailureAckTurns, o.FailureAckRate)
	}
	var kinds []string
	for _, f := range rep.Failures {
		kinds = append(kinds, f.Case+":"+f.Kind)
	}
	if diff := cmp.Diff([]string{"wrong:routing"}, kinds); diff != "" {
		t.Errorf("failures mismatch (-want +got):\n%s", diff)
	}
	if rep.Passed() {
		t.Errorf("Passed() = true, want false (accuracy 87.5%% and missing pairs)")
	}
	if err := rep.GateError(); !errors.Is(err, ErrGates) || !strings.Contains(err.Error(), "pair_coverage") || !strings.Contains(err.Error(), "routing_accuracy") {
		t.Errorf("GateError() = %v, want accuracy and coverage failures", err)
	}
	if !strings.Contains(progress.String(), "evals: 6/6 cases") {
		t.Errorf("progress = %q, want a final 6/6 line", progress.String())
	}

	// report.json keeps its documented keys.
	data, err := os.ReadFile(filepath.Join(dir, "out", ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	for _, path := range []string{
		"overall.routing_accuracy", "overall.intent_switch_accuracy", "overall.cases", "overall.turns",
		"verticals.shop.precision", "verticals.shop.recall", "verticals.shop.accuracy",
		"leaks", "failures", "latency_ms.p50", "latency_ms.p95", "generated_at", "model", "confusion.matrix",
	} {
		if _, ok := lookup(raw, path); !ok {
			t.Errorf("report.json has no %s", path)
		}
	}
	if got, _ := lookup(raw, "generated_at"); got != "2026-03-01T12:00:00Z" {
		t.Errorf("generated_at = %v", got)
	}
	for _, name := range []string{ReportMarkdown, ReportHTML} {
		if fi, err := os.Stat(filepath.Join(dir, "out", name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	back, err := LoadReport(filepath.Join(dir, "out", ReportJSON))
	if err != nil {
		t.Fatalf("LoadReport() error = %v", err)
	}
	if diff := cmp.Diff(rep.Overall, back.Overall); diff != "" {
		t.Errorf("report.json round trip mismatch (-want +got):\n%s", diff)
	}
}

func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestRunTargetErrors(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "d.yaml", `name: d
cases:
  - id: two
    turns:
      - {user: "boom", expect: [shop]}
      - {user: "never sent", expect: [rewards]}
  - id: panics
    turns:
      - {user: "panic", expect: []}
`)
	target := &fakeTarget{TurnFunc: func(_ context.Context, in TurnInput) (TurnOutput, error) {
		if in.Message == "panic" {
			panic("target bug")
		}
		return TurnOutput{}, errors.New("connection refused")
	}}
	rep, err := Run(t.Context(), Config{Datasets: []string{path}, Target: target, SubAgents: testAgents, NoCoverageGate: true})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if rep.Overall.Errors != 3 || rep.Overall.RoutingAccuracy != 0 {
		t.Errorf("overall = %+v, want 3 errors and accuracy 0", rep.Overall)
	}
	var msgs []string
	for _, f := range rep.Failures {
		msgs = append(msgs, f.Case+":"+f.Kind)
	}
	if diff := cmp.Diff([]string{"two:error", "panics:error"}, msgs); diff != "" {
		t.Errorf("failures mismatch (-want +got):\n%s", diff)
	}
	if got := rep.Cases[0].Turns[1].Error; !strings.Contains(got, "not run") {
		t.Errorf("second turn error = %q, want not run", got)
	}
}

func TestRunCancelled(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "d.yaml", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, Config{Datasets: []string{path}, Target: &fakeTarget{}, SubAgents: testAgents}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestRunConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no target", Config{Datasets: []string{"x"}, SubAgents: testAgents}},
		{"no sub-agents", Config{Datasets: []string{"x"}, Target: &fakeTarget{}}},
		{"duplicate ids", Config{Datasets: []string{"x"}, Target: &fakeTarget{}, SubAgents: append(testAgents, testAgents[0])}},
		{"no datasets", Config{Target: &fakeTarget{}, SubAgents: testAgents}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Run(t.Context(), tt.cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("Run() error = %v, want ErrConfig", err)
			}
		})
	}
}

// TestRunConcurrent checks that fault-free cases really overlap: each turn waits until
// Concurrency turns are in flight, which a sequential runner never reaches.
func TestRunConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "d.yaml", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n  - id: b\n    turns: [{user: yo, expect: []}]\n")
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	go func() {
		<-arrived
		<-arrived
		close(release)
	}()
	target := &fakeTarget{}
	target.TurnFunc = func(ctx context.Context, in TurnInput) (TurnOutput, error) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
			return TurnOutput{}, errors.New("the other case never started: cases did not run concurrently")
		}
		return TurnOutput{Decision: &orchestrator.Decision{Cap: 3}}, nil
	}
	rep, err := Run(t.Context(), Config{Datasets: []string{path}, Target: target, SubAgents: testAgents, Concurrency: 2, NoCoverageGate: true})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if rep.Overall.Errors != 0 {
		t.Errorf("errors = %+v, want none", rep.Failures)
	}
}
