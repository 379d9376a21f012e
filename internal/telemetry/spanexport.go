package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// RedactingExporter is a span exporter that removes secrets before the spans reach the next
// exporter. The SDK hands exporters read-only spans, so each span is copied into a snapshot
// whose name, status description, attributes, event names and attributes, and link attributes
// went through the [Redactor]; string values under a [SecretKey] are replaced whole.
//
// [Setup] puts one in front of every exporter it installs.
type RedactingExporter struct {
	next sdktrace.SpanExporter
	r    *Redactor
}

var _ sdktrace.SpanExporter = (*RedactingExporter)(nil)

// NewRedactingExporter wraps next; a nil r applies only the shape rules of [SafeString].
func NewRedactingExporter(next sdktrace.SpanExporter, r *Redactor) *RedactingExporter {
	if r == nil {
		r = defaultRedactor
	}
	return &RedactingExporter{next: next, r: r}
}

// ExportSpans exports redacted copies of spans; the originals are not modified.
func (e *RedactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = e.redactSpan(s)
	}
	return e.next.ExportSpans(ctx, out)
}

// Shutdown shuts the next exporter down.
func (e *RedactingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

func (e *RedactingExporter) redactSpan(s sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan {
	stub := tracetest.SpanStubFromReadOnlySpan(s)
	stub.Name = e.r.String(stub.Name)
	stub.Status.Description = e.r.String(stub.Status.Description)
	stub.Attributes = e.attrs(stub.Attributes)
	// The stub shares event and link slices with the span; build new ones.
	if len(stub.Events) > 0 {
		events := make([]sdktrace.Event, len(stub.Events))
		for i, ev := range stub.Events {
			ev.Name = e.r.String(ev.Name)
			ev.Attributes = e.attrs(ev.Attributes)
			events[i] = ev
		}
		stub.Events = events
	}
	if len(stub.Links) > 0 {
		links := make([]sdktrace.Link, len(stub.Links))
		for i, l := range stub.Links {
			l.Attributes = e.attrs(l.Attributes)
			links[i] = l
		}
		stub.Links = links
	}
	return stub.Snapshot()
}

// attrs returns redacted copies of kvs.
func (e *RedactingExporter) attrs(kvs []attribute.KeyValue) []attribute.KeyValue {
	if len(kvs) == 0 {
		return kvs
	}
	out := make([]attribute.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = e.r.KeyValue(kv)
	}
	return out
}

// KeyValue returns kv with secrets removed, under the same rules as [Redactor.Attr]: string
// and byte values are redacted (whole under a [SecretKey]), slices and maps are walked, other
// types are kept.
func (r *Redactor) KeyValue(kv attribute.KeyValue) attribute.KeyValue {
	return attribute.KeyValue{Key: kv.Key, Value: r.attrValue(kv.Value, SecretKey(string(kv.Key)))}
}

func (r *Redactor) attrValue(v attribute.Value, secret bool) attribute.Value {
	switch v.Type() {
	case attribute.STRING:
		return attribute.StringValue(r.text(v.AsString(), secret))
	case attribute.STRINGSLICE:
		in := v.AsStringSlice() // already a copy
		for i, s := range in {
			in[i] = r.text(s, secret)
		}
		return attribute.StringSliceValue(in)
	case attribute.BYTESLICE:
		return attribute.ByteSliceValue([]byte(r.text(string(v.AsByteSlice()), secret)))
	case attribute.SLICE:
		in := v.AsSlice()
		out := make([]attribute.Value, len(in))
		for i, x := range in {
			out[i] = r.attrValue(x, secret)
		}
		return attribute.SliceValue(out...)
	case attribute.MAP:
		in := v.AsMap()
		out := make([]attribute.KeyValue, len(in))
		for i, kv := range in {
			out[i] = attribute.KeyValue{Key: kv.Key, Value: r.attrValue(kv.Value, secret || SecretKey(string(kv.Key)))}
		}
		return attribute.MapValue(out...)
	default:
		return v
	}
}
