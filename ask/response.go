package ask

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ToolCalls returns the function calls of every choice of resp. When one choice holds them
// all, the slice is that choice's own (capped, so an append copies it): callers read it.
func ToolCalls(resp *llms.ContentResponse) []llms.ToolCall {
	n := 0
	for _, c := range resp.Choices {
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall != nil {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	if len(resp.Choices) == 1 && len(resp.Choices[0].ToolCalls) == n {
		return resp.Choices[0].ToolCalls[:n:n]
	}
	calls := make([]llms.ToolCall, 0, n)
	for _, c := range resp.Choices {
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall != nil {
				calls = append(calls, tc)
			}
		}
	}
	return calls
}

// Text joins the text of every choice of resp.
func Text(resp *llms.ContentResponse) string {
	if len(resp.Choices) == 1 {
		return resp.Choices[0].Content
	}
	var b strings.Builder
	for _, c := range resp.Choices {
		b.WriteString(c.Content)
	}
	return b.String()
}

// Tokens is what a response says it cost, summed over its choices.
type Tokens struct {
	Input, Output, Total int
}

// TokensOf reads the token counts langchaingo's providers put in each choice's
// GenerationInfo. They use different keys: openai PromptTokens/CompletionTokens, anthropic
// InputTokens/OutputTokens, googleai both the openai names and snake_case ones (as int32).
func TokensOf(resp *llms.ContentResponse) Tokens {
	var t Tokens
	for _, c := range resp.Choices {
		t.Input += firstInt(c.GenerationInfo, "PromptTokens", "InputTokens", "input_tokens")
		t.Output += firstInt(c.GenerationInfo, "CompletionTokens", "OutputTokens", "output_tokens")
		t.Total += firstInt(c.GenerationInfo, "TotalTokens", "total_tokens")
	}
	if t.Total == 0 {
		t.Total = t.Input + t.Output
	}
	return t
}

func firstInt(info map[string]any, keys ...string) int {
	for _, k := range keys {
		switch v := info[k].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		}
	}
	return 0
}
