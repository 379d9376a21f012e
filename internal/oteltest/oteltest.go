// Package oteltest holds a tracer provider for tests whose spans keep the attribute slices
// they are given rather than copies. The OpenTelemetry API allows a provider to do so, and code
// that reuses an attribute array after passing it must not corrupt what such a provider keeps.
package oteltest

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// KeepingProvider is a trace.TracerProvider whose spans all record and keep, uncopied, the
// slices given to SetAttributes. Its zero value is ready to use.
type KeepingProvider struct {
	noop.TracerProvider
	mu    sync.Mutex
	spans []*KeepingSpan
}

// Tracer returns a tracer whose spans p keeps.
func (p *KeepingProvider) Tracer(string, ...trace.TracerOption) trace.Tracer {
	return keepingTracer{p: p}
}

// Spans returns the spans started so far, in the order they started.
func (p *KeepingProvider) Spans() []*KeepingSpan {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*KeepingSpan(nil), p.spans...)
}

type keepingTracer struct {
	noop.Tracer
	p *KeepingProvider
}

func (t keepingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	s := &KeepingSpan{name: name}
	cfg := trace.NewSpanStartConfig(opts...)
	if kv := cfg.Attributes(); len(kv) > 0 {
		s.kept = append(s.kept, kv)
	}
	t.p.mu.Lock()
	t.p.spans = append(t.p.spans, s)
	t.p.mu.Unlock()
	return trace.ContextWithSpan(ctx, s), s
}

// KeepingSpan is a span of a KeepingProvider.
type KeepingSpan struct {
	noop.Span
	name string
	mu   sync.Mutex
	kept [][]attribute.KeyValue // as given to SetAttributes, not copied
}

// Name is the name the span started with.
func (s *KeepingSpan) Name() string { return s.name }

// IsRecording is true: callers build attributes only for spans that record.
func (s *KeepingSpan) IsRecording() bool { return true }

// SetAttributes keeps kv itself.
func (s *KeepingSpan) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	s.kept = append(s.kept, kv)
	s.mu.Unlock()
}

// Attributes reads the kept slices as they are now, later values of a key winning.
func (s *KeepingSpan) Attributes() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]string{}
	for _, kvs := range s.kept {
		for _, kv := range kvs {
			m[string(kv.Key)] = kv.Value.String()
		}
	}
	return m
}
