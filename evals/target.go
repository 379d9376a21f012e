package evals

import (
	"context"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// Target runs turns for the runner: the in-process service ([NewServiceTarget]) or a live
// server ([NewHTTPTarget]). Implementations must be safe for concurrent use; the runner calls
// InjectFaults and ClearFaults only while no turn is running.
type Target interface {
	// Turn sends one user message and returns once the turn has completed.
	Turn(ctx context.Context, in TurnInput) (TurnOutput, error)
	FaultInjector
}

// FaultInjector makes sub-agents' data fail for the cases that ask for it.
type FaultInjector interface {
	// InjectFaults replaces every fault injected for user with faults. They apply to user's
	// calls only: a live server scopes faults to the principal that injects them.
	InjectFaults(ctx context.Context, user string, faults []AgentFault) error
	// ClearFaults removes every fault injected for user.
	ClearFaults(ctx context.Context, user string) error
}

// AgentFault is one sub-agent's fault with the enrichers it reads, from its definition, so an
// injector working at the context service knows where to inject it.
type AgentFault struct {
	Agent     string
	Kind      FaultKind
	Enrichers []string
}

// TurnInput is one user message to send.
type TurnInput struct {
	User      string // the principal
	EpisodeID string // empty starts a new episode
	Message   string
}

// TurnOutput is what a target observed of one completed turn.
type TurnOutput struct {
	TurnID    string
	EpisodeID string
	// Decision is the stored routing record; nil when the target could not read it.
	Decision *orchestrator.Decision
	// Events are every event of the turn's stream, in order.
	Events []Event
	// Reply is the composed reply (reply.completed, or the deltas joined when it is missing).
	Reply string
	// Stored is the reply as the stored turn serves it later (GET /v1/turns/{id}, episodes,
	// A2A): the leak gate reads it too.
	Stored string
	// Errors are the messages of the stream's error events.
	Errors []string
	// Outcome is the turn.completed outcome.
	Outcome string
	// Latency runs from sending the message to receiving turn.completed.
	Latency time.Duration
}

// Invoked returns the sub-agents the turn ran, from its routing record.
func (o TurnOutput) Invoked() []string {
	if o.Decision == nil {
		return nil
	}
	return o.Decision.Invoked
}

// Visible is all text the user saw as prose: the reply and any error notices.
func (o TurnOutput) Visible() string {
	s := o.Reply
	for _, e := range o.Errors {
		s += "\n" + e
	}
	return s
}

// Event is one stream event as sent on the wire: SSE id, event name and JSON data.
type Event struct {
	ID   uint64
	Name string
	Data []byte
}
