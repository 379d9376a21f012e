// Package llm builds the service's language models from configuration: one
// langchaingo llms.Model per alias of the config's `models` map ([New], [Registry]),
// for the providers openai (and any OpenAI-compatible server), anthropic, ollama
// (through its OpenAI-compatible /v1 endpoint, since the native provider has no tools),
// googleai (Gemini, through its OpenAI-compatible endpoint, which keeps the Google Cloud
// client libraries out of the binary), and offline. It reads no environment variables: cmd resolves
// [ModelConfig].APIKey from api_key_env.
//
// # What every real provider gets
//
// Provider models are wrapped in a decorator that gives all of them one behaviour:
//
//   - One choice per response. Text of all choices is concatenated and every tool call
//     lands in Choices[0].ToolCalls with Type "function" and an ID (anthropic returns a
//     choice per content block; Gemini sends calls without IDs).
//   - The streaming callback receives reply text only: the openai client's empty chunks
//     and raw tool-call JSON never reach it.
//   - When ctx ends the error is ctx's (the openai client can return a partial response
//     with a nil error, or a plain-string "request cancelled").
//   - A per-call timeout ([ModelConfig].Timeout) bounds the call, retries included.
//   - 429, 5xx and connection failures are retried with jittered exponential backoff,
//     honouring Retry-After, never past the deadline and never once text has been
//     streamed to the caller; other 4xx are not retried ([ErrRejected]). Exhaustion is
//     [ErrUnavailable].
//   - Token usage is reported per call through [WithUsageHook].
//
// # Parallel tool calls: the portable history shape
//
// A response may carry several tool calls (OpenAI allows parallel calls by default when
// tools are sent; Anthropic returns several tool_use blocks). When sending the results
// back, build the history as one AI message per tool call, each followed by its result:
//
//	AI{Parts: [ToolCall c1]}, Tool{Parts: [ToolCallResponse{ToolCallID: c1.ID, Name: c1 name, Content: r1}]},
//	AI{Parts: [ToolCall c2]}, Tool{Parts: [ToolCallResponse{ToolCallID: c2.ID, Name: c2 name, Content: r2}]},
//
// Do not put several ToolCall parts in one AI message or several results in one Tool
// message: the anthropic provider reads only Parts[0] of a message (silently losing the
// other calls) and the openai provider rejects a tool message with more than one part.
// Use ChatMessageTypeTool, never ChatMessageTypeFunction. Keep each call's ID as the
// response carried it: Gemini finds the function a result answers through that ID (the
// wrapper fills in the IDs Gemini leaves out). Set Name as well; it costs nothing.
//
// # Goroutines
//
// Models and the [Registry] are immutable after construction and safe for concurrent
// use; each GenerateContent call runs on the caller's goroutine (providers may read
// streams on helper goroutines of their own, which end with the call). The usage hook
// runs on the caller's goroutine after each call.
package llm
