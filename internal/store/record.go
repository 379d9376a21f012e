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
	if len(d.Agents) > 0 {
		out.Agents = make([]orchestrator.AgentOutcome, 0, len(d.Agents))
	}
	for _, a := range d.Agents {
		out.Agents = append(out.Agents, orchestrator.AgentOutcome{
			Agent: a.Agent, Outcome: a.Outcome, Started: a.Started.Round(0), Latency: storedLatency(a.Latency),
			Tools: nilIfEmpty(slices.Clone(a.Tools)),
		})
	}
	return out, nil
}

// storedLatency is d through the JSON form's float milliseconds.
func storedLatency(d time.Duration) time.Duration {
	return time.Duration(float64(d) / float64(time.Millisecond) * float64(time.Millisecond))
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// abandonIDGap is how far past a turn's last stored event id a sweep writes the events that
// close an abandoned turn's log. A live turn shows each event to its followers before the
// store has it (the store is written in batches), so ids just past the stored end may already
// have been seen, with other content, by clients that will resume from them. No turn can
// publish 2^32 events (that many would not fit in its process's memory, nor in its deadline),
// so every id a client can have seen is below the sweep's: no id is ever reused, and a client
// resuming from any id it saw is given the sweep's error and turn.completed.
const abandonIDGap = 1 << 32

// abandonedMessage tells the user of an abandoned turn what happened, in plain words.
const abandonedMessage = "Sorry, the server working on this answer stopped before it finished. Please ask again."

// abandonEvents close the log of a turn a sweep failed, under ids abandonIDGap past its last
// stored one: an error in plain words, then turn.completed, so followers end on it as on any
// other turn's end.
func abandonEvents(turnID string) []stream.Event {
	return []stream.Event{
		stream.Error{Message: abandonedMessage, IsFinal: true},
		stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeFailed},
	}
}
