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
// [Renderer.Close]. [Guard] starts no goroutine. A [TurnLog] appends under a short lock and
// wakes followers by closing a channel, so it never waits on a reader; while it has records
// queued for the store it runs one writer goroutine, which commits them in batches and ends
// when the queue is empty (at the latest once [TurnCompleted] is stored; [Hub.Close] makes it
// finish at once and waits for it). [Hub.Done] schedules one timer per finished turn, stopped by
// [Hub.Close]. [Hub.Follow] runs in its
// caller's goroutine. [ServeSSE] runs, for the duration of the call, the library's stream
// goroutine and subscriber watcher plus a feeder and a heartbeat goroutine; it waits for its own
// and has released the library's (which exit right after) by the time it returns.
package stream
