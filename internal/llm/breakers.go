package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/internal/breaker"
)

// WithBreakers puts a circuit breaker in front of every provider alias a [Registry] builds
// (target "model:<alias>"): once the alias keeps failing, calls to it fail at once with
// [ErrUnavailable] instead of waiting out retries and timeouts, and its fallbacks answer
// sooner. The offline model has no breaker: it calls nothing outside.
func WithBreakers(set *breaker.Set) Option {
	return func(o *options) { o.breakers = set }
}

// WithMeterProvider sets where a [Registry] reports switchboard_model_fallbacks_total; the
// default is the OpenTelemetry global.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) {
		if mp != nil {
			o.meters = mp
		}
	}
}

// ModelTarget names an alias's breaker.
func ModelTarget(alias string) string { return "model:" + alias }

// guardedModel is a provider alias behind its breaker. It sits outside the retries: only a
// call that failed after all of them counts.
type guardedModel struct {
	alias string
	next  llms.Model
	set   *breaker.Set
}

var _ llms.Model = (*guardedModel)(nil)

// Call implements llms.Model.
func (m *guardedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// GenerateContent implements llms.Model. While the breaker is open it returns at once an
// error wrapping [ErrUnavailable] and [breaker.ErrOpen].
func (m *guardedModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var resp *llms.ContentResponse
	err := m.set.Do(ModelTarget(m.alias), func(err error) breaker.Verdict { return modelVerdict(ctx, err) }, func() error {
		var err error
		resp, err = m.next.GenerateContent(ctx, messages, options...)
		return err
	})
	if errors.Is(err, breaker.ErrOpen) {
		return nil, fmt.Errorf("%w: model %q: %w", ErrUnavailable, m.alias, err)
	}
	return resp, err
}

// modelVerdict counts the failures that say the provider is out: no answer after the retries,
// within the timeout or before the caller's deadline. A rejected request is an answer; a call
// the caller cancelled, or whose streaming callback gave up, says nothing about the provider.
func modelVerdict(ctx context.Context, err error) breaker.Verdict {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return breaker.Neutral
	case errors.Is(err, ErrUnavailable), errors.Is(ctx.Err(), context.DeadlineExceeded):
		return breaker.Failure
	case errors.Is(err, ErrRejected):
		return breaker.Success
	}
	return breaker.Neutral
}
