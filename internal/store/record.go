package store

import (
	"encoding/json"
	"fmt"
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

// cloneDecision copies d through its JSON form, as a database column holds it, so a stored
// decision shares nothing with the caller's and reads back the same from every store.
func cloneDecision(d *orchestrator.Decision) (*orchestrator.Decision, error) {
	if d == nil {
		return nil, nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("store: encode decision: %w", err)
	}
	out := new(orchestrator.Decision)
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("store: decode decision: %w", err)
	}
	return out, nil
}

// abandonedEvent closes the log of a turn that AbandonStale finished: followers end on it as
// on any other turn's end.
func abandonedEvent(turnID string) stream.TurnCompleted {
	return stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeFailed}
}
