package subagents

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

const tracerName = "github.com/switchboard-ai/switchboard/subagents"

// consumerAttr labels the envelope principal-mismatch counter with this service as the consumer.
var consumerAttr = metric.WithAttributes(attribute.String("consumer", "switchboard"))

type instruments struct {
	principalMismatch metric.Int64Counter
	versionMismatch   metric.Int64Counter
	ccsFailures       metric.Int64Counter
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(tracerName)
	var in instruments
	var e1, e2, e3 error
	in.principalMismatch, e1 = m.Int64Counter("ps6_envelope_principal_mismatch_total",
		metric.WithDescription("CCS envelopes suppressed because their principal (or signature) did not match the invoking user. Must stay zero."))
	in.versionMismatch, e2 = m.Int64Counter("ps6_envelope_version_mismatch_total",
		metric.WithDescription("CCS envelopes with an incompatible major schema version."))
	in.ccsFailures, e3 = m.Int64Counter("switchboard_ccs_failures_total",
		metric.WithDescription("CCS calls that failed before an envelope could be used, by reason."))
	if err := errors.Join(e1, e2, e3); err != nil {
		return nil, err
	}
	// Both envelope counters must read 0, not "no data", until the first mismatch: the alerts on
	// them fire on any increase, and a dashboard shows the zero.
	in.principalMismatch.Add(context.Background(), 0, consumerAttr)
	in.versionMismatch.Add(context.Background(), 0)
	return &in, nil
}

func failureAttrs(enricher, reason string) metric.MeasurementOption {
	return metric.WithAttributes(attribute.String("enricher", enricher), attribute.String("reason", reason))
}
