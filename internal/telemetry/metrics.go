package telemetry

import (
	"fmt"
	"net/http"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// newMeterProvider returns a meter provider read by a Prometheus exporter, and the handler
// serving it. The exporter gets a registry of its own: the default registerer is process-wide,
// so a second Setup (tests, evals in-process) would fail to register.
//
// Instrument names already in Prometheus form (switchboard_turns_total, a histogram
// switchboard_turn_duration_seconds with unit "s") are exposed unchanged: the exporter only
// adds a _total or unit suffix that is missing.
func newMeterProvider(res *resource.Resource) (*sdkmetric.MeterProvider, http.Handler, error) {
	reg := promclient.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, nil, fmt.Errorf("telemetry: register go collector: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, nil, fmt.Errorf("telemetry: register process collector: %w", err)
	}
	exp, err := prometheus.New(prometheus.WithRegisterer(reg))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
	return mp, h, nil
}
