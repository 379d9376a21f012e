package assembly

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/internal/llm"
)

// llmUsage records what each real-provider LLM call cost: tokens and latency as metrics, and
// the model on the span of the call (the orchestrator's or sub-agent's llm.* span). Aliases
// come from the config, so the label set is bounded.
type llmUsage struct {
	models   map[string]llm.ModelConfig
	tokens   metric.Int64Counter
	duration metric.Float64Histogram
}

func newLLMUsage(mp metric.MeterProvider, models map[string]llm.ModelConfig) (*llmUsage, error) {
	m := mp.Meter("github.com/switchboard-ai/switchboard/internal/llm")
	tokens, err1 := m.Int64Counter("switchboard_llm_tokens_total",
		metric.WithDescription("Tokens used by LLM calls, by model alias and direction (input, output)."))
	duration, err2 := m.Float64Histogram("switchboard_llm_call_duration_seconds", metric.WithUnit("s"),
		metric.WithDescription("Wall time of one LLM call, retries included."),
		metric.WithExplicitBucketBoundaries(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &llmUsage{models: models, tokens: tokens, duration: duration}, nil
}

func (u *llmUsage) record(ctx context.Context, alias string, use llm.Usage) {
	bg := context.Background()
	a := attribute.String("alias", alias)
	u.tokens.Add(bg, int64(use.InputTokens), metric.WithAttributes(a, attribute.String("direction", "input")))
	u.tokens.Add(bg, int64(use.OutputTokens), metric.WithAttributes(a, attribute.String("direction", "output")))
	u.duration.Record(bg, use.Duration.Seconds(), metric.WithAttributes(a))
	cfg := u.models[alias]
	trace.SpanFromContext(ctx).SetAttributes(
		attribute.String("gen_ai.system", cfg.Provider),
		attribute.String("gen_ai.request.model", cfg.Model),
		attribute.String("switchboard.model_alias", alias),
		attribute.Int("switchboard.llm_attempts", use.Attempts),
	)
}
