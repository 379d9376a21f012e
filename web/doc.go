// Package web is switchboard's HTTP surface: the gin router, bearer authentication, the turn
// and episode routes of DESIGN.md §6, SSE endpoints, health and readiness, and the chat page
// under static/ (embedded). It is the only package that imports gin; domain errors become
// HTTP statuses here and nowhere else, and no internal error text reaches a client.
//
// Goroutine model: gin serves each request on its own goroutine. Turns never run on a request
// goroutine: the orchestrator's Service runs them detached, so a turn outlives its client;
// event streams follow the turn's log and end with turn.completed or the client.
package web
