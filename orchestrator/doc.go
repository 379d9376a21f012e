// Package orchestrator binds an orchestrator Agent Definition and its sub-agents into a
// runnable turn loop.
//
// [New] is the factory: it resolves the definition's sub_agents into tools named ask_<id>
// whose descriptions are the sub-agents' descriptions, verbatim, once. [Orchestrator.Run]
// executes one turn: it asks the orchestrator's LLM whom to ask, drops tool calls beyond the
// fan-out cap before anything runs, dispatches the kept calls concurrently, and has the LLM
// compose the one reply from their results. Nothing is looked up after the LLM is called.
//
// Goroutine model: Run blocks until the turn ends. Each kept tool call runs in its own
// goroutine (an errgroup limited to the cap; the last call on Run's own goroutine); a
// sub-agent's error, timeout or panic is kept as that call's outcome and never cancels its
// siblings, while cancelling Run's context cancels all of them. Run returns only after every
// goroutine it started has returned. The goroutines that run the Service's turns wait a
// fraction of a second for the next turn before they end: reusing a goroutine whose stack has
// grown saves growing a new one.
//
// [Service] runs turns detached from the requests that start them: it stores each turn, runs
// it under a deadline in its own goroutine, writes its events to the turn log that clients
// follow and resume, honours idempotency keys, and cancels on request.
//
// The package depends on sub-agents only through the small [ask.Agent] interface, so its tests
// run on fakes; the binary injects the real runtime (the wiring is in internal/assembly).
package orchestrator
