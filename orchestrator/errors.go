package orchestrator

import "errors"

var (
	// ErrNotOrchestrator means the definition given to [New] is not of kind orchestrator.
	ErrNotOrchestrator = errors.New("orchestrator: definition is not an orchestrator")
	// ErrUnboundSubAgent means a sub_agents entry has no definition or no runtime.
	ErrUnboundSubAgent = errors.New("orchestrator: sub-agent not bound")
	// ErrNoModel means the configuration lacks the orchestrator's LLM.
	ErrNoModel = errors.New("orchestrator: no model")
	// ErrModel wraps a failure of the orchestrator's own LLM call.
	ErrModel = errors.New("orchestrator: model call failed")
)
