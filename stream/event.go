package stream

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Event is one message of a turn's stream: a sealed union of the types below. The SSE event
// name is [Event.Name]; the SSE data is the event's JSON.
type Event interface {
	Name() string
	isEvent()
}

// Outcome is how a turn ended, as reported by [TurnCompleted].
type Outcome string

const (
	OutcomeOK        Outcome = "ok"
	OutcomeDegraded  Outcome = "degraded"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
)

// TurnStarted opens every turn's stream.
type TurnStarted struct {
	TurnID    string `json:"turn_id"`
	EpisodeID string `json:"episode_id"`
}

// Status is one rendered progress line. Sources name the sub-agents and typed events it stands
// for: one for a single event, several when parallel events were merged.
type Status struct {
	Text    string   `json:"text"`
	Sources []Source `json:"sources"`
}

// Source is a sub-agent and the typed status event it emitted.
type Source struct {
	AgentID string `json:"agent_id"`
	Event   string `json:"event"`
}

// ReplyDelta is a chunk of the composed reply as the orchestrator's LLM streams it.
type ReplyDelta struct {
	Text string `json:"text"`
}

// ReplyCompleted carries the whole composed reply and any structured components.
type ReplyCompleted struct {
	Text       string            `json:"text"`
	Components []json.RawMessage `json:"components,omitempty"`
}

// Error is a user-facing failure notice, in natural language only.
type Error struct {
	Message string `json:"message"`
	IsFinal bool   `json:"is_final"`
}

// TurnCompleted closes every turn's stream.
type TurnCompleted struct {
	TurnID  string  `json:"turn_id"`
	Outcome Outcome `json:"outcome"`
}

func (TurnStarted) Name() string    { return "turn.started" }
func (Status) Name() string         { return "status" }
func (ReplyDelta) Name() string     { return "reply.delta" }
func (ReplyCompleted) Name() string { return "reply.completed" }
func (Error) Name() string          { return "error" }
func (TurnCompleted) Name() string  { return "turn.completed" }

func (TurnStarted) isEvent()    {}
func (Status) isEvent()         {}
func (ReplyDelta) isEvent()     {}
func (ReplyCompleted) isEvent() {}
func (Error) isEvent()          {}
func (TurnCompleted) isEvent()  {}

// Names lists every event name of the wire vocabulary, in the order a turn emits them.
var Names = []string{"turn.started", "status", "reply.delta", "reply.completed", "error", "turn.completed"}

// Decode turns an SSE event name and its data back into an [Event].
func Decode(name string, data []byte) (Event, error) {
	var ev Event
	switch name {
	case "turn.started":
		ev = &TurnStarted{}
	case "status":
		ev = &Status{}
	case "reply.delta":
		ev = &ReplyDelta{}
	case "reply.completed":
		ev = &ReplyCompleted{}
	case "error":
		ev = &Error{}
	case "turn.completed":
		ev = &TurnCompleted{}
	default:
		return nil, fmt.Errorf("stream: unknown event %q", name)
	}
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, fmt.Errorf("stream: decode %s: %w", name, err)
	}
	return deref(ev), nil
}

func deref(ev Event) Event {
	switch e := ev.(type) {
	case *TurnStarted:
		return *e
	case *Status:
		return *e
	case *ReplyDelta:
		return *e
	case *ReplyCompleted:
		return *e
	case *Error:
		return *e
	case *TurnCompleted:
		return *e
	}
	return ev
}

// Record is an event as kept in a turn's log: IDs start at 1 and increase by one per event.
type Record struct {
	ID    uint64
	Event Event

	// name and data are Event's encoding, when the log that made the record encoded it: the
	// SSE frame and the store then share one encoding.
	name string
	data []byte
}

// Equal reports whether r and o are the same record, the same id and event, however either
// was encoded (go-cmp uses it too).
func (r Record) Equal(o Record) bool { return r.ID == o.ID && reflect.DeepEqual(r.Event, o.Event) }

// Marshal returns the record's event name and JSON, encoding the event only if its log has
// not already.
func (r Record) Marshal() (name string, data []byte, err error) {
	if r.data != nil {
		return r.name, r.data, nil
	}
	return Marshal(r.Event)
}

// Sink receives a turn's events in order. Implementations must not block for long: the turn
// loop calls Publish inline.
type Sink interface {
	Publish(Event)
}

// SinkFunc adapts a function to [Sink].
type SinkFunc func(Event)

// Publish calls f(ev).
func (f SinkFunc) Publish(ev Event) { f(ev) }

// Emission is a typed status event as a sub-agent emits it, before the orchestrator renders it.
type Emission struct {
	AgentID string
	Event   string
	Params  map[string]string // safe, short values for transform templates
}
