package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
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

func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var datasets stringList
	fs.Var(&datasets, "dataset", "eval dataset YAML (repeatable; extra arguments are datasets too)")
	agentsDir := fs.String("agents", defaultAgentsDir, "folder of Agent Definitions (the built-in demo agents when ./agents is absent)")
	cfgPath := fs.String("config", "", "config file (models, flags) for the in-process run")
	target := fs.String("target", "", "base URL of a running switchboard to evaluate over HTTP+SSE (default: in-process)")
	reportDir := fs.String("report", "", "folder for report.json, report.md and report.html")
	minAcc := fs.Float64("min-accuracy", 0.95, "minimum routing accuracy, overall and per vertical, 0 to 1 (0 turns the accuracy gates off)")
	minAnswer := fs.Float64("min-answer", 0, "minimum answer accuracy (turns with reply_mentions/reply_excludes), overall and per vertical, 0 to 1 (0, the default: answers are reported, not gated)")
	suggest := fs.String("suggest", "", "write candidate examples for the agent or tool that should have taken each misrouted or unanswered turn to this YAML `FILE` (a file, not a folder; its folder is created)")
	concurrency := fs.Int("concurrency", 4, "cases run at once (cases with faults run one at a time)")
	baseline := fs.String("baseline", "", "an earlier report.json to compare with (regressions first)")
	failOnRegression := fs.Bool("fail-on-regression", false, "with --baseline: exit 1 when a case that passed fails now or an accuracy falls (latency never gates)")
	noCoverage := fs.Bool("no-coverage-gate", false, "report but do not gate on intent-switch pair coverage (datasets covering some verticals only)")
	judge := fs.String("judge-model", "", "model alias that rates reply quality (LLM-as-judge); off by default")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard eval --dataset FILE... [flags]\n\nReplays eval datasets through the real turn loop and scores routing accuracy per vertical,\nintent switches, follow-ups, fan-out, failure acknowledgment, leaks and, for turns with\nreply_mentions or reply_excludes, answer accuracy per vertical. Exit status 1 when a gate fails.")
		fs.PrintDefaults()
	}
	// A shell glob after --dataset expands to several words; keep parsing flags after them.
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		datasets = append(datasets, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(datasets) == 0 {
		return usageError("eval needs --dataset FILE")
	}
	if *minAcc < 0 || *minAcc > 1 {
		return usageError("--min-accuracy must be between 0 and 1, got %g", *minAcc)
	}
	if *minAnswer < 0 || *minAnswer > 1 {
		return usageError("--min-answer must be between 0 and 1, got %g", *minAnswer)
	}
	if *minAcc == 0 {
		*minAcc = -1 // evals reads 0 as "the default"; the user asked for no accuracy gate
	}
	if *target != "" {
		if err := reachable(ctx, *target); err != nil {
			return err
		}
	}

	cfg, err := switchboard.LoadConfig(*cfgPath, switchboard.WithEnv(lookup))
	if err != nil {
		return err
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
	opts.Agents, opts.AgentsFS, _ = agentsSource(*agentsDir)
	// The definitions (and, in-process, the whole service) come from the same assembly serve uses.
	sb, err := switchboard.New(ctx, opts)
	if err != nil {
		return withAgentsHint(err)
	}
	defer sb.Close(ctx)
	a := sb.Parts()
	orc := a.Orchestrator.Definition()

	rc := evals.Config{
		Datasets:       datasets,
		SubAgents:      evals.AgentInfos(a.Orchestrator.SubAgents()),
		FanOutCap:      orc.FanOutCap,
		Concurrency:    *concurrency,
		MinAccuracy:    *minAcc,
		MinAnswer:      *minAnswer,
		NoCoverageGate: *noCoverage,
		ReportDir:      *reportDir,
		Baseline:       *baseline,
		Progress:       stderr,
		Model:          describeModels(a.Providers),
	}
	if *target != "" {
		t, err := evals.NewHTTPTarget(*target, nil)
		if err != nil {
			return err
		}
		rc.Target, rc.TargetName, rc.Model = t, *target, "as served by "+*target
	} else {
		var inj evals.FaultInjector
		if a.DemoCCS != nil {
			inj = evals.NewDemoInjector(a.DemoCCS)
		}
		rc.Target, rc.TargetName = evals.NewServiceTarget(a.Service, a.Hub, inj), "in-process"
	}
	if *judge != "" {
		models := make(map[string]llm.ModelConfig, len(cfg.Models))
		for alias, m := range cfg.Models {
			models[alias] = llm.ModelConfig(m)
		}
		reg, err := llm.NewRegistry(ctx, models)
		if err != nil {
			return err
		}
		m, err := reg.Model(*judge)
		if err != nil {
			return err
		}
		if offlineAlias(reg, *judge) {
			// Its replies are canned: it would fail every call, after the whole run.
			return usageError("--judge-model %q is the offline model, which cannot judge replies: name the alias of a real model under models: in %s", *judge, configNamed(*cfgPath))
		}
		rc.Judge = evals.NewJudge(m, *judge)
	}

	rep, err := evals.Run(ctx, rc)
	if err != nil {
		return err
	}
	if err := rep.WriteSummary(stdout); err != nil {
		return err
	}
	if rep.Baseline != nil {
		_ = rep.Baseline.WriteText(stdout)
	}
	if *reportDir != "" {
		fmt.Fprintf(stdout, "reports: %s/report.{json,md,html}\n", strings.TrimSuffix(*reportDir, "/"))
	}
	if *suggest != "" {
		var data evals.ToolData
		if *target == "" && a.DemoCCS != nil {
			data = demoToolData(a.DemoCCS, cfg.CCS.Credential)
		}
		sugg := evals.Suggest(ctx, rep, rc.SubAgents, data)
		if err := evals.WriteSuggestionsFile(*suggest, sugg); err != nil {
			return err
		}
		n := 0
		for _, s := range sugg {
			n += len(s.Examples)
		}
		fmt.Fprintf(stdout, "suggestions: %s (%s for %s)\n", *suggest, plural(n, "candidate example", "candidate examples"), plural(len(sugg), "agent or tool", "agents or tools"))
	}
	if j := rep.Judge; *judge != "" && j.Status == "failed" {
		return &exitError{code: 1, msg: fmt.Sprintf("switchboard eval: the judge model %q failed on all %d calls: check its entry under models: in %s", *judge, j.Errors, configNamed(*cfgPath))}
	}
	if err := rep.GateError(); err != nil {
		return &exitError{code: 1, msg: "switchboard eval: " + err.Error()}
	}
	if *failOnRegression && rep.Baseline != nil {
		if regs := rep.Baseline.QualityRegressions(); len(regs) > 0 {
			return &exitError{code: 1, msg: "switchboard eval: regressions against " + *baseline + ":\n  " + strings.Join(regs, "\n  ")}
		}
	}
	return nil
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
