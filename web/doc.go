// Package web is switchboard's REST surface and the composition of the others: the gin router,
// the turn and episode routes (/v1/...), their SSE streams, health and readiness, and the chat
// page under static/ (embedded). It mounts the A2A and AG-UI handlers (packages a2aserver and
// agui) when it is given them, so that one handler serves everything behind the same bounds,
// CORS and access log; [Handler.API] and [Handler.Chat] serve one surface each. It is the only
// package that imports gin; domain errors become HTTP statuses here (through httpkit) and no
// internal error text reaches a client.
//
// Goroutine model: gin serves each request on its own goroutine. Turns never run on a request
// goroutine: the orchestrator's Service runs them detached, so a turn outlives its client;
// event streams follow the turn's log and end with turn.completed or the client. With
// Config.DetachStreams a stream over HTTP/1.x leaves its handler's goroutine once it starts,
// and [Handler.WaitStreams] waits for such streams at shutdown.
package web
