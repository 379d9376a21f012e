package breaker

import (
	"context"
	"errors"

	"github.com/switchboard-ai/switchboard/ask"
)

// Agent puts a breaker in front of a remote (A2A) sub-agent (target "a2a:<agent id>").
type Agent struct {
	set    *Set
	target string
	next   ask.Agent
}

var _ ask.Agent = (*Agent)(nil)

// NewAgent wraps next, the runtime of sub-agent id, with set's breaker for it.
func NewAgent(set *Set, id string, next ask.Agent) *Agent {
	return &Agent{set: set, target: AgentTarget(id), next: next}
}

// AgentTarget names a remote sub-agent's breaker.
func AgentTarget(id string) string { return "a2a:" + id }

// Ask asks next unless its breaker is open. A refused call returns at once with the outcome
// [ask.OutcomeUnavailable] and no error: the orchestrator then tells the user, in its usual
// words, that this sub-agent's answer is unavailable, and the routing record shows why it took
// no time. Every error of next counts as a failure, except when the caller cancelled.
func (a *Agent) Ask(ctx context.Context, q ask.Question) (ask.Answer, error) {
	var ans ask.Answer
	err := a.set.Do(a.target, func(error) Verdict {
		if errors.Is(ctx.Err(), context.Canceled) {
			return Neutral
		}
		return Failure
	}, func() error {
		var err error
		ans, err = a.next.Ask(ctx, q)
		return err
	})
	if errors.Is(err, ErrOpen) {
		refused(ctx, a.target)
		return ask.Answer{Outcome: ask.OutcomeUnavailable}, nil
	}
	return ans, err
}
