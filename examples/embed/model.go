package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// deskModel stands in for a real provider: any langchaingo llms.Model works the same way.
// As the orchestrator it asks every ask_ tool it is offered, then composes the answers it got
// back, streaming the text in small chunks as a provider does; as a sub-agent it answers from
// its system prompt.
type deskModel struct{}

func (deskModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	var asks []llms.ToolCall
	for i, t := range o.Tools {
		if t.Function != nil && strings.HasPrefix(t.Function.Name, "ask_") {
			asks = append(asks, llms.ToolCall{
				ID: fmt.Sprintf("call_%d", i), Type: "function",
				FunctionCall: &llms.FunctionCall{Name: t.Function.Name, Arguments: `{"request":"` + lastHuman(msgs) + `"}`},
			})
		}
	}
	var text string
	switch answers := toolAnswers(msgs); {
	case len(asks) > 0 && len(answers) == 0: // the orchestrator routes
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: asks}}}, nil
	case len(answers) > 0: // the orchestrator composes
		text = strings.Join(answers, " ")
	default: // a sub-agent answers
		text = subAgentAnswer(system(msgs))
	}
	if o.StreamingFunc != nil {
		for chunk := range chunks(text, 8) {
			if err := o.StreamingFunc(ctx, []byte(chunk)); err != nil {
				return nil, err
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}, nil
}

func (m deskModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func subAgentAnswer(prompt string) string {
	switch {
	case strings.Contains(prompt, "meeting rooms"):
		return "The blue room is free at 3pm."
	case strings.Contains(prompt, "canteen"):
		return "Lunch today is lentil soup."
	}
	return "I can't help with that."
}

func lastHuman(msgs []llms.MessageContent) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeHuman {
			return strings.ReplaceAll(textOf(msgs[i]), `"`, `'`)
		}
	}
	return ""
}

func system(msgs []llms.MessageContent) string {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeSystem {
			return textOf(m)
		}
	}
	return ""
}

func textOf(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func toolAnswers(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

// chunks cuts s into pieces of n bytes, as a streaming provider sends them.
func chunks(s string, n int) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > n {
			if !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
		if s != "" {
			yield(s)
		}
	}
}
