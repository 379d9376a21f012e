// Package web is switchboard's HTTP surface: the gin router, bearer authentication, the turn
// and episode routes of DESIGN.md §6, SSE endpoints, the A2A v0.3 agent card and JSON-RPC
// endpoint (the orchestrator as one A2A agent: task = turn, context = episode), the AG-UI 1.0
// endpoint for chat frontends (run = turn, thread = episode), health and readiness, and the
// chat page under static/ (embedded). It is the only package that imports
// gin; domain errors become HTTP statuses (or JSON-RPC error codes) here and nowhere else, and
// no internal error text reaches a client.
//
// Goroutine model: gin serves each request on its own goroutine. Turns never run on a request
// goroutine: the orchestrator's Service runs them detached, so a turn outlives its client;
// event streams (SSE, A2A's message/stream, AG-UI runs) follow the turn's log and end with
// turn.completed or the client; a blocking A2A message/send waits on that log the same way. An
// AG-UI run adds one goroutine for its keep-alive comments, stopped before the handler returns;
// its client leaving always cancels the turn, whatever CancelOnDisconnect says (an aborted
// request is how AG-UI stops a run).
package web
