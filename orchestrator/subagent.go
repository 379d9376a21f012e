package orchestrator

import "github.com/switchboard-ai/switchboard/agent"

// The sub-agent contract is package agent's, which the sub-agent runtime implements directly.
// These names are aliases, so the orchestrator's own code and its callers read naturally.
type (
	// SubAgent answers the orchestrator's ask_<id> calls for one bound definition.
	SubAgent = agent.SubAgent
	// SubAgentFunc adapts a function to [SubAgent].
	SubAgentFunc = agent.Func
	// Question is one dispatch to a sub-agent.
	Question = agent.Question
	// Inherited is the context every sub-agent receives at instantiation.
	Inherited = agent.Inherited
	// Answer is a sub-agent's reply to one [Question].
	Answer = agent.Answer
	// Outcome is how one sub-agent invocation ended.
	Outcome = agent.Outcome
)

// Outcomes of one sub-agent invocation; see [agent.Outcome].
const (
	OutcomeOK          = agent.OutcomeOK
	OutcomePartial     = agent.OutcomePartial
	OutcomeUnavailable = agent.OutcomeUnavailable
	OutcomeFailed      = agent.OutcomeFailed
	OutcomeTimeout     = agent.OutcomeTimeout
	OutcomeCancelled   = agent.OutcomeCancelled
)
