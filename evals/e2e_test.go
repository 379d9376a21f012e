package evals_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/evals"
)

// newApp assembles the real service on the offline model, the embedded demo CCS and an
// in-memory store: what `switchboard serve` runs, without network.
func newApp(t *testing.T) (*switchboard.Server, switchboard.Parts) {
	t.Helper()
	cfg := switchboard.DefaultConfig()
	cfg.Store = switchboard.StoreConfig{Driver: "memory"}
	cfg.Limits = switchboard.LimitsConfig{} // as `switchboard eval` runs in-process: no per-user limits
	sb, err := switchboard.New(t.Context(), switchboard.Options{Config: &cfg, Agents: "../demo", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("switchboard.New() error = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // running turns are cancelled at once
		_ = sb.Close(ctx)
	})
	return sb, sb.Parts()
}

func subAgents(a switchboard.Parts) []evals.AgentInfo {
	return evals.AgentInfos(a.Orchestrator.SubAgents())
}

const smokeDataset = `name: smoke
cases:
  - id: switch
    user: bob
    turns:
      - {user: "any deals on running shoes?", expect: [shop]}
      - {user: "and how many points do i have?", expect: [rewards]}
  - id: hello
    turns:
      - {user: "hi there", expect: []}
  - id: rewards-down
    faults: {rewards: error}
    turns:
      - {user: "show offers on headphones and my points", expect: [shop, rewards], acknowledge_failure: [rewards]}
`

// TestTargetsEndToEnd runs the same small dataset in-process and over HTTP+SSE against the
// assembled service. It asserts what the harness must get right (episodes, routing records,
// events, faults reaching the demo CCS), not the offline model's wording.
func TestTargetsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("assembles the whole service")
	}
	sb, a := newApp(t)
	agents := subAgents(a)
	path := filepath.Join(t.TempDir(), "smoke.yaml")
	if err := writeString(path, smokeDataset); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	defer srv.Close()
	httpTarget, err := evals.NewHTTPTarget(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]evals.Target{
		"in-process": evals.NewServiceTarget(a.Service, a.Hub, evals.NewDemoInjector(a.DemoCCS)),
		"http":       httpTarget,
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			rep, err := evals.Run(t.Context(), evals.Config{
				Datasets: []string{path}, Target: target, TargetName: name, SubAgents: agents,
				Concurrency: 2, NoCoverageGate: true, ReportDir: t.TempDir(),
			})
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if rep.Overall.Errors != 0 {
				t.Fatalf("target errors: %+v", rep.Failures)
			}
			if rep.Overall.Turns != 4 || rep.Leaks != 0 {
				t.Errorf("turns = %d, leaks = %d (%+v); want 4 and 0", rep.Overall.Turns, rep.Leaks, rep.LeakFindings)
			}
			for _, c := range rep.Cases {
				for _, tr := range c.Turns {
					if tr.Outcome == "" || tr.Reply == "" || tr.LatencyMS <= 0 {
						t.Errorf("%s turn %d: outcome %q, reply %q, latency %v; want all set", c.ID, tr.Index, tr.Outcome, tr.Reply, tr.LatencyMS)
					}
				}
			}
			// The injected fault reached the rewards sub-agent: its outcome is not ok.
			fault := rep.Cases[2].Turns[0]
			for _, ag := range fault.Agents {
				if ag.Agent == "rewards" && ag.Outcome == "ok" {
					t.Errorf("rewards outcome under an error fault = ok, want unavailable or failed")
				}
			}
			t.Logf("%s: accuracy %.2f, ack %.2f, p50 %.0fms", name, rep.Overall.RoutingAccuracy, rep.Overall.FailureAckRate, rep.LatencyMS.P50)
		})
	}
}

// TestShippedDatasetsInProcess replays every shipped dataset through the assembled service on
// the offline model. It holds the harness to what does not depend on routing quality: every
// turn runs, nothing internal leaks, every fault case is scored for acknowledgment and the
// intent-switch set covers every pair. Accuracy itself is the report's business, not a test's.
func TestShippedDatasetsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every shipped dataset, including sub-agent timeouts")
	}
	_, a := newApp(t)
	paths, err := filepath.Glob("testdata/datasets/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no datasets: %v", err)
	}
	dir := t.TempDir()
	rep, err := evals.Run(t.Context(), evals.Config{
		Datasets: paths, Target: evals.NewServiceTarget(a.Service, a.Hub, evals.NewDemoInjector(a.DemoCCS)),
		TargetName: "in-process", SubAgents: subAgents(a), Concurrency: 4, ReportDir: dir, Model: "offline",
	})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if rep.Overall.Errors != 0 || rep.Leaks != 0 {
		t.Errorf("errors = %d, leaks = %d (%+v)", rep.Overall.Errors, rep.Leaks, rep.LeakFindings)
	}
	if len(rep.Coverage.Missing) != 0 || rep.Overall.FailureAckTurns < 10 || rep.Overall.FanOutTurns < 15 {
		t.Errorf("coverage missing %v, %d acknowledgment turns, %d fan-out turns", rep.Coverage.Missing, rep.Overall.FailureAckTurns, rep.Overall.FanOutTurns)
	}
	// A second run compared with the first: the offline model is deterministic, so routing
	// does not move and no case regresses.
	again, err := evals.Run(t.Context(), evals.Config{
		Datasets: paths[:1], Target: evals.NewServiceTarget(a.Service, a.Hub, evals.NewDemoInjector(a.DemoCCS)),
		SubAgents: subAgents(a), Baseline: filepath.Join(dir, evals.ReportJSON), NoCoverageGate: true,
	})
	if err != nil {
		t.Fatalf("second Run() error = %v", err)
	}
	if again.Baseline == nil || len(again.Baseline.Regressed) != 0 || len(again.Baseline.Fixed) != 0 {
		t.Errorf("baseline diff = %+v, want no case changes", again.Baseline)
	}
	t.Logf("routing %.3f, intent switch %.3f, fan-out %.3f, ack %.3f; gates: %v",
		rep.Overall.RoutingAccuracy, rep.Overall.IntentSwitchAccuracy, rep.Overall.FanOutAccuracy, rep.Overall.FailureAckRate, rep.GateError())
}
