package llm

import (
	"context"
	"net/http"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/internal/breaker"
)

// Option tunes [New] and [NewRegistry].
type Option func(*options)

type options struct {
	usageHook  func(ctx context.Context, alias string, u Usage)
	transport  http.RoundTripper
	newOffline func() llms.Model
	// sleep waits between retries; tests replace it to observe delays without waiting.
	sleep func(ctx context.Context, d time.Duration) error
	// breakers and meters: see breakers.go.
	breakers *breaker.Set
	meters   metric.MeterProvider
	// supplied are models the embedding program brings, by alias: see [WithModels].
	supplied map[string]llms.Model
}

func newOptions(opts []Option) options {
	o := options{
		transport:  http.DefaultTransport,
		newOffline: defaultOffline,
		sleep:      sleepCtx,
		meters:     otel.GetMeterProvider(),
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithUsageHook registers fn to be called once after every GenerateContent call on a
// provider model, with the caller's context, the model alias and the call's [Usage]
// (token counts are zero when the call failed). fn runs on the caller's goroutine and
// must be quick and safe for concurrent use.
func WithUsageHook(fn func(ctx context.Context, alias string, u Usage)) Option {
	return func(o *options) { o.usageHook = fn }
}

// WithTransport sets the HTTP transport under the retry bookkeeping (for example an
// otelhttp transport). The default is [http.DefaultTransport].
func WithTransport(rt http.RoundTripper) Option {
	return func(o *options) {
		if rt != nil {
			o.transport = rt
		}
	}
}

// WithOffline replaces the constructor for the offline provider (default:
// internal/llm/offline.New with its default options).
func WithOffline(fn func() llms.Model) Option {
	return func(o *options) {
		if fn != nil {
			o.newOffline = fn
		}
	}
}

// WithModels serves each configured alias (and "default") that models has with the model given
// instead of building it from its configuration: a program embedding switchboard with models
// of its own pays nothing for what they replace (the offline model alone holds about 50 MB).
// Keys that name no configured alias are ignored here. No breaker or fallback wraps a supplied
// model; other aliases may fall back to it.
func WithModels(models map[string]llms.Model) Option {
	return func(o *options) { o.supplied = models }
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
