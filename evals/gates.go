package evals

import (
	"fmt"
	"slices"
	"strings"
)

// GateResult is one pass/fail condition of the run.
type GateResult struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
}

// Gate names.
const (
	GateRoutingAccuracy = "routing_accuracy"
	GateVerticalPrefix  = "vertical_accuracy:"
	GatePairCoverage    = "pair_coverage"
	GateNoLeaks         = "no_leaks"
	// GateAnswerAccuracy and GateAnswerPrefix+vertical gate answer accuracy; they exist only
	// when a minimum is set.
	GateAnswerAccuracy = "answer_accuracy"
	GateAnswerPrefix   = "answer_accuracy:"
)

// Gates returns every gate with its result; `switchboard eval` exits 1 when one failed.
func (r *Report) Gates() []GateResult { return slices.Clone(r.GateResults) }

// Passed reports whether every gate passed.
func (r *Report) Passed() bool {
	for _, g := range r.GateResults {
		if !g.Passed {
			return false
		}
	}
	return true
}

// GateError is nil when every gate passed, and otherwise an error matching [ErrGates] that
// names the failed gates and why.
func (r *Report) GateError() error {
	var failed []string
	for _, g := range r.GateResults {
		if !g.Passed {
			failed = append(failed, g.Name+" ("+g.Detail+")")
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrGates, strings.Join(failed, "; "))
}

// epsilon absorbs float rounding when comparing a rate with a threshold: 19/20 is 0.95.
const epsilon = 1e-9

// evaluateGates checks overall and per-vertical accuracy against min, coverage of
// every ordered pair of sub-agents unless disabled, and that nothing leaked.
func evaluateGates(r *Report, ids []string, min float64, coverageGate bool) []GateResult {
	var gates []GateResult
	o := r.Overall
	gates = append(gates, GateResult{
		Name: GateRoutingAccuracy, Passed: o.Turns > 0 && o.RoutingAccuracy+epsilon >= min,
		Detail: fmt.Sprintf("%.1f%% over %d turns, minimum %.1f%%", 100*o.RoutingAccuracy, o.Turns, 100*min),
	})
	for _, id := range ids {
		v := r.Verticals[id]
		g := GateResult{Name: GateVerticalPrefix + id}
		if v.Turns == 0 {
			g.Passed, g.Skipped, g.Detail = true, true, "no turn expects or reaches it"
		} else {
			g.Passed = v.Accuracy+epsilon >= min
			g.Detail = fmt.Sprintf("%.1f%% over %d turns, minimum %.1f%%", 100*v.Accuracy, v.Turns, 100*min)
		}
		gates = append(gates, g)
	}
	cov := r.Coverage
	g := GateResult{Name: GatePairCoverage, Passed: len(cov.Missing) == 0}
	switch {
	case !coverageGate:
		g.Passed, g.Skipped, g.Detail = true, true, fmt.Sprintf("disabled; %d of %d ordered pairs covered", cov.PairsCovered, cov.PairsRequired)
	case g.Passed:
		g.Detail = fmt.Sprintf("all %d ordered pairs covered", cov.PairsRequired)
	default:
		g.Detail = fmt.Sprintf("%d of %d ordered pairs covered; missing %s (a dataset meant for some verticals only: pass --no-coverage-gate)",
			cov.PairsCovered, cov.PairsRequired, strings.Join(cov.Missing, ", "))
	}
	gates = append(gates, g)
	gates = append(gates, GateResult{Name: GateNoLeaks, Passed: r.Leaks == 0, Detail: fmt.Sprintf("%d internal details found in events", r.Leaks)})
	return gates
}

// answerGates checks answer accuracy, overall and per vertical, against min; a min of zero or
// less adds no gate. Asking for the gate on datasets without reply assertions fails it: the
// number it should guard was never measured.
func answerGates(r *Report, min float64) []GateResult {
	if min <= 0 {
		return nil
	}
	o := r.Overall
	g := GateResult{Name: GateAnswerAccuracy, Passed: o.AnswerTurns > 0 && o.AnswerAccuracy+epsilon >= min}
	if o.AnswerTurns == 0 {
		g.Detail = "no turn has reply_mentions or reply_excludes"
	} else {
		g.Detail = fmt.Sprintf("%.1f%% over %d turns, minimum %.1f%%", 100*o.AnswerAccuracy, o.AnswerTurns, 100*min)
	}
	gates := []GateResult{g}
	verticals := make([]string, 0, len(r.Answers))
	for v := range r.Answers {
		verticals = append(verticals, v)
	}
	slices.Sort(verticals)
	for _, v := range verticals {
		a := r.Answers[v]
		gates = append(gates, GateResult{
			Name: GateAnswerPrefix + v, Passed: a.Accuracy+epsilon >= min,
			Detail: fmt.Sprintf("%.1f%% over %d turns, minimum %.1f%%", 100*a.Accuracy, a.Turns, 100*min),
		})
	}
	return gates
}
