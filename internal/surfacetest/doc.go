// Package surfacetest runs a real turn service for the tests of the HTTP surfaces (web,
// a2aserver, agui): the demo definitions, an orchestrator over a given model, sub-agents that
// answer at once (rewards can be made to hang), and an in-memory store.
package surfacetest
