package subagents_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// scriptedModel is a goroutine-safe llms.Model that records every call it gets. Its script:
// while tools are offered and the conversation has no tool result yet, it asks for toolCalls
// (when it has any); otherwise it answers with text. alwaysTools makes it ask for toolCalls on every step, offered
// or not (a model that never stops), and failOn makes the call with that 1-based number fail.
type scriptedModel struct {
	toolCalls   []llms.ToolCall
	text        string
	alwaysTools bool
	failOn      int
	failErr     error

	mu    sync.Mutex
	calls []modelCall
}

// modelCall is one GenerateContent call as the model saw it.
type modelCall struct {
	Messages   []llms.MessageContent
	Tools      []llms.Tool
	ToolChoice any
}

var _ llms.Model = (*scriptedModel)(nil)

// call builds a tool call the way a provider returns one.
func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func (m *scriptedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	m.mu.Lock()
	m.calls = append(m.calls, modelCall{Messages: slices.Clone(msgs), Tools: slices.Clone(o.Tools), ToolChoice: o.ToolChoice})
	n := len(m.calls)
	m.mu.Unlock()

	// A real provider fails on a context that has ended.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.failOn == n {
		return nil, m.failErr
	}
	sawResult := len(msgs) > 0 && msgs[len(msgs)-1].Role == llms.ChatMessageTypeTool
	if len(m.toolCalls) > 0 && (m.alwaysTools || (len(o.Tools) > 0 && o.ToolChoice != "none" && !sawResult)) {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: slices.Clone(m.toolCalls)}}}, nil
	}
	text := m.text
	if text == "" {
		text = "Here is what I found."
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// recorded returns the calls so far, oldest first.
func (m *scriptedModel) recorded() []modelCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}

// transcript is every piece of text in every message the model was sent: the haystack for
// leak checks.
func (m *scriptedModel) transcript() string {
	var b strings.Builder
	for _, c := range m.recorded() {
		for _, msg := range c.Messages {
			b.WriteString(messageText(msg))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// toolResults returns the contents of the tool results in the last call of the invocation
// whose request was req (all invocations when req is empty), in order.
func (m *scriptedModel) toolResults(req string) []string {
	var last *modelCall
	calls := m.recorded()
	for i := range calls {
		if req == "" || requestOf(calls[i]) == req {
			last = &calls[i]
		}
	}
	if last == nil {
		return nil
	}
	var out []string
	for _, msg := range last.Messages {
		for _, p := range msg.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

// requestOf is the human message of a call: which invocation it belongs to.
func requestOf(c modelCall) string {
	for _, msg := range c.Messages {
		if msg.Role == llms.ChatMessageTypeHuman {
			return messageText(msg)
		}
	}
	return ""
}

func messageText(msg llms.MessageContent) string {
	var b strings.Builder
	for _, p := range msg.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			b.WriteString(p.Text)
		case llms.ToolCall:
			if p.FunctionCall != nil {
				fmt.Fprintf(&b, "%s(%s)", p.FunctionCall.Name, p.FunctionCall.Arguments)
			}
		case llms.ToolCallResponse:
			fmt.Fprintf(&b, "%s=%s", p.Name, p.Content)
		default:
			fmt.Fprintf(&b, "%v", p)
		}
	}
	return b.String()
}
