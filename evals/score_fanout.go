package evals

import (
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// fanOutCheck judges a multi-intent turn: every expected sub-agent reached (when the turn asks
// for more than the cap: exactly cap of them, all expected), never more than the cap, and the
// ones reached running at the same time. It returns "" when the turn is correct, else why not.
func fanOutCheck(expect, invoked []string, cap int, d *orchestrator.Decision) string {
	switch {
	case cap > 0 && len(invoked) > cap:
		return fmt.Sprintf("invoked %d sub-agents, over the cap of %d", len(invoked), cap)
	case overCap(expect, cap):
		if len(invoked) != cap || !subset(invoked, expect) {
			return fmt.Sprintf("over the cap, it should invoke %d of the expected sub-agents and nothing else", cap)
		}
	case !subset(expect, invoked):
		return fmt.Sprintf("did not invoke %v", minus(expect, invoked))
	}
	if !overlapped(d, invoked) {
		return "the sub-agents did not run concurrently"
	}
	return ""
}

// minJudgedRun is how long a sub-agent must have run before a sibling that started only after
// it had finished counts as evidence of one-after-the-other running. Start times alone cannot
// tell: sub-agents that answer in a millisecond (the offline model on the embedded CCS) often
// finish before a sibling goroutine gets a CPU, and on a loaded machine that wait passed 50 ms.
// For a concurrent fan-out to look sequential here, the scheduler would have to hold a sibling
// that was ready to run for a whole second while another ran; a sequential fan-out over real
// models, whose sub-agents take seconds, still fails.
const minJudgedRun = time.Second

// overlapped reports whether the invoked sub-agents ran concurrently, judged by their running
// intervals rather than by how close their starts were: it fails only when some sub-agent
// started after a sibling that had run for at least [minJudgedRun] had already finished. Runs
// too short to judge, and turns without timings, pass.
func overlapped(d *orchestrator.Decision, invoked []string) bool {
	if d == nil || len(invoked) < 2 {
		return true
	}
	var runs []orchestrator.AgentOutcome
	for _, a := range d.Agents {
		if slices.Contains(invoked, a.Agent) && !a.Started.IsZero() {
			runs = append(runs, a)
		}
	}
	for _, earlier := range runs {
		if earlier.Latency < minJudgedRun {
			continue
		}
		end := earlier.Started.Add(earlier.Latency)
		for _, later := range runs {
			if !later.Started.Before(end) {
				return false
			}
		}
	}
	return true
}
