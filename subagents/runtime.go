package subagents

import "github.com/switchboard-ai/switchboard/ask"

// Both runtimes implement the orchestrator's sub-agent contract themselves: an [Agent] runs
// the definition's own LLM loop over its CCS tools, a [Remote] asks the remote A2A agent named
// by its a2a_url.
var (
	_ ask.Agent = (*Agent)(nil)
	_ ask.Agent = (*Remote)(nil)
)
