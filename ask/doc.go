// Package ask is the contract between the orchestrator and the sub-agents it asks:
// (a [Question] in, an [Answer] out), the [Outcome] of one invocation, and how to read a
// model's response (its tool calls, its text, its token usage). It is a leaf: the orchestrator
// defines nothing of its own for it, and the sub-agent runtime implements [Agent] directly.
package ask
