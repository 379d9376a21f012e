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
// [Hub.Close]. [Hub.Follow] runs in its caller's goroutine and starts none. [ServeSSE] writes
// the stream, heartbeats included, on its caller's goroutine and starts none, unless
// [SSEOptions].Detach lets it take an HTTP/1.x connection over: then the call returns at once
// and the stream goes on in two goroutines of its own, a writer and the one read of the
// connection that notices the client leaving, which both end with the stream.
package stream
