package evals

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// BaselineDiff compares a run with an earlier report.
type BaselineDiff struct {
	File string `json:"file"`
	// Changes are the metrics that moved, regressions first.
	Changes []Change `json:"changes"`
	// Regressed are cases ("dataset/case") that passed in the baseline and fail now; Fixed the
	// reverse.
	Regressed []string `json:"regressed"`
	Fixed     []string `json:"fixed"`
}

// Change is one metric's movement.
type Change struct {
	Metric     string  `json:"metric"`
	Before     float64 `json:"before"`
	After      float64 `json:"after"`
	Delta      float64 `json:"delta"`
	Regression bool    `json:"regression"`
	Improved   bool    `json:"improved"`
}

// HasRegressions reports whether any metric or case got worse.
func (d *BaselineDiff) HasRegressions() bool {
	return len(d.Regressed) > 0 || slices.ContainsFunc(d.Changes, func(c Change) bool { return c.Regression })
}

// direction says which way a metric is better.
type direction int

const (
	higherBetter direction = iota
	lowerBetter
	latencyLike // lower is better, but only a large slowdown is a regression: timings are noisy
)

type metric struct {
	name string
	dir  direction
	get  func(*Report) (float64, bool)
}

func metrics(base, cur *Report) []metric {
	ms := []metric{
		{"overall.routing_accuracy", higherBetter, func(r *Report) (float64, bool) { return r.Overall.RoutingAccuracy, r.Overall.Turns > 0 }},
		{"overall.intent_switch_accuracy", higherBetter, func(r *Report) (float64, bool) {
			return r.Overall.IntentSwitchAccuracy, r.Overall.IntentSwitchTurns > 0
		}},
		{"overall.follow_up_accuracy", higherBetter, func(r *Report) (float64, bool) { return r.Overall.FollowUpAccuracy, r.Overall.FollowUpTurns > 0 }},
		{"overall.fan_out_accuracy", higherBetter, func(r *Report) (float64, bool) { return r.Overall.FanOutAccuracy, r.Overall.FanOutTurns > 0 }},
		{"overall.failure_ack_rate", higherBetter, func(r *Report) (float64, bool) { return r.Overall.FailureAckRate, r.Overall.FailureAckTurns > 0 }},
		{"overall.answer_accuracy", higherBetter, func(r *Report) (float64, bool) { return r.Overall.AnswerAccuracy, r.Overall.AnswerTurns > 0 }},
		{"overall.errors", lowerBetter, func(r *Report) (float64, bool) { return float64(r.Overall.Errors), true }},
		{"leaks", lowerBetter, func(r *Report) (float64, bool) { return float64(r.Leaks), true }},
		{"latency_ms.p50", latencyLike, func(r *Report) (float64, bool) { return r.LatencyMS.P50, r.LatencyMS.P50 > 0 }},
		{"latency_ms.p95", latencyLike, func(r *Report) (float64, bool) { return r.LatencyMS.P95, r.LatencyMS.P95 > 0 }},
		{"judge.mean", higherBetter, func(r *Report) (float64, bool) { return r.Judge.Mean, r.Judge.Scored > 0 }},
	}
	for _, id := range unionKeys(base.Verticals, cur.Verticals) {
		for _, f := range []struct {
			name string
			get  func(VerticalScore) float64
		}{{"accuracy", func(v VerticalScore) float64 { return v.Accuracy }}, {"precision", func(v VerticalScore) float64 { return v.Precision }}, {"recall", func(v VerticalScore) float64 { return v.Recall }}} {
			ms = append(ms, metric{"verticals." + id + "." + f.name, higherBetter, func(r *Report) (float64, bool) {
				v, ok := r.Verticals[id]
				return f.get(v), ok && v.Turns > 0
			}})
		}
	}
	for _, id := range unionKeys(base.Answers, cur.Answers) {
		ms = append(ms, metric{"answers." + id + ".accuracy", higherBetter, func(r *Report) (float64, bool) {
			a, ok := r.Answers[id]
			return a.Accuracy, ok && a.Turns > 0
		}})
	}
	for _, name := range unionKeys(base.Datasets, cur.Datasets) {
		ms = append(ms, metric{"datasets." + name + ".routing_accuracy", higherBetter, func(r *Report) (float64, bool) {
			d, ok := r.Datasets[name]
			return d.RoutingAccuracy, ok && d.Turns > 0
		}})
		ms = append(ms, metric{"datasets." + name + ".answer_accuracy", higherBetter, func(r *Report) (float64, bool) {
			d, ok := r.Datasets[name]
			return d.AnswerAccuracy, ok && d.AnswerTurns > 0
		}})
	}
	return ms
}

func unionKeys[V any](a, b map[string]V) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Compare lists what changed from base to cur: metrics measured in both that moved,
// regressions first (largest first), then improvements, then latency noise; and cases that
// started or stopped failing.
func Compare(base, cur *Report) *BaselineDiff {
	d := &BaselineDiff{Changes: []Change{}, Regressed: []string{}, Fixed: []string{}}
	for _, m := range metrics(base, cur) {
		before, okB := m.get(base)
		after, okA := m.get(cur)
		if !okB || !okA || math.Abs(after-before) < epsilon {
			continue
		}
		c := Change{Metric: m.name, Before: before, After: after, Delta: round3(after - before)}
		switch m.dir {
		case higherBetter:
			c.Regression, c.Improved = after < before, after > before
		case lowerBetter:
			c.Regression, c.Improved = after > before, after < before
		case latencyLike:
			c.Regression = after > before*1.2 && after-before > 50
			c.Improved = after < before/1.2 && before-after > 50
		}
		d.Changes = append(d.Changes, c)
	}
	rank := func(c Change) int {
		switch {
		case c.Regression:
			return 0
		case c.Improved:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(d.Changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(relative(b), relative(a)), cmp.Compare(a.Metric, b.Metric))
	})
	passed := map[string]bool{}
	for _, c := range base.Cases {
		passed[c.Dataset+"/"+c.ID] = c.Passed
	}
	for _, c := range cur.Cases {
		was, ok := passed[c.Dataset+"/"+c.ID]
		switch {
		case !ok:
		case was && !c.Passed:
			d.Regressed = append(d.Regressed, c.Dataset+"/"+c.ID)
		case !was && c.Passed:
			d.Fixed = append(d.Fixed, c.Dataset+"/"+c.ID)
		}
	}
	return d
}

// relative is a change's size relative to where it started, to rank unlike metrics together.
func relative(c Change) float64 {
	if c.Before == 0 {
		return math.Abs(c.Delta)
	}
	return math.Abs(c.Delta / c.Before)
}

// WriteText prints the comparison for a terminal, regressions first.
func (d *BaselineDiff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "compared with %s:\n", d.File)
	if len(d.Changes) == 0 && len(d.Regressed) == 0 && len(d.Fixed) == 0 {
		b.WriteString("  no changes\n")
	}
	line := func(tag string, c Change) {
		fmt.Fprintf(&b, "%s %s: %s -> %s (%+g)\n", tag, c.Metric, fmtNum(c.Before), fmtNum(c.After), c.Delta)
	}
	for _, c := range d.Changes {
		switch {
		case c.Regression && strings.HasPrefix(c.Metric, "latency"):
			line("- slower    ", c) // latency never gates, so it is not called a regression
		case c.Regression:
			line("- REGRESSION", c)
		}
	}
	for _, k := range d.Regressed {
		fmt.Fprintf(&b, "- REGRESSION case %s now fails\n", k)
	}
	for _, c := range d.Changes {
		if c.Improved {
			line("+ improved  ", c)
		}
	}
	for _, k := range d.Fixed {
		fmt.Fprintf(&b, "+ fixed      case %s now passes\n", k)
	}
	for _, c := range d.Changes {
		if !c.Regression && !c.Improved {
			line("  changed   ", c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtNum(f float64) string { return fmt.Sprintf("%.4g", f) }

// QualityRegressions lists what got worse in routing quality: cases that passed in the baseline
// and fail now, and falling accuracy metrics. Latency is left out: it varies with the machine,
// so it is reported but never gates.
func (d *BaselineDiff) QualityRegressions() []string {
	out := slices.Clone(d.Regressed)
	for _, c := range d.Changes {
		if c.Regression && !strings.HasPrefix(c.Metric, "latency") {
			out = append(out, fmt.Sprintf("%s %s → %s", c.Metric, fmtNum(c.Before), fmtNum(c.After)))
		}
	}
	return out
}
