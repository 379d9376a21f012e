package store

import (
	"slices"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// storedTime is t as every store gives it back: in UTC, to the microsecond, which is as fine
// as PostgreSQL keeps. Memory applies it too, so that no test passes on one store only.
func storedTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// normalizeTurn applies [storedTime] to the turn's own timestamps. The decision's times travel
// as JSON and keep their nanoseconds.
func normalizeTurn(t orchestrator.TurnRecord) orchestrator.TurnRecord {
	t.Created = storedTime(t.Created)
	t.Completed = storedTime(t.Completed)
	return t
}

// cloneDecision copies d as a database column would give it back: sharing nothing with the
// caller's, latencies through the JSON form's float milliseconds, times without their
// monotonic reading. It used to go through JSON itself, which was a tenth of a turn's CPU on
// the memory store; TestCloneDecisionMatchesJSON keeps the two the same.
func cloneDecision(d *orchestrator.Decision) (*orchestrator.Decision, error) {
	if d == nil {
		return nil, nil
	}
	out := &orchestrator.Decision{
		IntentCount: d.IntentCount, Cap: d.Cap, CapBehaviour: d.CapBehaviour,
		Invoked: nilIfEmpty(slices.Clone(d.Invoked)), Dropped: nilIfEmpty(slices.Clone(d.Dropped)),
	}
	for _, a := range d.Agents {
		out.Agents = append(out.Agents, orchestrator.AgentOutcome{
			Agent: a.Agent, Outcome: a.Outcome, Started: a.Started.Round(0),
			Latency: time.Duration(float64(a.Latency) / float64(time.Millisecond) * float64(time.Millisecond)),
		})
	}
	return out, nil
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// abandonedEvent closes the log of a turn that AbandonStale finished: followers end on it as
// on any other turn's end.
func abandonedEvent(turnID string) stream.TurnCompleted {
	return stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeFailed}
}
