// Package stream owns what a client sees of a turn while it runs: the wire vocabulary (a sealed
// [Event] union, versioned by [VocabularyVersion]), the orchestrator's rendering of sub-agents'
// typed status events into progress lines ([Renderer]), the last check that no internal detail
// reaches a user ([Guard]), each turn's append-only event log with replay ([Hub], [LogStore]),
// and serving that log as Server-Sent Events ([ServeSSE]), plus an SSE parser for clients and
// the eval harness ([ReadEvents]).
//
// A turn's events flow Renderer → Guard → [TurnLog]; the turn loop publishes reply text and
// lifecycle events to the same Guard. The log, not the SSE library, is the source of truth:
// every connection replays from it after the client's Last-Event-ID and then follows it live.
//
// Goroutine model. A [Renderer] runs one timer callback per open batch window and none after
// [Renderer.Close]. [Guard], [TurnLog] and [Hub] start no goroutines: writers append under a
// short lock and wake followers by closing a channel, so they never wait on a reader. [Hub.Done]
// schedules one timer per finished turn, stopped by [Hub.Close]. [Hub.Follow] runs in its
// caller's goroutine. [ServeSSE] runs, for the duration of the call, the library's stream
// goroutine and subscriber watcher plus a feeder and a heartbeat goroutine; it waits for its own
// and has released the library's (which exit right after) by the time it returns.
package stream
