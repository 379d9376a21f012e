package llm

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// normalize folds a provider response into the one shape callers rely on: exactly one
// choice whose Content is all reply text in order and whose ToolCalls are all tool calls
// in order, each with Type "function" and a non-empty ID.
//
// Why: anthropic returns one choice per content block (text, then one per tool_use);
// Gemini returns calls without ID; openai returns everything in Choices[0].
// We never ask for several candidates (n > 1), so merging choices loses nothing.
func normalize(resp *llms.ContentResponse) *llms.ContentResponse {
	if resp == nil || len(resp.Choices) == 0 {
		return resp
	}
	out := &llms.ContentChoice{}
	var text, reasoning strings.Builder
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		text.WriteString(c.Content)
		reasoning.WriteString(c.ReasoningContent)
		if out.StopReason == "" {
			out.StopReason = c.StopReason
		}
		if out.GenerationInfo == nil {
			out.GenerationInfo = c.GenerationInfo
		}
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			if tc.Type == "" {
				tc.Type = "function"
			}
			if tc.ID == "" {
				tc.ID = newCallID()
			}
			out.ToolCalls = append(out.ToolCalls, tc)
		}
		if out.FuncCall == nil && len(c.ToolCalls) == 0 && c.FuncCall != nil {
			out.FuncCall = c.FuncCall // legacy function-call API; we do not use it
		}
	}
	out.Content = text.String()
	out.ReasoningContent = reasoning.String()
	if len(out.ToolCalls) > 0 {
		out.FuncCall = out.ToolCalls[0].FunctionCall // as the openai provider does
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{out}}
}

// newCallID synthesises a tool call id for providers that send none (Gemini, which finds
// the function a result answers from the id of the call in the history, so the id only
// has to be unique within that history).
func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "call_" + hex.EncodeToString(b[:])
}
