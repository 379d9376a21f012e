package evals

import (
	"fmt"
	"io"
	"strings"
)

// WriteSummary prints a few lines for a terminal: the headline numbers, each vertical and
// every gate that did not pass.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	o := r.Overall
	fmt.Fprintf(&b, "cases %d/%d passed, %d turns: routing %s, no-route precision %s recall %s, intent switch %s, follow-ups %s, fan-out %s, failure ack %s, leaks %d, p50 %.0fms p95 %.0fms",
		o.CasesPassed, o.Cases, o.Turns, pct(o.RoutingAccuracy), pctOf(o.NoRoutePrecision, o.NoRouteAnswered), pctOf(o.NoRouteRecall, o.NoRouteTurns),
		pctOf(o.IntentSwitchAccuracy, o.IntentSwitchTurns), pctOf(o.FollowUpAccuracy, o.FollowUpTurns),
		pctOf(o.FanOutAccuracy, o.FanOutTurns), pctOf(o.FailureAckRate, o.FailureAckTurns), r.Leaks, r.LatencyMS.P50, r.LatencyMS.P95)
	if o.AnswerTurns > 0 {
		// Last on the line: scripts read the fields before it by position.
		fmt.Fprintf(&b, ", answers %s of %d turns", pct(o.AnswerAccuracy), o.AnswerTurns)
	}
	b.WriteString("\n")
	for _, id := range r.verticalOrder() {
		v := r.Verticals[id]
		fmt.Fprintf(&b, "  %-12s accuracy %6s  precision %6s  recall %6s  (%d turns)", id,
			pctOf(v.Accuracy, v.Turns), pctOf(v.Precision, v.Turns), pctOf(v.Recall, v.Turns), v.Turns)
		if _, ok := r.Answers[id]; ok {
			fmt.Fprintf(&b, "  answers %s", r.answerCell(id))
		}
		b.WriteString("\n")
	}
	if _, ok := r.Answers[noneLabel]; ok {
		fmt.Fprintf(&b, "  %-12s answers %s (turns expecting no sub-agent)\n", noneLabel, r.answerCell(noneLabel))
	}
	if missing := r.missingWordsByAgent(); len(missing) > 0 {
		b.WriteString("words users said in turns that missed the agent, which its definition does not use:\n")
		for _, m := range missing {
			fmt.Fprintf(&b, "  %-12s %s\n", m.ID, m.Words)
		}
	}
	if r.Judge.Status != "skipped" {
		fmt.Fprintf(&b, "judge: %s\n", judgeText(r.Judge))
	}
	for _, g := range r.GateResults {
		if !g.Passed {
			fmt.Fprintf(&b, "FAILED gate %s: %s\n", g.Name, g.Detail)
		}
	}
	if r.Passed() {
		b.WriteString("all gates passed\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pctOf is pct, or "n/a" when nothing was measured.
func pctOf(f float64, n int) string {
	if n == 0 {
		return "n/a"
	}
	return pct(f)
}
