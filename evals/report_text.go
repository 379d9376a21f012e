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
	fmt.Fprintf(&b, "cases %d/%d passed, %d turns: routing %s, intent switch %s, fan-out %s, failure ack %s, leaks %d, p50 %.0fms p95 %.0fms\n",
		o.CasesPassed, o.Cases, o.Turns, pct(o.RoutingAccuracy), pct(o.IntentSwitchAccuracy), pct(o.FanOutAccuracy),
		pct(o.FailureAckRate), r.Leaks, r.LatencyMS.P50, r.LatencyMS.P95)
	for _, id := range r.verticalOrder() {
		v := r.Verticals[id]
		fmt.Fprintf(&b, "  %-12s accuracy %6s  precision %6s  recall %6s  (%d turns)\n", id, pct(v.Accuracy), pct(v.Precision), pct(v.Recall), v.Turns)
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
