// Package peer measures switchboard's turn against eino's react agent on the same workload,
// in one binary and one run, so that the ratio of the two holds on any machine even where the
// absolute times do not (see docs/benchmarks.md).
//
// The workload is the one agent frameworks benchmark: the orchestrator's model asks k=3
// sub-agents in one response, each sub-agent calls its own model once, and the orchestrator
// composes the reply; every model answers at once, so what is measured is the framework.
package peer

import (
	"context"
	"log/slog"
	"strings"
	"syscall"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/tmc/langchaingo/llms"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/demo"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

const (
	question = "shop, rewards and support please"
	answer   = "Here is everything you asked for, in one short answer."
)

var subAgents = []string{"ask_shop", "ask_rewards", "ask_support"}

// BenchmarkPeer runs one turn per operation on each side. Every sub-benchmark reports, beside
// wall time and allocations, cpu-ns/op: the process's CPU time (every goroutine and the GC)
// per turn, which moves less than wall time with the machine's other load.
func BenchmarkPeer(b *testing.B) {
	b.Run("eino-react", func(b *testing.B) { // sub-agents are plain model calls
		benchEino(b, func(_ *testing.B, name string) tool.BaseTool { return modelTool{name: name} })
	})
	b.Run("eino-react-nested", func(b *testing.B) { // sub-agents are react agents, as switchboard's
		benchEino(b, newAgentTool)
	})
	b.Run("switchboard-service", func(b *testing.B) {
		benchSwitchboard(b, switchboard.Options{})
	})
	b.Run("switchboard-service-otel", func(b *testing.B) {
		benchSwitchboard(b, switchboard.Options{
			TracerProvider: sdktrace.NewTracerProvider(), // every span recorded
			MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
		})
	})
}

// benchEino runs eino's react agent over the three sub-agents newTool makes.
func benchEino(b *testing.B, newTool func(b *testing.B, name string) tool.BaseTool) {
	ctx := b.Context()
	var tools []tool.BaseTool
	for _, name := range subAgents {
		tools = append(tools, newTool(b, name))
	}
	ag, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: &orchestratorModel{}, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}, MaxStep: 6,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		out, err := ag.Generate(ctx, []*schema.Message{schema.UserMessage(question)})
		if err != nil || out.Content != answer {
			b.Fatalf("Generate() = %v, %v", out, err)
		}
	}
}

// benchSwitchboard runs whole turns through the turn service, as a server does: switchboard.New
// with the demo agents, the memory store and no per-principal limits; per operation
// Service.Start and Hub.Follow to turn.completed.
func benchSwitchboard(b *testing.B, o switchboard.Options) {
	cfg := switchboard.DefaultConfig()
	cfg.Store.Driver = "memory"
	cfg.Limits = switchboard.Config{}.Limits // one principal runs every turn
	cfg.Auth.HS256Secret = "peer-benchmark-secret-peer-benchmark"
	o.Config = &cfg
	o.AgentsFS = demo.Agents
	o.Logger = slog.New(slog.DiscardHandler)
	o.Models = map[string]llms.Model{"default": fanOutModel{}}
	sb, err := switchboard.New(b.Context(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close(context.Background())
	p := sb.Parts()
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		rec, _, err := p.Service.Start(b.Context(), orchestrator.StartRequest{Principal: "alice", Message: question})
		if err != nil {
			b.Fatal(err)
		}
		for r, err := range p.Hub.Follow(b.Context(), rec.ID, 0) {
			if err != nil {
				b.Fatal(err)
			}
			if tc, ok := r.Event.(stream.TurnCompleted); ok && tc.Outcome != stream.OutcomeOK {
				b.Fatalf("turn outcome %s, want ok", tc.Outcome)
			}
		}
	}
	_ = p.Service.Wait(b.Context())
}

// orchestratorModel is eino's orchestrator model: it calls every tool it is given in one
// response, then, once their results are in, answers.
type orchestratorModel struct{ tools []*schema.ToolInfo }

func (m *orchestratorModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	for _, msg := range in {
		if msg.Role == schema.Tool {
			return schema.AssistantMessage(answer, nil), nil
		}
	}
	calls := make([]schema.ToolCall, 0, len(m.tools))
	for _, t := range m.tools {
		calls = append(calls, schema.ToolCall{ID: "call_" + t.Name, Type: "function",
			Function: schema.FunctionCall{Name: t.Name, Arguments: `{"request":"all of it"}`}})
	}
	return schema.AssistantMessage("", calls), nil
}

func (m *orchestratorModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *orchestratorModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &orchestratorModel{tools: tools}, nil
}

// answerModel is a sub-agent's model: it answers at once and calls no tool.
type answerModel struct{}

func (answerModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage(answer, nil), nil
}

func (m answerModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, _ := m.Generate(ctx, in, opts...)
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m answerModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func toolInfo(name string) *schema.ToolInfo {
	return &schema.ToolInfo{Name: name, Desc: "ask " + name, ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"request": {Type: schema.String, Desc: "what to ask", Required: true},
	})}
}

// modelTool is a sub-agent that is one model call.
type modelTool struct{ name string }

func (t modelTool) Info(context.Context) (*schema.ToolInfo, error) { return toolInfo(t.name), nil }

func (t modelTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	msg, err := answerModel{}.Generate(ctx, []*schema.Message{schema.SystemMessage("You are " + t.name), schema.UserMessage(args)})
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

// agentTool is a sub-agent that is a react agent of its own, with one context tool it does
// not need here: a model loop, as each switchboard sub-agent runs.
type agentTool struct {
	name string
	ag   *react.Agent
}

func newAgentTool(b *testing.B, name string) tool.BaseTool {
	ag, err := react.NewAgent(b.Context(), &react.AgentConfig{
		ToolCallingModel: answerModel{}, ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{modelTool{name: "lookup"}}}, MaxStep: 6,
	})
	if err != nil {
		b.Fatal(err)
	}
	return agentTool{name: name, ag: ag}
}

func (t agentTool) Info(context.Context) (*schema.ToolInfo, error) { return toolInfo(t.name), nil }

func (t agentTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	msg, err := t.ag.Generate(ctx, []*schema.Message{schema.SystemMessage("You are " + t.name), schema.UserMessage(args)})
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

// fanOutModel is switchboard's side of the workload: with ask_ tools it calls every one in
// one response; with their results it answers, streaming the answer when asked to.
type fanOutModel struct{}

func (fanOutModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	composing := false
	for _, m := range msgs {
		composing = composing || m.Role == llms.ChatMessageTypeTool
	}
	var calls []llms.ToolCall
	for _, t := range o.Tools {
		if !composing && strings.HasPrefix(t.Function.Name, "ask_") {
			calls = append(calls, llms.ToolCall{ID: "call_" + t.Function.Name, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: t.Function.Name, Arguments: `{"request":"all of it"}`}})
		}
	}
	if len(calls) > 0 {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls}}}, nil
	}
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(answer)); err != nil {
			return nil, err
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer}}}, nil
}

func (m fanOutModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// cpuPerOp reports the process's CPU time (user and system) per operation.
func cpuPerOp(b *testing.B) func() {
	start := cpuNow()
	return func() { b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuNow() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
