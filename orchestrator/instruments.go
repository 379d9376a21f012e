package orchestrator

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/stream"
)

// meterName scopes the orchestrator's metrics.
const meterName = "github.com/switchboard-ai/switchboard/orchestrator"

// instruments are the turn metrics (docs/operations.md lists them). Label values come from definitions and
// fixed enums, never from user input, so their cardinality is bounded.
type instruments struct {
	turns        metric.Int64Counter
	turnDuration metric.Float64Histogram
	intents      metric.Int64Histogram
	capExceeded  metric.Int64Counter
	subDuration  metric.Float64Histogram
	subOutcomes  metric.Int64Counter
	overhead     metric.Float64Histogram
	statusEvents metric.Int64Counter
	unknownTools metric.Int64Counter
	// turnOutcome holds the turns counter's attribute set per outcome, built once (as a
	// slice, see bindingMetrics).
	turnOutcome map[stream.Outcome][]metric.AddOption
	// statusSets holds the status events counter's attribute set per statusKey, built on first
	// use: hashed and sorted anew for every event, a set cost a sub-agent call's goroutine a
	// stack growth on the way. Definitions bound the keys; maxStatusSets caps them all the same.
	statusSets     sync.Map // statusKey -> []metric.AddOption
	statusSetCount atomic.Int64
}

// turnOutcomes are the outcomes a turn ends with.
var turnOutcomes = []stream.Outcome{stream.OutcomeOK, stream.OutcomeDegraded, stream.OutcomeFailed, stream.OutcomeCancelled}

// outcome is the turns counter's attribute set for o.
func (in *instruments) outcome(o stream.Outcome) []metric.AddOption {
	if opts, ok := in.turnOutcome[o]; ok {
		return opts
	}
	return []metric.AddOption{metric.WithAttributes(attribute.String("outcome", string(o)))}
}

var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(meterName)
	var in instruments
	var errs []error
	var err error
	in.turns, err = m.Int64Counter("switchboard_turns_total", metric.WithDescription("Turns by outcome."))
	errs = append(errs, err)
	in.turnDuration, err = m.Float64Histogram("switchboard_turn_duration_seconds", metric.WithUnit("s"),
		metric.WithDescription("Wall time of a turn."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs = append(errs, err)
	in.intents, err = m.Int64Histogram("switchboard_intent_count",
		metric.WithDescription("Sub-agent tool calls the orchestrator LLM emitted per turn."),
		metric.WithExplicitBucketBoundaries(0, 1, 2, 3, 4, 5, 8))
	errs = append(errs, err)
	in.capExceeded, err = m.Int64Counter("switchboard_fanout_cap_exceeded_total",
		metric.WithDescription("Turns whose LLM asked for more sub-agents than the fan-out cap."))
	errs = append(errs, err)
	in.subDuration, err = m.Float64Histogram("switchboard_subagent_duration_seconds", metric.WithUnit("s"),
		metric.WithDescription("Wall time of one sub-agent invocation."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs = append(errs, err)
	in.subOutcomes, err = m.Int64Counter("switchboard_subagent_outcomes_total",
		metric.WithDescription("Sub-agent invocations by outcome."))
	errs = append(errs, err)
	in.overhead, err = m.Float64Histogram("switchboard_dispatch_overhead_seconds", metric.WithUnit("s"),
		metric.WithDescription("Turn time not spent inside LLM or CCS calls."),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
	errs = append(errs, err)
	in.statusEvents, err = m.Int64Counter("switchboard_status_events_total",
		metric.WithDescription("Typed status events by rendering policy."))
	errs = append(errs, err)
	in.unknownTools, err = m.Int64Counter("switchboard_unknown_tool_calls_total",
		metric.WithDescription("Tool calls of the orchestrator LLM naming no bound sub-agent (dropped, not counted against the fan-out cap)."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	in.turnOutcome = map[stream.Outcome][]metric.AddOption{}
	for _, o := range turnOutcomes {
		in.turnOutcome[o] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", string(o))))}
	}
	in.zero()
	return &in, nil
}

// zero creates the counters' fixed series at 0. A counter that was never incremented is not
// exported at all, and an alert or ratio over a missing series (cap exceeded, degraded over
// all turns) reads "no data" rather than 0.
func (in *instruments) zero() {
	bg := context.Background()
	in.capExceeded.Add(bg, 0)
	in.unknownTools.Add(bg, 0)
	for _, o := range turnOutcomes {
		in.turns.Add(bg, 0, in.outcome(o)...)
	}
}

func (in *instruments) statusEvent(agent, event, policy string) {
	in.statusEvents.Add(context.Background(), 1, in.statusSet(agent, event, policy)...)
}

// statusKey is a status event's attributes.
type statusKey struct{ agent, event, policy string }

// maxStatusSets bounds statusSets: past it, a new key's set is built for each event.
const maxStatusSets = 1024

// statusSet is the status events counter's attribute set for one event.
func (in *instruments) statusSet(agent, event, policy string) []metric.AddOption {
	key := statusKey{agent, event, policy}
	if opts, ok := in.statusSets.Load(key); ok {
		return opts.([]metric.AddOption)
	}
	opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("agent", agent), attribute.String("event", event), attribute.String("policy", policy)))}
	if in.statusSetCount.Add(1) > maxStatusSets {
		return opts
	}
	kept, _ := in.statusSets.LoadOrStore(key, opts)
	return kept.([]metric.AddOption)
}
