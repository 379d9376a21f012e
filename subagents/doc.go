// Package subagents is the sub-agent runtime: it instantiates a sub-agent definition with the
// context it inherits from the orchestrator, runs the sub-agent's own LLM tool loop over its
// CCS tools, and guards the boundary where CCS data enters an LLM context.
//
// The tool wrapper ([Agent] calls it for every CCS tool call) is the security boundary of
// user data: it sends the inherited principal on every request, verifies the envelope's
// signature (when a key is configured) and principal before the payload can reach any LLM
// message, suppresses and alerts on a mismatch without retrying, and turns every other
// failure into a plain "unavailable" result. Status is the single decision boundary.
//
// A definition with a2a_url is answered by a [Remote] instead: a remote A2A agent asked with
// JSON-RPC message/stream (or message/send and tasks/get polling, when it does not stream),
// which receives the inherited principal with every call. Both
// implement [ask.Agent], the orchestrator's contract, so the wiring treats them alike.
//
// Goroutine model: [Agent.Ask] runs on the caller's goroutine and calls tools one after the
// other; [Remote.Ask] makes its HTTP calls on the caller's goroutine. Both are safe for
// concurrent use by many turns.
package subagents
