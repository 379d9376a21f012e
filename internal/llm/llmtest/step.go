package llmtest

import (
	"strconv"
	"strings"
)

// Step is one scripted answer.
type Step struct {
	// Match selects the requests this step answers; nil matches every request.
	Match Matcher
	// Times is how many requests this step answers before it is used up; 0 means no limit.
	Times int

	// Status, when non-zero, answers with this HTTP status and a provider-shaped error
	// body instead of a reply.
	Status int
	// RetryAfter is sent as the Retry-After header with Status (e.g. "1").
	RetryAfter string

	// Text is the assistant text of the reply. When streamed it is sent word by word.
	Text string
	// ToolCalls are returned in one response, in order. An empty ID is filled in by the
	// server ("call_<request>_<i>" or "toolu_<request>_<i>"); empty Arguments mean "{}".
	ToolCalls []ToolCall
	// Usage is the token usage reported with the reply.
	Usage Usage
	// Stall, for streamed replies, stops after the first text chunk and holds the
	// response open until the client goes away (to test cancellation mid-stream).
	Stall bool
}

// Usage is the token usage a fake reply reports.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// step is a Step with its remaining budget.
type step struct {
	Step
	used int
}

func (s *step) available() bool { return s.Times == 0 || s.used < s.Times }

// textChunks splits text into word-sized stream deltas that concatenate back to text.
func textChunks(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// argChunks splits JSON arguments into two fragments, as real servers stream them.
func argChunks(args string) []string {
	if len(args) < 2 {
		return []string{args}
	}
	return []string{args[:len(args)/2], args[len(args)/2:]}
}

func callArgs(tc ToolCall) string {
	if strings.TrimSpace(tc.Arguments) == "" {
		return "{}"
	}
	return tc.Arguments
}

func callID(tc ToolCall, prefix string, req, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return prefix + strconv.Itoa(req) + "_" + strconv.Itoa(i)
}
