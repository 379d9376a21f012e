package assembly

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// limitedCounter returns the hook that counts refusals in switchboard_limited_total{limit}.
// The label is one of the orchestrator.Limit* names, a fixed set.
func limitedCounter(mp metric.MeterProvider) (func(limit string), error) {
	c, err := mp.Meter("github.com/switchboard-ai/switchboard").Int64Counter("switchboard_limited_total",
		metric.WithDescription("Requests refused with 429 because their principal was over a limit, by limit."))
	if err != nil {
		return nil, err
	}
	return func(limit string) {
		c.Add(context.Background(), 1, metric.WithAttributes(attribute.String("limit", limit)))
	}, nil
}

func turnLimits(l config.Limits) orchestrator.TurnLimits {
	return orchestrator.TurnLimits{Running: l.TurnsRunning, PerMinute: l.TurnsPerMinute, Burst: l.TurnsBurst}
}

func streamLimits(l config.Limits) httpkit.StreamLimits {
	return httpkit.StreamLimits{PerPrincipal: l.StreamsPerPrincipal, PerTurn: l.StreamsPerTurn}
}
