package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config is what [Setup] needs. ServiceName is required.
type Config struct {
	// ServiceName, Version and Instance become the resource attributes service.name,
	// service.version and service.instance.id. An empty Instance gets a random id, as the
	// attribute must differ between replicas.
	ServiceName string
	Version     string
	Instance    string
	// Dev samples every span, ignoring an upstream "not sampled" traceparent flag.
	Dev bool
	// Sampler, when set, decides which traces are recorded (see [SamplerFromEnv]), in dev
	// too; nil samples every trace whose upstream caller did not decide otherwise. It decides
	// on the span's name, kind and parent: switchboard sets its ids (turn, episode, agent) on
	// a span after it starts, once, and only when the span records, so a sampler does not see
	// them.
	Sampler sdktrace.Sampler
	// TraceStdout prints each span, pretty JSON, to Stdout (os.Stdout when nil) as it ends.
	TraceStdout bool
	Stdout      io.Writer
	// OTLP enables OTLP trace export when its Endpoint is set.
	OTLP OTLPConfig
	// Secrets are literal values (configured API keys, OTLP header values: see
	// [OTLPConfig.Secrets]) removed from every exported span.
	Secrets []string
	// Exporters are additional span exporters, each behind redaction and exported to
	// synchronously; tests and in-process evals use them to capture spans.
	Exporters []sdktrace.SpanExporter
}

func (c Config) stdout() io.Writer {
	if c.Stdout == nil {
		return os.Stdout
	}
	return c.Stdout
}

// Telemetry holds the providers built by [Setup]. Inject them where instrumentation is
// created; Setup does not install them as the OpenTelemetry globals.
type Telemetry struct {
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	metrics  http.Handler
	resource *resource.Resource

	shutdownOnce sync.Once
	shutdownErr  error
}

// Propagator is the W3C trace-context and baggage propagator that [Setup] installs globally.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// Setup builds the tracer and meter providers described by c and installs [Propagator] as the
// global text-map propagator, so that an incoming traceparent header extracted with
// otel.GetTextMapPropagator() becomes the parent of the turn's span.
//
// Spans are always recorded; they are exported to OTLP when c.OTLP.Endpoint is set (batched),
// to stdout when c.TraceStdout is set, and to each of c.Exporters, always through a
// [RedactingExporter]. Metrics are served in the Prometheus text format by
// [Telemetry.MetricsHandler] from a registry of their own. The caller must call
// [Telemetry.Shutdown] to flush pending spans. Errors wrap [ErrInvalidConfig] when c is wrong.
func Setup(ctx context.Context, c Config) (*Telemetry, error) {
	if c.ServiceName == "" {
		return nil, fmt.Errorf("%w: service name is required", ErrInvalidConfig)
	}
	res, err := newResource(ctx, c)
	if err != nil {
		return nil, err
	}
	r := NewRedactor(slices.Concat(c.Secrets, c.OTLP.Secrets())...)
	tp, err := newTracerProvider(ctx, c, res, r)
	if err != nil {
		return nil, err
	}
	mp, h, err := newMeterProvider(res)
	if err != nil {
		return nil, errors.Join(err, tp.Shutdown(ctx))
	}
	otel.SetTextMapPropagator(Propagator())
	return &Telemetry{tp: tp, mp: mp, metrics: h, resource: res}, nil
}

// TracerProvider returns the provider every tracer should come from.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tp }

// MeterProvider returns the provider every meter should come from. Instruments it creates are
// served by [Telemetry.MetricsHandler].
func (t *Telemetry) MeterProvider() metric.MeterProvider { return t.mp }

// MetricsHandler serves the Prometheus exposition of this Telemetry's metrics, plus the Go
// runtime and process collectors. Mount it at /metrics.
func (t *Telemetry) MetricsHandler() http.Handler { return t.metrics }

// Resource returns the resource attached to every span and metric.
func (t *Telemetry) Resource() *resource.Resource { return t.resource }

// Shutdown flushes pending spans and stops both providers. Later calls return the first
// call's result. Spans ended after Shutdown are dropped.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	t.shutdownOnce.Do(func() {
		t.shutdownErr = errors.Join(t.tp.Shutdown(ctx), t.mp.Shutdown(ctx))
		if t.shutdownErr != nil {
			t.shutdownErr = fmt.Errorf("telemetry: shutdown: %w", t.shutdownErr)
		}
	})
	return t.shutdownErr
}
