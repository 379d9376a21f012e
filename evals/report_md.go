package evals

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteMarkdown renders the report as Markdown (report.md).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	o := r.Overall
	b.WriteString("# Routing eval report\n\n")
	fmt.Fprintf(&b, "Generated %s", r.GeneratedAt.Format("2006-01-02 15:04:05 UTC"))
	if r.Model != "" {
		fmt.Fprintf(&b, " · model: %s", mdText(r.Model))
	}
	if r.Target != "" {
		fmt.Fprintf(&b, " · target: %s", mdText(r.Target))
	}
	b.WriteString("\n\n")
	status := "PASSED"
	if !r.Passed() {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "## Gates: %s\n\n| gate | result | detail |\n| --- | --- | --- |\n", status)
	for _, g := range r.GateResults {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(g.Name), gateWord(g), mdCell(g.Detail))
	}

	b.WriteString("\n## Overall\n\n| metric | value |\n| --- | --- |\n")
	fmt.Fprintf(&b, "| cases passed | %d / %d |\n| turns | %d |\n", o.CasesPassed, o.Cases, o.Turns)
	fmt.Fprintf(&b, "| routing accuracy | %s |\n", pct(o.RoutingAccuracy))
	fmt.Fprintf(&b, "| no-route precision | %s (%d turns answered without a sub-agent) |\n", pctOf(o.NoRoutePrecision, o.NoRouteAnswered), o.NoRouteAnswered)
	fmt.Fprintf(&b, "| no-route recall | %s (%d turns expecting none) |\n", pctOf(o.NoRouteRecall, o.NoRouteTurns), o.NoRouteTurns)
	fmt.Fprintf(&b, "| intent-switch accuracy | %s (%d turns) |\n", pct(o.IntentSwitchAccuracy), o.IntentSwitchTurns)
	fmt.Fprintf(&b, "| follow-up accuracy | %s (%d turns expecting the previous turn's sub-agent) |\n", pctOf(o.FollowUpAccuracy, o.FollowUpTurns), o.FollowUpTurns)
	fmt.Fprintf(&b, "| fan-out correctness | %s (%d turns) |\n", pct(o.FanOutAccuracy), o.FanOutTurns)
	fmt.Fprintf(&b, "| answer accuracy | %s (%d turns with reply assertions) |\n", pctOf(o.AnswerAccuracy, o.AnswerTurns), o.AnswerTurns)
	fmt.Fprintf(&b, "| failure acknowledgment | %s (%d turns) |\n", pct(o.FailureAckRate), o.FailureAckTurns)
	fmt.Fprintf(&b, "| leaks | %d |\n| target errors | %d |\n", r.Leaks, o.Errors)
	fmt.Fprintf(&b, "| latency p50 / p95 / max | %.0f / %.0f / %.0f ms |\n", r.LatencyMS.P50, r.LatencyMS.P95, r.LatencyMS.Max)
	fmt.Fprintf(&b, "| judge | %s |\n", judgeText(r.Judge))

	b.WriteString("\n## Per vertical\n\nRouting (accuracy, precision, recall) and answers (turns with reply assertions that met them).\n\n| vertical | turns | accuracy | precision | recall | tp | fp | fn | answers |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, id := range r.verticalOrder() {
		v := r.Verticals[id]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %d | %d | %d | %s |\n", mdCell(id), v.Turns, pct(v.Accuracy), pct(v.Precision), pct(v.Recall), v.TP, v.FP, v.FN, r.answerCell(id))
	}
	if _, ok := r.Answers[noneLabel]; ok {
		fmt.Fprintf(&b, "| none (no sub-agent) | | | | | | | | %s |\n", r.answerCell(noneLabel))
	}

	b.WriteString("\n## Datasets\n\n| dataset | cases passed | turns | routing accuracy | answer accuracy |\n| --- | --- | --- | --- | --- |\n")
	for _, name := range sortedKeys(r.Datasets) {
		d := r.Datasets[name]
		fmt.Fprintf(&b, "| %s | %d / %d | %d | %s | %s |\n", mdCell(name), d.CasesPassed, d.Cases, d.Turns, pct(d.RoutingAccuracy), answerOf(d.AnswerAccuracy, d.AnswerTurns))
	}

	if len(r.Confusion.Labels) > 0 {
		b.WriteString("\n## Confusion matrix\n\nRows: expected; columns: invoked.\n\n| expected \\ invoked |")
		for _, l := range r.Confusion.Labels {
			fmt.Fprintf(&b, " %s |", mdCell(l))
		}
		b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(r.Confusion.Labels)) + "\n")
		for i, l := range r.Confusion.Labels {
			fmt.Fprintf(&b, "| **%s** |", mdCell(l))
			for _, n := range r.Confusion.Matrix[i] {
				fmt.Fprintf(&b, " %d |", n)
			}
			b.WriteString("\n")
		}
	}

	c := r.Coverage
	fmt.Fprintf(&b, "\n## Intent-switch pair coverage\n\n%d of %d ordered pairs covered.", c.PairsCovered, c.PairsRequired)
	if len(c.Missing) > 0 {
		fmt.Fprintf(&b, " Missing: %s.", mdText(strings.Join(c.Missing, ", ")))
	}
	b.WriteString("\n")

	if missing := r.missingWordsByAgent(); len(missing) > 0 {
		b.WriteString("\n## Words the definitions do not use\n\nWords users said in turns that should have reached an agent and did not, which its description and examples never use (with how many such turns said them): the first candidates to add to the description.\n\n| agent | words |\n| --- | --- |\n")
		for _, w := range missing {
			fmt.Fprintf(&b, "| %s | %s |\n", mdCell(w.ID), mdCell(w.Words))
		}
	}

	if r.Baseline != nil {
		b.WriteString("\n## Compared with baseline\n\n```\n")
		var diff strings.Builder
		_ = r.Baseline.WriteText(&diff)
		b.WriteString(strings.ReplaceAll(diff.String(), "```", "'''"))
		b.WriteString("```\n")
	}

	fmt.Fprintf(&b, "\n## Failures (%d)\n\n", len(r.Failures))
	if len(r.Failures) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| case | turn | kind | what happened | user said | expected | invoked | reply |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", mdCell(f.Dataset+"/"+f.Case), f.Turn, f.Kind, mdCell(f.Message),
				mdCell(f.User), mdCell(setString(f.Expected)), mdCell(f.InvokedVia()), mdCell(clip(f.Reply, 160)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// answerCell is a vertical's answer accuracy as "75.0% (3/4)", or "n/a" when none of its
// turns asserts on the reply.
func (r *Report) answerCell(id string) string {
	a, ok := r.Answers[id]
	if !ok || a.Turns == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (%d/%d)", pct(a.Accuracy), a.Passed, a.Turns)
}

// answerOf is an answer accuracy with its turn count, or "n/a" when nothing was asserted.
func answerOf(f float64, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (%d turns)", pct(f), n)
}

// verticalOrder is the registered order when known, else sorted ids.
func (r *Report) verticalOrder() []string {
	var out []string
	for _, id := range r.Settings.SubAgents {
		if _, ok := r.Verticals[id]; ok {
			out = append(out, id)
		}
	}
	for _, id := range sortedKeys(r.Verticals) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func gateWord(g GateResult) string {
	switch {
	case g.Skipped:
		return "skipped"
	case g.Passed:
		return "pass"
	}
	return "**FAIL**"
}

func judgeText(j JudgeSummary) string {
	if j.Status != "ok" {
		return j.Status
	}
	return fmt.Sprintf("mean %.2f / 5 over %d replies (%s)", j.Mean, j.Scored, j.Model)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// mdCell makes text safe inside a Markdown table cell: one line, pipes and markup escaped.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return mdText(s)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "<", "&lt;", "[", `\[`, "]", `\]`)

func mdText(s string) string { return mdEscaper.Replace(s) }
