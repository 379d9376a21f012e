package orchestrator

import (
	"context"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// tracerName scopes the orchestrator's spans.
const tracerName = "github.com/switchboard-ai/switchboard/orchestrator"

// Cap behaviours of a turn relative to the fan-out cap (PC2 FR-15).
const (
	CapWithin = "within"
	CapAt     = "at"
	CapOver   = "over"
)

// Decision is the routing-decision record of one turn (PC2 FR-15, AC-10).
type Decision struct {
	Invoked      []string       `json:"invoked"`       // sub-agent ids run, in call order
	IntentCount  int            `json:"intent_count"`  // tool calls the LLM emitted
	Cap          int            `json:"cap"`           // the fan-out cap in force
	CapBehaviour string         `json:"cap_behaviour"` // within, at or over
	Dropped      []string       `json:"dropped"`       // tool names dropped before running
	Agents       []AgentOutcome `json:"agents"`        // per invoked sub-agent
}

// AgentOutcome is one sub-agent's part of the routing decision.
type AgentOutcome struct {
	Agent   string        `json:"agent"`
	Outcome Outcome       `json:"outcome"`
	Started time.Time     `json:"started"`
	Latency time.Duration `json:"latency"`
}

// applyCap keeps the first cap calls that name a bound sub-agent and drops the rest before
// anything runs (PC2 FR-7, AC-4). Calls naming no bound tool are dropped too.
func (o *Orchestrator) applyCap(calls []llms.ToolCall) ([]keptCall, Decision) {
	d := Decision{IntentCount: len(calls), Cap: o.def.FanOutCap}
	var kept []keptCall
	for _, c := range calls {
		b, ok := o.bindings[c.FunctionCall.Name]
		if !ok || len(kept) >= o.def.FanOutCap {
			d.Dropped = append(d.Dropped, c.FunctionCall.Name)
			continue
		}
		kept = append(kept, keptCall{call: c, b: b})
		d.Invoked = append(d.Invoked, b.def.ID)
	}
	switch {
	case len(calls) > o.def.FanOutCap:
		d.CapBehaviour = CapOver
	case len(calls) == o.def.FanOutCap:
		d.CapBehaviour = CapAt
	default:
		d.CapBehaviour = CapWithin
	}
	return kept, d
}

// record emits the routing decision as the span event routing.decision and as metrics.
func (o *Orchestrator) record(ctx context.Context, span trace.Span, res *Result, elapsed, busy time.Duration) {
	if res == nil {
		return
	}
	d := res.Decision
	outcomes := make([]string, len(d.Agents))
	for i, a := range d.Agents {
		outcomes[i] = a.Agent + "=" + string(a.Outcome)
	}
	span.AddEvent("routing.decision", trace.WithAttributes(
		attribute.StringSlice("routing.invoked", nonNil(d.Invoked)),
		attribute.Int("routing.intent_count", d.IntentCount),
		attribute.Int("routing.cap", d.Cap),
		attribute.String("routing.cap_behaviour", d.CapBehaviour),
		attribute.StringSlice("routing.dropped", nonNil(d.Dropped)),
		attribute.StringSlice("routing.outcomes", outcomes),
	))
	span.SetAttributes(attribute.String("switchboard.outcome", string(res.Outcome)))

	bg := context.Background() // metrics are recorded even when the turn's context is done
	o.inst.turns.Add(bg, 1, metric.WithAttributes(attribute.String("outcome", string(res.Outcome))))
	o.inst.turnDuration.Record(bg, elapsed.Seconds())
	o.inst.intents.Record(bg, int64(d.IntentCount))
	if d.CapBehaviour == CapOver {
		o.inst.capExceeded.Add(bg, 1)
	}
	o.inst.overhead.Record(bg, max(0, elapsed-busy).Seconds())
	_ = ctx
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// vocabulary is the status events the renderer accepts: each sub-agent's declared events,
// plus the orchestrator's own progress line for a silent sub-agent.
func (o *Orchestrator) vocabulary() map[string]map[string]definitions.StatusEvent {
	v := make(map[string]map[string]definitions.StatusEvent, len(o.order))
	for _, b := range o.order {
		events := make(map[string]definitions.StatusEvent, len(b.def.StatusEvents)+1)
		events[workingEvent] = definitions.StatusEvent{Text: "Checking with " + b.def.Name + "…", Policy: definitions.PolicyForward}
		for id, ev := range b.def.StatusEvents {
			events[id] = ev
		}
		v[b.def.ID] = events
	}
	return v
}

var _ stream.Sink = stream.SinkFunc(nil)
