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

// overlapTolerance is how close together sub-agents must start for the check to accept
// intervals that do not overlap. Sub-agents that answer in less than a millisecond (the
// offline model on the embedded CCS) finish before a sibling goroutine is even scheduled;
// timing cannot tell that from running one after the other, so starts this close pass. A
// sequential fan-out over real models starts its siblings seconds apart and still fails.
const overlapTolerance = 50 * time.Millisecond

// overlapped reports whether the invoked sub-agents ran concurrently: their run intervals
// share a moment (every one started before the first one to finish had finished), or they
// all started within [overlapTolerance]. Without timings it cannot tell and does not fail
// the turn.
func overlapped(d *orchestrator.Decision, invoked []string) bool {
	if d == nil || len(invoked) < 2 {
		return true
	}
	var firstStart, lastStart, firstEnd time.Time
	n := 0
	for _, a := range d.Agents {
		if !slices.Contains(invoked, a.Agent) || a.Started.IsZero() {
			continue
		}
		end := a.Started.Add(a.Latency)
		if n == 0 || a.Started.Before(firstStart) {
			firstStart = a.Started
		}
		if n == 0 || a.Started.After(lastStart) {
			lastStart = a.Started
		}
		if n == 0 || end.Before(firstEnd) {
			firstEnd = end
		}
		n++
	}
	return n < 2 || !lastStart.After(firstEnd) || lastStart.Sub(firstStart) <= overlapTolerance
}
