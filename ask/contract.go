package ask

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
)

// Agent answers the orchestrator's ask_<id> calls for one bound definition.
type Agent interface {
	// Ask runs the sub-agent for one question. A returned error is a failure of the sub-agent
	// itself: the orchestrator reports it as unavailable and never shows the error.
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Func adapts a function to [Agent].
type Func func(ctx context.Context, q Question) (Answer, error)

// Ask calls f.
func (f Func) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// Question is one dispatch to a sub-agent.
type Question struct {
	// Request is what the orchestrator's LLM asked this sub-agent, in words.
	Request string
	// Inherited is the session context the sub-agent is instantiated with.
	Inherited Inherited
	// Emit reports a typed status event; the orchestrator decides what the user sees. It is
	// safe for concurrent use and never blocks for long; nil drops the events.
	Emit func(event string, params map[string]string)
}

// Inherited is the context every sub-agent receives at instantiation. The principal is set at
// the session boundary and travels unchanged; sub-agents never derive their own.
type Inherited struct {
	Principal    principal.Principal
	EpisodeID    string
	TurnID       string
	Locale       string
	Location     string
	PriorContext string // orchestrator-written summary, set when the conversation switched vertical
}

// How an in-process sub-agent states its [Inherited] context to its LLM: lines appended to its
// system prompt, after the definition's prompt and today's date, in this order, each only when
// set. A model that takes the prompt's words for the agent's trade (the offline model) stops
// reading at the first of them: the conversation's words are not the agent's.
const (
	LocaleLine       = "\nUser locale: "
	LocationLine     = "\nUser location: "
	PriorContextLine = "\nEarlier in this conversation: "
)

// Answer is a sub-agent's reply to one [Question].
type Answer struct {
	Text       string            // narration for the orchestrator to compose from
	Outcome    Outcome           // OutcomeOK, OutcomePartial or OutcomeUnavailable
	Components []json.RawMessage // structured render payloads passed through to the client
	// Tools are the definition's tools the sub-agent called, in call order (a tool called
	// twice is named twice), for the routing record: which data an answer came from.
	Tools []string
	// Busy is the time the sub-agent spent inside LLM and CCS calls, for the dispatch
	// overhead metric.
	Busy time.Duration
}

// Outcome is how one sub-agent invocation ended, as the routing decision records it. A
// sub-agent reports the first three; the orchestrator records the others when the invocation
// itself failed.
type Outcome string

const (
	OutcomeOK          Outcome = "ok"
	OutcomePartial     Outcome = "partial"     // answered from degraded data, with a caveat
	OutcomeUnavailable Outcome = "unavailable" // answered, but its data was unavailable
	OutcomeFailed      Outcome = "failed"      // error or panic of the sub-agent itself
	OutcomeTimeout     Outcome = "timeout"     // exceeded its definition's timeout
	OutcomeCancelled   Outcome = "cancelled"   // the turn was cancelled
)
