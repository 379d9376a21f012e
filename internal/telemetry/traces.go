package telemetry

import (
	"context"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// newTracerProvider builds the tracer provider with every configured exporter behind a
// RedactingExporter. With no exporter at all it still records spans, so trace and span ids
// exist for logs and for propagation to the CCS.
func newTracerProvider(ctx context.Context, c Config, res *resource.Resource, r *Redactor) (*sdktrace.TracerProvider, error) {
	// In dev every span is sampled; in production an upstream "not sampled" decision carried
	// by traceparent is honoured.
	sampler := sdktrace.ParentBased(sdktrace.AlwaysSample())
	if c.Dev {
		sampler = sdktrace.AlwaysSample()
	}
	if c.Sampler != nil {
		sampler = c.Sampler
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sampler)}

	if c.OTLP.Endpoint != "" {
		exp, err := newOTLPExporter(ctx, c.OTLP)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdktrace.WithBatcher(NewRedactingExporter(exp, r)))
	}
	// stdout and the extra exporters export synchronously: a developer watching the console,
	// or a test reading an in-memory exporter, sees a span as soon as it ends.
	if c.TraceStdout {
		exp, err := stdouttrace.New(stdouttrace.WithWriter(c.stdout()), stdouttrace.WithPrettyPrint())
		if err != nil {
			return nil, fmt.Errorf("telemetry: stdout exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithSyncer(NewRedactingExporter(exp, r)))
	}
	for _, exp := range c.Exporters {
		opts = append(opts, sdktrace.WithSyncer(NewRedactingExporter(exp, r)))
	}
	return sdktrace.NewTracerProvider(opts...), nil
}

// newOTLPExporter creates the OTLP exporter from c alone. The gRPC exporter is given every
// setting explicitly, headers included even when empty, so that its own reading of
// OTEL_EXPORTER_OTLP_* cannot add to or override what cmd resolved.
func newOTLPExporter(ctx context.Context, c OTLPConfig) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The endpoint is left out of the message: it may carry credentials.
		return nil, fmt.Errorf("%w: OTLP endpoint must be an http:// or https:// URL", ErrInvalidConfig)
	}
	switch c.Compression {
	case "", "none", "gzip":
	default:
		return nil, fmt.Errorf("%w: unsupported OTLP compression %q (want gzip or none)", ErrInvalidConfig, c.Compression)
	}
	headers := c.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	switch c.Protocol {
	case "", ProtocolHTTPProtobuf:
		client, err := newHTTPClient(c)
		if err != nil {
			return nil, err
		}
		exp, err := otlptrace.New(ctx, client)
		if err != nil {
			return nil, fmt.Errorf("telemetry: otlp http exporter: %w", err)
		}
		return exp, nil
	case ProtocolGRPC:
		if newGRPCExporter == nil {
			return nil, fmt.Errorf("%w: this build has no OTLP/gRPC exporter: use %q (collectors listen on port 4318) or build with -tags otlpgrpc",
				ErrInvalidConfig, ProtocolHTTPProtobuf)
		}
		return newGRPCExporter(ctx, c, headers)
	default:
		return nil, fmt.Errorf("%w: unsupported OTLP protocol %q (want %q or %q)",
			ErrInvalidConfig, c.Protocol, ProtocolHTTPProtobuf, ProtocolGRPC)
	}
}

// newGRPCExporter is set by the otlpgrpc build tag. The default binary leaves gRPC out: it
// is most of the weight of OTLP export, and every collector also takes OTLP/HTTP.
var newGRPCExporter func(ctx context.Context, c OTLPConfig, headers map[string]string) (sdktrace.SpanExporter, error)
