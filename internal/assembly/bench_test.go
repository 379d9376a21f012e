package assembly

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
	"github.com/tmc/langchaingo/llms"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// BenchmarkTurn measures a whole two-intent turn in process: offline model, embedded demo CCS,
// the store, the turn log and its guard; everything a turn costs except the network. The
// postgres case runs only when SWITCHBOARD_TEST_POSTGRES_DSN names a scratch database (it
// leaves its turns there).
func BenchmarkTurn(b *testing.B) {
	for _, driver := range []string{"memory", "sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			cfg := config.Default()
			cfg.Store.Driver = driver
			cfg.Store.DSN = b.TempDir() + "/bench.db"
			if driver == "postgres" {
				if cfg.Store.DSN = os.Getenv("SWITCHBOARD_TEST_POSTGRES_DSN"); cfg.Store.DSN == "" {
					b.Skip("SWITCHBOARD_TEST_POSTGRES_DSN not set")
				}
			}
			cfg.Auth.HS256Secret = "bench-secret-bench-secret-bench-secret"
			cfg.Limits = config.Limits{} // one principal runs b.N turns as fast as it can
			a, err := New(b.Context(), Input{Config: &cfg, Agents: "../../demo", Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			b.ReportAllocs()
			for b.Loop() {
				rec, _, err := a.Service.Start(b.Context(), orchestrator.StartRequest{
					Principal: "alice", Message: "any deals on running shoes? and how many points do I have?",
				})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
				for r, err := range a.Hub.Follow(ctx, rec.ID, 0) {
					if err != nil {
						b.Fatal(err)
					}
					if tc, ok := r.Event.(stream.TurnCompleted); ok && tc.Outcome != stream.OutcomeOK {
						b.Fatalf("outcome %s", tc.Outcome)
					}
				}
				cancel()
			}
			_ = a.Service.Wait(b.Context())
		})
	}
}

// peerModel is the peer benchmark's zero-latency model: as the orchestrator it asks every
// ask_ tool it is offered in one response and then composes; as a sub-agent it answers at once
// (one model call each).
type peerModel struct{}

func (peerModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	composing := false
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeTool {
			composing = true
		}
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
	text := "Here is everything you asked for, in one short answer."
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(text)); err != nil {
			return nil, err
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}, nil
}

func (m peerModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// BenchmarkServiceOverhead is the peer benchmark (the workload eino's and langchaingo's agent
// benchmarks run): the orchestrator's model asks k=3 sub-agents in one response, each
// sub-agent calls its model once, then the orchestrator composes; models answer at once. It
// runs the whole turn service (memory store, turn log, stream guard, OTel SDK recording spans
// and metrics) and follows the turn to turn.completed, so what it measures is switchboard's
// own cost per turn.
func BenchmarkServiceOverhead(b *testing.B) {
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	cfg.Limits = config.Limits{} // one principal, thousands of turns: measure the service, not the limiter
	cfg.Auth.HS256Secret = "bench-secret-bench-secret-bench-secret"
	a, err := New(b.Context(), Input{
		Config: &cfg, Agents: "../../demo", Logger: slog.New(slog.DiscardHandler),
		Models:         map[string]llmModel{"default": peerModel{}},
		TracerProvider: sdktrace.NewTracerProvider(), MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	for b.Loop() {
		rec, _, err := a.Service.Start(b.Context(), orchestrator.StartRequest{Principal: "alice", Message: "shop, rewards and support please"})
		if err != nil {
			b.Fatal(err)
		}
		for r, err := range a.Hub.Follow(b.Context(), rec.ID, 0) {
			if err != nil {
				b.Fatal(err)
			}
			if tc, ok := r.Event.(stream.TurnCompleted); ok && tc.Outcome != stream.OutcomeOK {
				b.Fatalf("outcome %s", tc.Outcome)
			}
		}
	}
	_ = a.Service.Wait(b.Context())
}
