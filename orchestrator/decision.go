package orchestrator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// tracerName scopes the orchestrator's spans.
const tracerName = "github.com/switchboard-ai/switchboard/orchestrator"

// Cap behaviours of a turn relative to the fan-out cap.
const (
	CapWithin = "within"
	CapAt     = "at"
	CapOver   = "over"
)

// Decision is the routing-decision record of one turn.
// Its JSON form (see [Decision.MarshalJSON]) is what GET /v1/turns/{id} shows as "routing".
type Decision struct {
	Invoked      []string       // sub-agent ids run, in call order
	IntentCount  int            // tool calls the LLM emitted
	Cap          int            // the fan-out cap in force
	CapBehaviour string         // within, at or over
	Dropped      []string       // tool names dropped before running
	Agents       []AgentOutcome // per invoked sub-agent
}

// AgentOutcome is one sub-agent's part of the routing decision.
type AgentOutcome struct {
	Agent   string
	Outcome ask.Outcome
	Started time.Time
	Latency time.Duration
	Tools   []string // the sub-agent's tools it called, in order (see [ask.Answer])
}

// applyCap keeps the first cap calls that name a bound sub-agent and drops the rest before
// anything runs. Calls naming no bound tool (a model inventing one) are
// dropped too, counted in switchboard_unknown_tool_calls_total, and do not count against the
// cap: the cap behaviour says whether real sub-agents were dropped for it.
func (o *Orchestrator) applyCap(calls []llms.ToolCall) ([]keptCall, Decision) {
	d := Decision{IntentCount: len(calls), Cap: o.def.FanOutCap}
	n := min(len(calls), o.def.FanOutCap)
	kept := make([]keptCall, 0, n)
	d.Invoked = make([]string, 0, n)
	bound := 0 // calls naming a bound sub-agent: only they count against the cap
	for _, c := range calls {
		b, ok := o.bindings[c.FunctionCall.Name]
		if ok {
			bound++
		} else {
			o.inst.unknownTools.Add(context.Background(), 1)
		}
		if !ok || len(kept) >= o.def.FanOutCap {
			d.Dropped = append(d.Dropped, c.FunctionCall.Name)
			continue
		}
		kept = append(kept, keptCall{call: c, b: b})
		d.Invoked = append(d.Invoked, b.def.ID)
	}
	switch {
	case bound > o.def.FanOutCap:
		d.CapBehaviour = CapOver
	case bound == o.def.FanOutCap:
		d.CapBehaviour = CapAt
	default:
		d.CapBehaviour = CapWithin
	}
	return kept, d
}

// record emits the routing decision as the span event routing.decision and as metrics.
func (o *Orchestrator) record(span trace.Span, attrs *turnAttrs, res *Result, elapsed, busy time.Duration) {
	if res == nil {
		return
	}
	if attrs != nil { // an unsampled turn skips building what only its span would keep
		o.recordSpan(span, attrs, res)
	}
	o.recordMetrics(res, elapsed, busy)
}

// recordSpan adds the routing.decision event and the outcome to the turn's span.
func (o *Orchestrator) recordSpan(span trace.Span, attrs *turnAttrs, res *Result) {
	d := res.Decision
	var room [8]string // on the stack: the lists only serve as keys, see [stringLists]
	outcomes := room[:0]
	for _, a := range d.Agents {
		outcomes = append(outcomes, o.labels.label(a.Agent, a.Outcome))
	}
	attrs.event = [...]attribute.KeyValue{
		{Key: "routing.invoked", Value: o.lists.value(d.Invoked)},
		attribute.Int("routing.intent_count", d.IntentCount),
		attribute.Int("routing.cap", d.Cap),
		attribute.String("routing.cap_behaviour", d.CapBehaviour),
		{Key: "routing.dropped", Value: o.lists.value(d.Dropped)},
		{Key: "routing.outcomes", Value: o.lists.value(outcomes)},
	}
	span.AddEvent("routing.decision", trace.WithAttributes(attrs.event[:]...))
	span.SetAttributes(attrs.turn(res.Outcome)...)
}

// recordMetrics counts the turn, sampled or not.
func (o *Orchestrator) recordMetrics(res *Result, elapsed, busy time.Duration) {
	d := res.Decision
	bg := context.Background() // metrics are recorded even when the turn's context is done
	o.inst.turns.Add(bg, 1, o.inst.outcome(res.Outcome)...)
	o.inst.turnDuration.Record(bg, elapsed.Seconds())
	o.inst.intents.Record(bg, int64(d.IntentCount))
	if d.CapBehaviour == CapOver {
		o.inst.capExceeded.Add(bg, 1)
	}
	o.inst.overhead.Record(bg, max(0, elapsed-busy).Seconds())
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

// decisionJSON is the wire form of a [Decision]: lists are never null and latencies are
// milliseconds, which clients read without knowing Go durations.
type decisionJSON struct {
	Invoked      []string           `json:"invoked"`
	IntentCount  int                `json:"intent_count"`
	Cap          int                `json:"cap"`
	CapBehaviour string             `json:"cap_behaviour"`
	Dropped      []string           `json:"dropped"`
	Agents       []agentOutcomeJSON `json:"agents"`
}

type agentOutcomeJSON struct {
	Agent     string      `json:"agent"`
	Outcome   ask.Outcome `json:"outcome"`
	Started   time.Time   `json:"started"`
	LatencyMS float64     `json:"latency_ms"`
	Tools     []string    `json:"tools,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (d Decision) MarshalJSON() ([]byte, error) {
	w := decisionJSON{Invoked: nonNil(d.Invoked), IntentCount: d.IntentCount, Cap: d.Cap,
		CapBehaviour: d.CapBehaviour, Dropped: nonNil(d.Dropped), Agents: []agentOutcomeJSON{}}
	for _, a := range d.Agents {
		w.Agents = append(w.Agents, agentOutcomeJSON{Agent: a.Agent, Outcome: a.Outcome, Started: a.Started,
			LatencyMS: float64(a.Latency) / float64(time.Millisecond), Tools: a.Tools})
	}
	return json.Marshal(w)
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Decision) UnmarshalJSON(data []byte) error {
	var w decisionJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*d = Decision{IntentCount: w.IntentCount, Cap: w.Cap, CapBehaviour: w.CapBehaviour}
	if len(w.Invoked) > 0 {
		d.Invoked = w.Invoked
	}
	if len(w.Dropped) > 0 {
		d.Dropped = w.Dropped
	}
	for _, a := range w.Agents {
		d.Agents = append(d.Agents, AgentOutcome{Agent: a.Agent, Outcome: a.Outcome, Started: a.Started,
			Latency: time.Duration(a.LatencyMS * float64(time.Millisecond)), Tools: a.Tools})
	}
	return nil
}
