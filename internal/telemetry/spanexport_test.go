package telemetry

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestRedactingExporter(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	rec := tracetest.NewSpanRecorder() // sees the original spans, before export
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(rec),
		sdktrace.WithSyncer(NewRedactingExporter(mem, NewRedactor(testRegistered))),
	)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	_, link := tp.Tracer("test").Start(t.Context(), "linked")
	link.End()
	_, span := tp.Tracer("test").Start(t.Context(), "turn",
		trace.WithLinks(trace.Link{SpanContext: link.SpanContext(), Attributes: []attribute.KeyValue{
			attribute.String("note", "from "+testRegistered),
		}}))
	span.SetAttributes(
		attribute.String("agent.id", "shop"),
		attribute.Int("token_count", 42),
		attribute.String("http.request.header.authorization", "Basic dXNlcjpwYXNz"),
		attribute.String("ccs.url", "https://ccs/?api_key="+testGoogle),
		attribute.StringSlice("args", []string{"ok", "Bearer abcdefgh12345678"}),
		attribute.ByteSlice("body", []byte(testJWT)),
		attribute.Map("config", attribute.String("client_secret", "s3cr3t-value"), attribute.Bool("debug", true)),
	)
	span.AddEvent("routing.decision", trace.WithAttributes(attribute.String("prompt", "key "+testOpenAI)))
	span.RecordError(errors.New("upstream rejected " + testRegistered))
	span.SetStatus(codes.Error, "failed with "+testAnthropic)
	span.End()

	spans := mem.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("exported %d spans, want 2", len(spans))
	}
	got := spans[1]
	wantAttrs := []attribute.KeyValue{
		attribute.String("agent.id", "shop"),
		attribute.Int("token_count", 42),
		attribute.String("http.request.header.authorization", Redacted),
		attribute.String("ccs.url", "https://ccs/?api_key="+Redacted),
		attribute.StringSlice("args", []string{"ok", "Bearer " + Redacted}),
		attribute.ByteSlice("body", []byte(Redacted)),
		attribute.Map("config", attribute.String("client_secret", Redacted), attribute.Bool("debug", true)),
	}
	if diff := cmp.Diff(wantAttrs, got.Attributes, cmp.Comparer(attrEqual)); diff != "" {
		t.Errorf("attributes mismatch (-want +got):\n%s", diff)
	}
	if got, want := got.Events[0].Attributes, []attribute.KeyValue{attribute.String("prompt", "key "+Redacted)}; !cmp.Equal(want, got, cmp.Comparer(attrEqual)) {
		t.Errorf("event attributes = %v, want %v", got, want)
	}
	if got, want := got.Events[1].Attributes[1], attribute.String("exception.message", "upstream rejected "+Redacted); !attrEqual(got, want) {
		t.Errorf("exception message = %v, want %v", got, want)
	}
	if got, want := got.Status.Description, "failed with "+Redacted; got != want {
		t.Errorf("status description = %q, want %q", got, want)
	}
	if got, want := got.Links[0].Attributes, []attribute.KeyValue{attribute.String("note", "from "+Redacted)}; !cmp.Equal(want, got, cmp.Comparer(attrEqual)) {
		t.Errorf("link attributes = %v, want %v", got, want)
	}
	if got.SpanContext.TraceID() != span.SpanContext().TraceID() || got.Name != "turn" {
		t.Errorf("span identity changed: %v %q", got.SpanContext, got.Name)
	}

	// The live span is untouched: only the exported copy is rewritten.
	orig := rec.Ended()[1].Attributes()
	if got, want := orig[2].Value.AsString(), "Basic dXNlcjpwYXNz"; got != want {
		t.Errorf("original span attribute = %q, want %q", got, want)
	}
}

func attrEqual(a, b attribute.KeyValue) bool {
	return a.Key == b.Key && a.Value.Type() == b.Value.Type() && a.Value.String() == b.Value.String()
}
