package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// scriptedModel is a goroutine-safe llms.Model: route answers the first call of a turn (no
// tool results yet), compose answers once tool results are present. It records every call.
type scriptedModel struct {
	mu      sync.Mutex
	route   func(msgs []llms.MessageContent, o llms.CallOptions) (*llms.ContentResponse, error)
	compose func(msgs []llms.MessageContent, o llms.CallOptions) (*llms.ContentResponse, error)
	calls   []recordedCall
}

type recordedCall struct {
	msgs []llms.MessageContent
	opts llms.CallOptions
}

var _ llms.Model = (*scriptedModel)(nil)

func (m *scriptedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, f := range options {
		f(&o)
	}
	m.mu.Lock()
	m.calls = append(m.calls, recordedCall{msgs: msgs, opts: o})
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	answer := m.route
	if len(o.Tools) == 0 { // the prior-context summary is the only call without tools
		return textResponse("Earlier the user asked about their points balance."), nil
	}
	if hasToolResults(msgs) {
		answer = m.compose
	}
	if answer == nil {
		return textResponse("ok"), nil
	}
	resp, err := answer(msgs, o)
	if err != nil {
		return nil, err
	}
	if o.StreamingFunc != nil {
		for _, c := range resp.Choices {
			for _, w := range strings.SplitAfter(c.Content, " ") {
				if err := o.StreamingFunc(ctx, []byte(w)); err != nil {
					return nil, err
				}
			}
		}
	}
	return resp, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func (m *scriptedModel) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = nil
}

func (m *scriptedModel) recorded() []recordedCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedCall(nil), m.calls...)
}

func hasToolResults(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if _, ok := p.(llms.ToolCallResponse); ok {
				return true
			}
		}
	}
	return false
}

// toolResults returns the tool results the composing call saw, by tool name.
func toolResults(msgs []llms.MessageContent) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out[r.Name] = r.Content
			}
		}
	}
	return out
}

func textResponse(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}
}

// callTools answers with one tool call per name, all in one response.
func callTools(names ...string) func([]llms.MessageContent, llms.CallOptions) (*llms.ContentResponse, error) {
	return func([]llms.MessageContent, llms.CallOptions) (*llms.ContentResponse, error) {
		var calls []llms.ToolCall
		for i, n := range names {
			args, _ := json.Marshal(map[string]string{"request": "about " + n})
			calls = append(calls, llms.ToolCall{ID: fmt.Sprintf("call_%d", i), Type: "function",
				FunctionCall: &llms.FunctionCall{Name: n, Arguments: string(args)}})
		}
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls}}}, nil
	}
}

// composeAll answers with every tool result joined, so tests can see what composition got.
func composeAll(msgs []llms.MessageContent, _ llms.CallOptions) (*llms.ContentResponse, error) {
	var parts []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				parts = append(parts, r.Content)
			}
		}
	}
	return textResponse("Composed: " + strings.Join(parts, " | ")), nil
}

// collector is a goroutine-safe stream.Sink.
type collector struct {
	mu     sync.Mutex
	events []stream.Event
}

func (c *collector) Publish(ev stream.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
}

func (c *collector) all() []stream.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]stream.Event(nil), c.events...)
}

func (c *collector) text() string {
	var b strings.Builder
	for _, ev := range c.all() {
		data, _ := json.Marshal(ev)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func subDef(id, desc string) *definitions.Definition {
	return &definitions.Definition{
		Kind: definitions.KindSubAgent, ID: id, Name: strings.ToUpper(id[:1]) + id[1:], Description: desc,
		Timeout: 2 * time.Second, Enabled: definitions.Enabled{Value: true},
		StatusEvents: map[string]definitions.StatusEvent{"working_on_it": {Text: "Working on " + id + "…", Policy: definitions.PolicyForward}},
	}
}

func orchDef(capN int, subs ...string) *definitions.Definition {
	return &definitions.Definition{
		Kind: definitions.KindOrchestrator, ID: "concierge", Name: "Concierge",
		Description: "Routes shopping, rewards and support questions.", Prompt: "You are a concierge.",
		SubAgents: subs, FanOutCap: capN, Enabled: definitions.Enabled{Value: true},
		Rendering: definitions.Rendering{BatchWindow: 5 * time.Millisecond},
	}
}

var demoSubs = []*definitions.Definition{
	subDef("shop", "Finds retail offers, coupons and product prices for the user."),
	subDef("rewards", "Answers questions about the user's loyalty points balance, tier and redemptions."),
	subDef("support", "Helps with orders, deliveries, returns and account problems."),
}

// answer returns a sub-agent that replies with text after an optional delay.
func answer(text string) ask.Func {
	return func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		return ask.Answer{Text: text, Outcome: ask.OutcomeOK}, nil
	}
}

func newTestOrchestrator(t testing.TB, capN int, model llms.Model, runtimes map[string]ask.Agent, opts ...Option) *Orchestrator {
	t.Helper()
	opts = append([]Option{WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler)})}, opts...)
	o, err := New(Config{Definition: orchDef(capN, "shop", "rewards", "support"), SubAgents: demoSubs, Runtimes: runtimes, Model: model}, opts...)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return o
}
