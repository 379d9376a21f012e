package subagents

import "errors"

var (
	// ErrNotSubAgent means the definition given to [New] is not of kind sub_agent.
	ErrNotSubAgent = errors.New("subagents: definition is not a sub-agent")
	// ErrNoModel means the configuration lacks the sub-agent's LLM.
	ErrNoModel = errors.New("subagents: no model")
	// ErrNoCCS means the sub-agent has tools but no CCS client or typing registry.
	ErrNoCCS = errors.New("subagents: tools need a CCS client and registry")
	// ErrNoPrincipal means the invocation carries no principal: nothing is fetched without one.
	ErrNoPrincipal = errors.New("subagents: no principal inherited")
	// ErrModel wraps a failure of the sub-agent's LLM.
	ErrModel = errors.New("subagents: model call failed")
	// ErrNotRemote means the definition given to [NewRemote] has no a2a_url.
	ErrNotRemote = errors.New("subagents: definition has no a2a_url")
	// ErrRemote wraps a failed call to a remote A2A agent: transport, HTTP status, JSON-RPC
	// error or a response that is not A2A.
	ErrRemote = errors.New("subagents: remote agent call failed")
	// ErrRemoteTask means the remote agent ended the task without an answer (failed,
	// canceled, rejected, or waiting for input no sub-agent call can give).
	ErrRemoteTask = errors.New("subagents: remote agent did not answer")

	// errNoResponse is the cause wrapped in ErrModel when a model returns neither a response
	// nor an error.
	errNoResponse = errors.New("model returned no response")
)
