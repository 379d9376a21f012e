package evals

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// Config is what [Run] needs. Datasets, Target and SubAgents are required.
type Config struct {
	// Datasets are dataset file paths.
	Datasets []string
	Target   Target
	// TargetName describes the target in reports ("in-process", a URL).
	TargetName string
	// SubAgents are the orchestrator's registered sub-agents, in its order.
	SubAgents []AgentInfo
	// FanOutCap is the orchestrator's cap, used for turns without a routing record. Default 3.
	FanOutCap int
	// Concurrency bounds cases run at once. Default 4.
	Concurrency int
	// MinAccuracy is the threshold for overall and per-vertical routing accuracy. Zero means
	// the default, 0.95; a negative value disables the accuracy gates.
	MinAccuracy float64
	// MinAnswer is the threshold for answer accuracy (turns with reply assertions), overall
	// and per vertical. Zero or less adds no answer gate.
	MinAnswer float64
	// NoCoverageGate turns the pair-coverage gate into a report line.
	NoCoverageGate bool
	// ReportDir receives report.json, report.md and report.html; empty writes nothing.
	ReportDir string
	// Baseline is an earlier report.json to compare with; empty compares with nothing.
	Baseline string
	// Progress receives the progress bar (typically os.Stderr); nil draws nothing.
	Progress io.Writer
	// Judge rates replies; nil skips it.
	Judge *Judge
	// Model describes the model(s) answering, for the report (no keys).
	Model string
	// TurnTimeout bounds each turn. Default 2 minutes.
	TurnTimeout time.Duration
	// Now is the clock for the report's timestamp. Default time.Now.
	Now func() time.Time
}

const (
	defaultMinAccuracy = 0.95
	defaultConcurrency = 4
	defaultFanOutCap   = 3
	defaultTurnTimeout = 2 * time.Minute
)

func (c *Config) withDefaults() error {
	if c.Target == nil {
		return fmt.Errorf("%w: no target", ErrConfig)
	}
	if len(c.SubAgents) == 0 {
		return fmt.Errorf("%w: no sub-agents", ErrConfig)
	}
	ids := agentIDs(c.SubAgents)
	for i, id := range ids {
		if id == "" || slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: sub-agent ids must be distinct and non-empty", ErrConfig)
		}
	}
	if c.MinAccuracy == 0 {
		c.MinAccuracy = defaultMinAccuracy
	}
	if c.MinAccuracy > 1 {
		return fmt.Errorf("%w: min accuracy %g is above 1", ErrConfig, c.MinAccuracy)
	}
	if c.MinAnswer > 1 {
		return fmt.Errorf("%w: min answer %g is above 1", ErrConfig, c.MinAnswer)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = defaultConcurrency
	}
	if c.FanOutCap <= 0 {
		c.FanOutCap = defaultFanOutCap
	}
	if c.TurnTimeout <= 0 {
		c.TurnTimeout = defaultTurnTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// rateLimited is a target that waits out a server's per-user limits (see [HTTPTarget]).
type rateLimited interface{ RateLimitWaits() int64 }

// Run loads the datasets, replays every case through the target, scores the turns, checks
// the gates, compares with the baseline and writes the reports. It returns the report even
// when gates fail: check [Report.Passed] or [Report.GateError]. An error means the run could
// not be done or finished: bad config or datasets ([ErrInvalidDataset]), an unreadable
// baseline, ctx ending, faults that could not be cleared, or reports that could not be
// written (the report is still returned then).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	ids := agentIDs(cfg.SubAgents)
	datasets, err := LoadDatasets(cfg.Datasets, ids)
	if err != nil {
		return nil, err
	}
	var base *Report
	if cfg.Baseline != "" {
		if base, err = LoadReport(cfg.Baseline); err != nil {
			return nil, err
		}
	}
	total := 0
	for _, ds := range datasets {
		total += len(ds.Cases)
	}
	started := cfg.Now()
	prog := newProgress(cfg.Progress, total)
	if rl, ok := cfg.Target.(rateLimited); ok {
		prog.note = func() string {
			if n := rl.RateLimitWaits(); n > 0 {
				return fmt.Sprintf(" (%d waits for the server's rate limit: for eval runs, raise turns_per_minute and turns_burst under limits: in its config, or set them to 0 for no limit)", n)
			}
			return ""
		}
	}
	r := &runner{
		target: cfg.Target, agents: cfg.SubAgents, concurrency: cfg.Concurrency,
		turnTimeout: cfg.TurnTimeout, progress: prog,
	}
	runs, err := r.run(ctx, datasets)
	if err != nil {
		return nil, err
	}
	judged := judgeAll(ctx, cfg.Judge, runs, cfg.Concurrency)

	rep := newScorer(cfg.SubAgents, cfg.FanOutCap).score(runs)
	rep.GeneratedAt = cfg.Now().UTC()
	rep.Model, rep.Target = cfg.Model, cfg.TargetName
	rep.Settings = Settings{
		Datasets: slices.Clone(cfg.Datasets), SubAgents: ids, FanOutCap: cfg.FanOutCap,
		Concurrency: cfg.Concurrency, MinAccuracy: cfg.MinAccuracy, MinAnswer: max(cfg.MinAnswer, 0), CoverageGate: !cfg.NoCoverageGate,
		DurationMS: cfg.Now().Sub(started).Milliseconds(),
	}
	rep.Judge = judged
	rep.Coverage = coverage(datasets, ids)
	rep.MissingWords = missingWords(rep.Cases, cfg.SubAgents)
	rep.GateResults = evaluateGates(rep, ids, cfg.MinAccuracy, !cfg.NoCoverageGate)
	rep.GateResults = append(rep.GateResults, answerGates(rep, cfg.MinAnswer)...)
	if base != nil {
		rep.Baseline = Compare(base, rep)
		rep.Baseline.File = cfg.Baseline
	}
	if cfg.ReportDir != "" {
		if err := WriteReports(cfg.ReportDir, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
