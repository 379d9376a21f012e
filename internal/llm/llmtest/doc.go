// Package llmtest provides wire-level fake LLM servers for tests: an OpenAI-compatible
// chat-completions endpoint, an Anthropic messages endpoint and Gemini's OpenAI-compatible
// endpoint with its differences, all on httptest.
//
// A [Server] answers each request with the first [Step] of its script whose [Matcher]
// accepts the decoded request and whose Times budget is not used up. Steps may answer
// with text, tool calls, both, or an HTTP error status (optionally with Retry-After),
// streamed as Server-Sent Events when the client asks for a stream. Every request is
// decoded into a provider-neutral [Request] and recorded, so tests can assert what the
// client actually put on the wire (messages, tool calls, tool results, tool schemas).
// Gemini correlates calls and results by function name, and they are recorded so.
//
// Goroutine model: the httptest server runs each request on its own goroutine. Step
// selection and recording are guarded by one mutex; replies are written outside it, so
// parallel callers (for example concurrent sub-agents) are served at the same time.
// Matching is by predicate first and script order second, never by arrival order alone.
// The server is closed by t.Cleanup; a stalled reply ([Step].Stall) is released when
// the client goes away or the server closes.
package llmtest
