// Package agui serves switchboard over AG-UI: POST /agui takes a RunAgentInput and answers
// with an SSE stream of AG-UI events (RUN_STARTED, TEXT_MESSAGE_*, STEP_*, RUN_FINISHED or
// RUN_ERROR). The thread is an episode and the run is a turn.
//
// Each request runs on its handler's goroutine; a stream has one more goroutine, its
// heartbeat, which ends with it. See docs/agui.md for the mapping of turn events to AG-UI's.
package agui
