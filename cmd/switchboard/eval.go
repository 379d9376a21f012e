package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/evals"
	"github.com/switchboard-ai/switchboard/internal/llm"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// evalFlags are the eval command's flags, checked.
type evalFlags struct {
	datasets           stringList
	agentsDir, cfgPath string
	target, reportDir  string
	minAcc, minAnswer  float64
	suggest            string
	concurrency        int
	baseline           string
	failOnRegression   bool
	noCoverage         bool
	judge              string
	today              string    // --today as given
	todayDate          time.Time // today parsed; zero: the demo counts from the clock's day
}

func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	f, err := parseEvalFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.target != "" {
		if err := reachable(ctx, f.target); err != nil {
			return err
		}
	}
	sb, cfg, err := evalService(ctx, f, lookup)
	if err != nil {
		return err
	}
	defer sb.Close(ctx)
	if err := pinDemoCalendar(sb, f.todayDate); err != nil {
		return err
	}
	rc, err := evalConfig(ctx, f, sb, cfg, stderr)
	if err != nil {
		return err
	}
	rep, err := evals.Run(ctx, rc)
	if err != nil {
		return err
	}
	if err := printEval(stdout, f, rep); err != nil {
		return err
	}
	if f.suggest != "" {
		if err := writeSuggestions(ctx, stdout, f, rep, rc.SubAgents, sb.Parts(), cfg); err != nil {
			return err
		}
	}
	return evalVerdict(f, rep)
}

// pinDemoCalendar moves the embedded demo CCS's calendar to day, when one is given.
func pinDemoCalendar(sb *switchboard.Server, day time.Time) error {
	if day.IsZero() {
		return nil
	}
	demo := sb.Parts().DemoCCS
	if demo == nil {
		return usageError("--today moves the embedded demo CCS's calendar, and this config names a CCS of its own (ccs.url)")
	}
	demo.SetToday(day)
	return nil
}

// parseEvalFlags reads the command line, where datasets may also follow the flags.
func parseEvalFlags(args []string, stderr io.Writer) (evalFlags, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f evalFlags
	fs.Var(&f.datasets, "dataset", "eval dataset YAML (repeatable; extra arguments are datasets too)")
	fs.StringVar(&f.agentsDir, "agents", defaultAgentsDir, "folder of Agent Definitions (the built-in demo agents when ./agents is absent)")
	fs.StringVar(&f.cfgPath, "config", "", "config file (models, flags) for the in-process run")
	fs.StringVar(&f.target, "target", "", "base URL of a running switchboard to evaluate over HTTP+SSE (default: in-process)")
	fs.StringVar(&f.reportDir, "report", "", "folder for report.json, report.md and report.html")
	fs.Float64Var(&f.minAcc, "min-accuracy", 0.95, "minimum routing accuracy, overall and per vertical, 0 to 1 (0 turns the accuracy gates off)")
	fs.Float64Var(&f.minAnswer, "min-answer", 0, "minimum answer accuracy (turns with reply_mentions/reply_excludes), overall and per vertical, 0 to 1 (0, the default: answers are reported, not gated)")
	fs.StringVar(&f.suggest, "suggest", "", "write candidate examples for the agent or tool that should have taken each misrouted or unanswered turn to this YAML `FILE` (a file, not a folder; its folder is created)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "cases run at once (cases with faults run one at a time)")
	fs.StringVar(&f.baseline, "baseline", "", "an earlier report.json to compare with (regressions first)")
	fs.BoolVar(&f.failOnRegression, "fail-on-regression", false, "with --baseline: exit 1 when a case that passed fails now or an accuracy falls (latency never gates)")
	fs.BoolVar(&f.noCoverage, "no-coverage-gate", false, "report but do not gate on intent-switch pair coverage (datasets covering some verticals only)")
	fs.StringVar(&f.judge, "judge-model", "", "model alias that rates reply quality (LLM-as-judge); off by default")
	fs.StringVar(&f.today, "today", "", "the day, as `YYYY-MM-DD`, the sub-agents' prompts state as today and the embedded demo CCS counts its users' dates from (default: today), so that reply_mentions naming a demo date keep passing after the day they were written")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard eval --dataset FILE... [flags]\n\nReplays eval datasets through the real turn loop and scores routing accuracy per vertical,\nintent switches, follow-ups, fan-out, failure acknowledgment, leaks and, for turns with\nreply_mentions or reply_excludes, answer accuracy per vertical. Exit status 1 when a gate fails.")
		fs.PrintDefaults()
	}
	// A shell glob after --dataset expands to several words; keep parsing flags after them.
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return f, err
		}
		if fs.NArg() == 0 {
			break
		}
		f.datasets = append(f.datasets, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(f.datasets) == 0:
		return f, usageError("eval needs --dataset FILE")
	case f.minAcc < 0 || f.minAcc > 1:
		return f, usageError("--min-accuracy must be between 0 and 1, got %g", f.minAcc)
	case f.minAnswer < 0 || f.minAnswer > 1:
		return f, usageError("--min-answer must be between 0 and 1, got %g", f.minAnswer)
	case f.concurrency < 1:
		return f, usageError("--concurrency must be at least 1, got %d", f.concurrency)
	case f.today != "" && f.target != "":
		return f, usageError("--today moves the embedded demo CCS's calendar, which a run over --target does not use")
	case f.failOnRegression && f.baseline == "":
		return f, usageError("--fail-on-regression needs --baseline report.json: there is nothing to regress from")
	}
	if f.today != "" {
		day, err := time.Parse(time.DateOnly, f.today)
		if err != nil {
			return f, usageError("--today %q is not a date: write it as YYYY-MM-DD, such as 2026-11-27", f.today)
		}
		f.todayDate = day
	}
	if err := checkOutputPaths(f); err != nil {
		return f, err
	}
	if err := checkAgentsFlag(f.agentsDir); err != nil {
		return f, err
	}
	if f.minAcc == 0 {
		f.minAcc = -1 // evals reads 0 as "the default"; the user asked for no accuracy gate
	}
	return f, nil
}

// checkOutputPaths refuses a --report that is a file, a --suggest that is a folder and a
// --baseline that cannot be read, which would otherwise fail only once every case has run (the
// last with a message that did not name the flag).
func checkOutputPaths(f evalFlags) error {
	if fi, err := os.Stat(f.baseline); f.baseline != "" && (err != nil || fi.IsDir()) {
		return usageError("--baseline %s: not a report.json this command can read (write one with --report DIR)", f.baseline)
	}
	if fi, err := os.Stat(f.reportDir); f.reportDir != "" && err == nil && !fi.IsDir() {
		return usageError("--report %s is a file: name a folder, for report.json, report.md and report.html", f.reportDir)
	}
	if fi, err := os.Stat(f.suggest); f.suggest != "" && err == nil && fi.IsDir() {
		return usageError("--suggest %s is a folder: name the YAML file to write, such as %s", f.suggest, filepath.Join(f.suggest, "suggest.yaml"))
	}
	return nil
}

// evalService builds the service the eval runs in-process, from the same assembly serve uses;
// with --target it still supplies the definitions. It keeps nothing and limits nothing.
func evalService(ctx context.Context, f evalFlags, lookup env) (*switchboard.Server, switchboard.Config, error) {
	cfg, err := switchboard.LoadConfig(f.cfgPath, switchboard.WithEnv(lookup))
	if err != nil {
		return nil, cfg, err
	}
	// In-process evals keep nothing: their episodes must not land in switchboard.db.
	cfg.Store.Driver = "memory"
	// The per-principal limits protect a shared server from its users; an in-process run is
	// the operator's own, and its cases would otherwise queue behind turns_per_minute.
	cfg.Limits = switchboard.LimitsConfig{}
	cfg.Auth.Mode = "dev"
	if cfg.Auth.HS256Secret == "" {
		cfg.Auth.HS256Secret = string(randomDevSecret())
	}
	opts := switchboard.Options{Config: &cfg, Logger: slog.New(slog.DiscardHandler)}
	opts.Agents, opts.AgentsFS, _ = agentsSource(f.agentsDir)
	if day := f.todayDate; !day.IsZero() {
		// The sub-agents' prompts state the same day the demo's calendar counts from, so
		// that a run's replies to "yesterday" do not change with the day it is run on.
		opts.Clock = func() time.Time { return day }
	}
	sb, err := switchboard.New(ctx, opts)
	if err != nil {
		return nil, cfg, withAgentsHint(err)
	}
	return sb, cfg, nil
}

// evalConfig is the run the flags ask for: its target (in-process, or --target over HTTP),
// gates, reports and judge.
func evalConfig(ctx context.Context, f evalFlags, sb *switchboard.Server, cfg switchboard.Config, progress io.Writer) (evals.Config, error) {
	a := sb.Parts()
	rc := evals.Config{
		Datasets:       f.datasets,
		SubAgents:      evals.AgentInfos(a.Orchestrator.SubAgents()),
		FanOutCap:      a.Orchestrator.Definition().FanOutCap,
		Concurrency:    f.concurrency,
		MinAccuracy:    f.minAcc,
		MinAnswer:      f.minAnswer,
		NoCoverageGate: f.noCoverage,
		ReportDir:      f.reportDir,
		Baseline:       f.baseline,
		Progress:       progress,
		Model:          describeModels(a.Providers),
	}
	if f.target != "" {
		t, err := evals.NewHTTPTarget(f.target, nil)
		if err != nil {
			return rc, err
		}
		rc.Target, rc.TargetName, rc.Model = t, f.target, "as served by "+f.target
	} else {
		var inj evals.FaultInjector
		if a.DemoCCS != nil {
			inj = evals.NewDemoInjector(a.DemoCCS)
		}
		rc.Target, rc.TargetName = evals.NewServiceTarget(a.Service, a.Hub, inj), "in-process"
	}
	if f.judge != "" {
		j, err := evalJudge(ctx, f, cfg)
		if err != nil {
			return rc, err
		}
		rc.Judge = j
	}
	return rc, nil
}

// evalJudge is the judge --judge-model names, refused when it is the offline model.
func evalJudge(ctx context.Context, f evalFlags, cfg switchboard.Config) (*evals.Judge, error) {
	models := make(map[string]llm.ModelConfig, len(cfg.Models))
	for alias, m := range cfg.Models {
		models[alias] = llm.ModelConfig(m)
	}
	if _, ok := models[f.judge]; !ok {
		return nil, usageError("--judge-model %q is not a model alias under models: in %s; known: %s", f.judge, configNamed(f.cfgPath), strings.Join(slices.Sorted(maps.Keys(models)), ", "))
	}
	reg, err := llm.NewRegistry(ctx, models)
	if err != nil {
		return nil, err
	}
	m, err := reg.Model(f.judge)
	if err != nil {
		return nil, err
	}
	if offlineAlias(reg, f.judge) {
		// Its replies are canned: it would fail every call, after the whole run.
		return nil, usageError("--judge-model %q is the offline model, which cannot judge replies: name the alias of a real model under models: in %s", f.judge, configNamed(f.cfgPath))
	}
	return evals.NewJudge(m, f.judge), nil
}

// printEval prints the summary, the comparison with --baseline and where the reports are.
func printEval(stdout io.Writer, f evalFlags, rep *evals.Report) error {
	if err := rep.WriteSummary(stdout); err != nil {
		return err
	}
	if rep.Baseline != nil {
		if err := rep.Baseline.WriteText(stdout); err != nil {
			return err
		}
	}
	if f.reportDir != "" {
		fmt.Fprintf(stdout, "reports: %s/report.{json,md,html}\n", strings.TrimSuffix(f.reportDir, "/"))
	}
	return nil
}

// writeSuggestions writes --suggest's candidate examples and says how many.
func writeSuggestions(ctx context.Context, stdout io.Writer, f evalFlags, rep *evals.Report, agents []evals.AgentInfo, a switchboard.Parts, cfg switchboard.Config) error {
	var data evals.ToolData
	if f.target == "" && a.DemoCCS != nil {
		data = demoToolData(a.DemoCCS, cfg.CCS.Credential)
	}
	sugg := evals.Suggest(ctx, rep, agents, data)
	if err := evals.WriteSuggestionsFile(f.suggest, sugg); err != nil {
		return err
	}
	n := 0
	for _, s := range sugg {
		n += len(s.Examples)
	}
	fmt.Fprintf(stdout, "suggestions: %s (%s for %s)\n", f.suggest, plural(n, "candidate example", "candidate examples"), plural(len(sugg), "agent or tool", "agents or tools"))
	return nil
}

// evalVerdict is the exit status of a finished run: a judge that never answered, a failed
// gate, or with --fail-on-regression a regression against --baseline.
func evalVerdict(f evalFlags, rep *evals.Report) error {
	if j := rep.Judge; f.judge != "" && j.Status == "failed" {
		return &exitError{code: 1, msg: fmt.Sprintf("switchboard eval: the judge model %q failed on all %d calls: check its entry under models: in %s", f.judge, j.Errors, configNamed(f.cfgPath))}
	}
	if rep.GateError() != nil {
		// The summary above printed each failed gate with its detail; naming them is enough.
		return &exitError{code: 1, msg: "switchboard eval: gates failed: " + strings.Join(failedGates(rep), ", ") + " (the summary on stdout says why)"}
	}
	if f.failOnRegression && rep.Baseline != nil {
		if regs := rep.Baseline.QualityRegressions(); len(regs) > 0 {
			return &exitError{code: 1, msg: "switchboard eval: regressions against " + f.baseline + ":\n  " + strings.Join(regs, "\n  ")}
		}
	}
	return nil
}

// failedGates names the gates rep failed.
func failedGates(rep *evals.Report) []string {
	var names []string
	for _, g := range rep.GateResults {
		if !g.Passed {
			names = append(names, g.Name)
		}
	}
	return names
}

// plural says n things: "1 agent or tool", "2 agents or tools".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// offlineAlias reports whether alias is served by the offline model (with no config, the
// default alias is).
func offlineAlias(reg *llm.Registry, alias string) bool {
	for _, info := range reg.Describe() {
		if info.Alias == alias {
			return info.Offline
		}
	}
	return false
}

// configNamed names the config file models were read from, for messages that send the
// reader there.
func configNamed(path string) string {
	if path == "" {
		return "a config file passed with --config (none was given)"
	}
	return path
}

// reachable checks that a --target answers before hundreds of turns fail against it.
func reachable(ctx context.Context, target string) error {
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("--target %q is not the base URL of a server, such as http://127.0.0.1:8080", target)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(target, "/")+"/healthz", nil)
	if err != nil {
		return usageError("--target %q is not a URL: %v", target, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("--target %s does not answer (%w): start it with `switchboard serve` or fix the address", target, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("--target %s answered GET /healthz with %s: is it a switchboard?", target, resp.Status)
	}
	return nil
}

// demoToolData reads enrichers from the embedded demo CCS, as a sub-agent would, so that
// --suggest can tell which tool's data holds what a reply missed.
func demoToolData(demo http.Handler, credential string) evals.ToolData {
	client := &http.Client{Transport: ccs.NewInProcessTransport(demo)}
	return func(ctx context.Context, user, enricher string) ([]byte, error) {
		body, err := json.Marshal(ccs.EnricherRequest{Principal: user, EnricherID: enricher})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://demo-ccs"+ccs.EnrichPathPrefix+enricher, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(ccs.HeaderPrincipal, user)
		if credential != "" {
			req.Header.Set("Authorization", "Bearer "+credential)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("demo CCS answered %s for %s", resp.Status, enricher)
		}
		var env ccs.RawResponse
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			return nil, err
		}
		return env.Payload, nil
	}
}

func describeModels(ps []switchboard.ProviderInfo) string {
	var parts []string
	for _, p := range ps {
		s := p.Alias + "=" + p.Provider
		if p.Model != "" {
			s += ":" + p.Model
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
