package subagents

import "context"

// Runtime answers for one sub-agent definition: an [Agent] runs the definition's own LLM loop
// over its CCS tools, a [Remote] asks the remote A2A agent named by its a2a_url. Both take the
// same [Request] and return the same [Reply], so the wiring treats them alike.
type Runtime interface {
	Ask(ctx context.Context, req Request) (Reply, error)
}

var _ Runtime = (*Agent)(nil)
