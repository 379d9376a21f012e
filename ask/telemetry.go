package ask

import (
	"log/slog"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Telemetry is where a runtime's spans, metrics and logs go: the orchestrator's and the
// sub-agents' alike, each set with its package's WithTelemetry option.
type Telemetry struct {
	Tracers trace.TracerProvider
	Meters  metric.MeterProvider
	Logger  *slog.Logger
}

// OrDefaults fills what t leaves unset: the OpenTelemetry globals and slog.Default().
func (t Telemetry) OrDefaults() Telemetry {
	if t.Tracers == nil {
		t.Tracers = otel.GetTracerProvider()
	}
	if t.Meters == nil {
		t.Meters = otel.GetMeterProvider()
	}
	if t.Logger == nil {
		t.Logger = slog.Default()
	}
	return t
}

// CopiesAttributes reports whether the spans of t.Tracers keep copies of the attributes they
// are given, so that a caller may reuse an array of attributes once the call has returned. The
// OpenTelemetry API leaves this open. The SDK's spans copy (each attribute is normalised into a
// slice of the span's own); spans of any other provider, a vendor's or the global delegate,
// must get arrays that are theirs alone.
func (t Telemetry) CopiesAttributes() bool {
	_, ok := t.Tracers.(*sdktrace.TracerProvider)
	return ok
}
