package ask

import (
	"log/slog"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
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
