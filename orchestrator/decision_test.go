package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// subSpan is what a test expects of one `subagent <id>` span.
type subSpan struct {
	Outcome string
	Errored bool // span status Error (failed, timeout)
}

// The routing decision of every kind of turn is visible as the span event routing.decision on
// the turn span, as child spans per sub-agent, and as the routing metrics.
func TestRoutingDecisionTelemetry(t *testing.T) {
	okDefs := demoSubs
	timeoutSupport := *demoSubs[2]
	timeoutSupport.Timeout = 30 * time.Millisecond

	for _, tc := range []struct {
		name     string
		capN     int
		subs     []*definitions.Definition
		calls    []string
		runtimes func() map[string]ask.Agent
		// overlap asks that the sub-agent spans overlap in time (fan-out concurrency).
		overlap bool
		event   map[string]any
		outcome stream.Outcome
		spans   map[string]subSpan
		metrics map[string]float64
	}{
		{
			name: "single intent", capN: 3, subs: okDefs, calls: []string{"ask_shop"},
			runtimes: func() map[string]ask.Agent {
				return map[string]ask.Agent{"shop": answer("offers"), "rewards": answer("b"), "support": answer("c")}
			},
			event: map[string]any{
				"routing.invoked": []string{"shop"}, "routing.intent_count": int64(1), "routing.cap": int64(3),
				"routing.cap_behaviour": CapWithin, "routing.dropped": []string{}, "routing.outcomes": []string{"shop=ok"},
			},
			outcome: stream.OutcomeOK,
			spans:   map[string]subSpan{"shop": {Outcome: "ok"}},
			metrics: withTurnTotals(stream.OutcomeOK, map[string]float64{
				"switchboard_intent_count_count":                             1,
				"switchboard_intent_count_sum":                               1,
				"switchboard_fanout_cap_exceeded_total":                      0,
				"switchboard_unknown_tool_calls_total":                       0,
				"switchboard_subagent_outcomes_total{agent=shop,outcome=ok}": 1,
				"switchboard_subagent_duration_seconds_count{agent=shop}":    1,
				"switchboard_dispatch_overhead_seconds_count":                1,
				"switchboard_turn_duration_seconds_count":                    1,
			}),
		},
		{
			name: "two intents at the cap", capN: 2, subs: okDefs, calls: []string{"ask_shop", "ask_rewards"}, overlap: true,
			runtimes: func() map[string]ask.Agent {
				meet := newMeeting(2)
				return map[string]ask.Agent{"shop": meet.agent("offers"), "rewards": meet.agent("points"), "support": answer("c")}
			},
			event: map[string]any{
				"routing.invoked": []string{"shop", "rewards"}, "routing.intent_count": int64(2), "routing.cap": int64(2),
				"routing.cap_behaviour": CapAt, "routing.dropped": []string{}, "routing.outcomes": []string{"shop=ok", "rewards=ok"},
			},
			outcome: stream.OutcomeOK,
			spans:   map[string]subSpan{"shop": {Outcome: "ok"}, "rewards": {Outcome: "ok"}},
			metrics: withTurnTotals(stream.OutcomeOK, map[string]float64{
				"switchboard_intent_count_count":                                                    1,
				"switchboard_intent_count_sum":                                                      2,
				"switchboard_fanout_cap_exceeded_total":                                             0,
				"switchboard_unknown_tool_calls_total":                                              0,
				"switchboard_subagent_outcomes_total{agent=shop,outcome=ok}":                        1,
				"switchboard_subagent_outcomes_total{agent=rewards,outcome=ok}":                     1,
				"switchboard_subagent_duration_seconds_count{agent=shop}":                           1,
				"switchboard_subagent_duration_seconds_count{agent=rewards}":                        1,
				"switchboard_status_events_total{agent=shop,event=working_on_it,policy=forward}":    1,
				"switchboard_status_events_total{agent=rewards,event=working_on_it,policy=forward}": 1,
				"switchboard_dispatch_overhead_seconds_count":                                       1,
				"switchboard_turn_duration_seconds_count":                                           1,
			}),
		},
		{
			// Names the model invented are dropped and counted apart: one real sub-agent under a
			// cap of 2 is within the cap, however many made-up tools came with it.
			name: "invented tools do not count against the cap", capN: 2, subs: okDefs,
			calls: []string{"ask_weather", "ask_shop", "ask_horoscope", "ask_lottery"},
			runtimes: func() map[string]ask.Agent {
				return map[string]ask.Agent{"shop": answer("offers"), "rewards": answer("points"), "support": answer("orders")}
			},
			event: map[string]any{
				"routing.invoked": []string{"shop"}, "routing.intent_count": int64(4), "routing.cap": int64(2),
				"routing.cap_behaviour": CapWithin, "routing.dropped": []string{"ask_weather", "ask_horoscope", "ask_lottery"},
				"routing.outcomes": []string{"shop=ok"},
			},
			outcome: stream.OutcomeOK,
			spans:   map[string]subSpan{"shop": {Outcome: "ok"}},
			metrics: withTurnTotals(stream.OutcomeOK, map[string]float64{
				"switchboard_intent_count_count":                             1,
				"switchboard_intent_count_sum":                               4,
				"switchboard_fanout_cap_exceeded_total":                      0,
				"switchboard_unknown_tool_calls_total":                       3,
				"switchboard_subagent_outcomes_total{agent=shop,outcome=ok}": 1,
				"switchboard_subagent_duration_seconds_count{agent=shop}":    1,
				"switchboard_dispatch_overhead_seconds_count":                1,
				"switchboard_turn_duration_seconds_count":                    1,
			}),
		},
		{
			name: "over the cap", capN: 2, subs: okDefs, calls: []string{"ask_shop", "ask_rewards", "ask_support"},
			runtimes: func() map[string]ask.Agent {
				return map[string]ask.Agent{"shop": answer("offers"), "rewards": answer("points"), "support": answer("orders")}
			},
			event: map[string]any{
				"routing.invoked": []string{"shop", "rewards"}, "routing.intent_count": int64(3), "routing.cap": int64(2),
				"routing.cap_behaviour": CapOver, "routing.dropped": []string{"ask_support"},
				"routing.outcomes": []string{"shop=ok", "rewards=ok"},
			},
			outcome: stream.OutcomeOK,
			spans:   map[string]subSpan{"shop": {Outcome: "ok"}, "rewards": {Outcome: "ok"}},
			metrics: withTurnTotals(stream.OutcomeOK, map[string]float64{
				"switchboard_intent_count_count":                                1,
				"switchboard_intent_count_sum":                                  3,
				"switchboard_fanout_cap_exceeded_total":                         1,
				"switchboard_unknown_tool_calls_total":                          0,
				"switchboard_subagent_outcomes_total{agent=shop,outcome=ok}":    1,
				"switchboard_subagent_outcomes_total{agent=rewards,outcome=ok}": 1,
				"switchboard_subagent_duration_seconds_count{agent=shop}":       1,
				"switchboard_subagent_duration_seconds_count{agent=rewards}":    1,
				"switchboard_dispatch_overhead_seconds_count":                   1,
				"switchboard_turn_duration_seconds_count":                       1,
			}),
		},
		{
			name: "partial failure", capN: 3, subs: []*definitions.Definition{demoSubs[0], demoSubs[1], &timeoutSupport},
			calls: []string{"ask_shop", "ask_rewards", "ask_support"},
			runtimes: func() map[string]ask.Agent {
				return map[string]ask.Agent{
					"shop": answer("offers"),
					"rewards": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
						return ask.Answer{}, errors.New("rewards-db: connection refused")
					}),
					"support": ask.Func(func(ctx context.Context, _ ask.Question) (ask.Answer, error) {
						<-ctx.Done() // hangs until its definition's timeout
						return ask.Answer{}, ctx.Err()
					}),
				}
			},
			event: map[string]any{
				"routing.invoked": []string{"shop", "rewards", "support"}, "routing.intent_count": int64(3), "routing.cap": int64(3),
				"routing.cap_behaviour": CapAt, "routing.dropped": []string{},
				"routing.outcomes": []string{"shop=ok", "rewards=failed", "support=timeout"},
			},
			outcome: stream.OutcomeDegraded,
			spans: map[string]subSpan{
				"shop": {Outcome: "ok"}, "rewards": {Outcome: "failed", Errored: true}, "support": {Outcome: "timeout", Errored: true},
			},
			metrics: withTurnTotals(stream.OutcomeDegraded, map[string]float64{
				"switchboard_intent_count_count":                                     1,
				"switchboard_intent_count_sum":                                       3,
				"switchboard_fanout_cap_exceeded_total":                              0,
				"switchboard_unknown_tool_calls_total":                               0,
				"switchboard_subagent_outcomes_total{agent=shop,outcome=ok}":         1,
				"switchboard_subagent_outcomes_total{agent=rewards,outcome=failed}":  1,
				"switchboard_subagent_outcomes_total{agent=support,outcome=timeout}": 1,
				"switchboard_subagent_duration_seconds_count{agent=shop}":            1,
				"switchboard_subagent_duration_seconds_count{agent=rewards}":         1,
				"switchboard_subagent_duration_seconds_count{agent=support}":         1,
				"switchboard_dispatch_overhead_seconds_count":                        1,
				"switchboard_turn_duration_seconds_count":                            1,
			}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
			rd := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))
			model := &scriptedModel{route: callTools(tc.calls...), compose: composeAll}
			o, err := New(Config{
				Definition: orchDef(tc.capN, "shop", "rewards", "support"), SubAgents: tc.subs,
				Runtimes: tc.runtimes(), Model: model,
			}, WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler), Tracers: tp, Meters: mp}))
			if err != nil {
				t.Fatalf("New() = %v", err)
			}
			res, err := o.Run(t.Context(), Turn{ID: "turn_1", EpisodeID: "ep_1", Principal: "alice", Message: "x"}, &collector{})
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if res.Outcome != tc.outcome {
				t.Errorf("Run() outcome = %v, want %v", res.Outcome, tc.outcome)
			}

			spans := sr.Ended()
			turn := spanNamed(t, spans, "switchboard.turn")
			if diff := cmp.Diff(tc.event, decisionEvent(t, turn)); diff != "" {
				t.Errorf("routing.decision attributes (-want +got):\n%s", diff)
			}
			if got := attrOf(turn.Attributes(), "switchboard.outcome"); got != string(tc.outcome) {
				t.Errorf("turn span switchboard.outcome = %v, want %v", got, tc.outcome)
			}

			gotSpans := map[string]subSpan{}
			var subs []sdktrace.ReadOnlySpan
			for _, s := range spans {
				id, ok := strings.CutPrefix(s.Name(), "subagent ")
				if !ok {
					continue
				}
				subs = append(subs, s)
				gotSpans[id] = subSpan{Outcome: fmt.Sprint(attrOf(s.Attributes(), "switchboard.outcome")), Errored: s.Status().Code == codes.Error}
				if s.Parent().SpanID() != turn.SpanContext().SpanID() || s.SpanContext().TraceID() != turn.SpanContext().TraceID() {
					t.Errorf("span %q parent = %v, want the turn span %v", s.Name(), s.Parent().SpanID(), turn.SpanContext().SpanID())
				}
				if got := attrOf(s.Attributes(), "switchboard.agent_id"); got != id {
					t.Errorf("span %q switchboard.agent_id = %v, want %s", s.Name(), got, id)
				}
			}
			if diff := cmp.Diff(tc.spans, gotSpans); diff != "" {
				t.Errorf("sub-agent spans (-want +got):\n%s", diff)
			}
			if tc.overlap {
				for i, a := range subs {
					for _, b := range subs[i+1:] {
						if !a.StartTime().Before(b.EndTime()) || !b.StartTime().Before(a.EndTime()) {
							t.Errorf("spans %q [%v, %v] and %q [%v, %v] do not overlap", a.Name(), a.StartTime(), a.EndTime(),
								b.Name(), b.StartTime(), b.EndTime())
						}
					}
				}
			}

			got, sums := collect(t, rd)
			if diff := cmp.Diff(tc.metrics, got); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			// Each call's duration is the latency its decision reports, in seconds: compared
			// with the run's own figure, not with the clock, since a loaded machine may start
			// a call late and a call out of time then runs for less than its timeout.
			for _, a := range res.Decision.Agents {
				if got, want := sums["switchboard_subagent_duration_seconds{agent="+a.Agent+"}"], a.Latency.Seconds(); got != want || want <= 0 {
					t.Errorf("switchboard_subagent_duration_seconds{agent=%s} sum = %vs, want the call's latency %vs (> 0)", a.Agent, got, want)
				}
			}
			if oh, td := sums["switchboard_dispatch_overhead_seconds"], sums["switchboard_turn_duration_seconds"]; oh < 0 || oh > td {
				t.Errorf("dispatch overhead = %vs, want within [0, turn duration %vs]", oh, td)
			}
		})
	}
}

// withTurnTotals adds the turns counter: one turn with outcome, and every other outcome at 0
// (the counter's series exist from the start so that ratios over them are defined).
func withTurnTotals(outcome stream.Outcome, m map[string]float64) map[string]float64 {
	for _, o := range []stream.Outcome{stream.OutcomeOK, stream.OutcomeDegraded, stream.OutcomeFailed, stream.OutcomeCancelled} {
		n := 0.0
		if o == outcome {
			n = 1
		}
		m["switchboard_turns_total{outcome="+string(o)+"}"] = n
	}
	return m
}

// meeting makes sub-agents that each emit a status event and then wait until all n have
// started: they can only finish if they run at the same time.
type meeting struct {
	started sync.WaitGroup
	all     chan struct{}
}

func newMeeting(n int) *meeting {
	m := &meeting{all: make(chan struct{})}
	m.started.Add(n)
	go func() { m.started.Wait(); close(m.all) }()
	return m
}

func (m *meeting) agent(text string) ask.Func {
	return func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		q.Emit("working_on_it", nil)
		m.started.Done()
		select {
		case <-m.all:
			return ask.Answer{Text: text, Outcome: ask.OutcomeOK}, nil
		case <-ctx.Done():
			return ask.Answer{}, ctx.Err()
		}
	}
}

func spanNamed(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	i := slices.IndexFunc(spans, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == name })
	if i < 0 {
		t.Fatalf("no span %q among %d ended spans", name, len(spans))
	}
	return spans[i]
}

// decisionEvent returns the attributes of the span's only routing.decision event.
func decisionEvent(t *testing.T, s sdktrace.ReadOnlySpan) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, ev := range s.Events() {
		if ev.Name != "routing.decision" {
			continue
		}
		m := map[string]any{}
		for _, kv := range ev.Attributes {
			m[string(kv.Key)] = kv.Value.AsInterface()
		}
		found = append(found, m)
	}
	if len(found) != 1 {
		t.Fatalf("span %q has %d routing.decision events, want 1", s.Name(), len(found))
	}
	return found[0]
}

func attrOf(kvs []attribute.KeyValue, key string) any {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.AsInterface()
		}
	}
	return nil
}

// collect reads the meter into series keyed `name{k=v,...}` (labels sorted): a counter's value,
// a histogram's count as name_count, and an integer histogram's sum as name_sum (float sums are
// timings, returned apart in sums keyed like the histogram itself).
func collect(t *testing.T, rd *sdkmetric.ManualReader) (series, sums map[string]float64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := rd.Collect(t.Context(), &rm); err != nil {
		t.Fatalf("Collect() = %v", err)
	}
	series, sums = map[string]float64{}, map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					series[seriesKey(m.Name, p.Attributes)] = float64(p.Value)
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					series[seriesKey(m.Name+"_count", p.Attributes)] = float64(p.Count)
					series[seriesKey(m.Name+"_sum", p.Attributes)] = float64(p.Sum)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					series[seriesKey(m.Name+"_count", p.Attributes)] = float64(p.Count)
					sums[seriesKey(m.Name, p.Attributes)] = p.Sum
				}
			default:
				t.Fatalf("metric %s has unexpected data %T", m.Name, m.Data)
			}
		}
	}
	return series, sums
}

func seriesKey(name string, set attribute.Set) string {
	if set.Len() == 0 {
		return name
	}
	var labels []string
	for _, kv := range set.ToSlice() { // sorted by key
		labels = append(labels, string(kv.Key)+"="+kv.Value.String())
	}
	return name + "{" + strings.Join(labels, ",") + "}"
}
