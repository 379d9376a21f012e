package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/internal/oteltest"
)

// Every span of a turn carries the turn's ids and its agent, and the turn and sub-agent spans
// their outcome, whichever order the attributes were set in.
func TestSpanAttributes(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
		return ask.Answer{}, errors.New("down")
	}), "support": answer("c")},
		WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler), Tracers: tp}))
	if _, err := o.Run(t.Context(), Turn{ID: "turn_7", EpisodeID: "ep_7", Principal: "alice", Message: "x"}, &collector{}); err != nil {
		t.Fatalf("Run() = %v", err)
	}
	got := map[string]map[string]string{}
	for _, s := range sr.Ended() {
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		got[s.Name()] = attrs
	}
	ids := func(kv ...string) map[string]string {
		m := map[string]string{"switchboard.turn_id": "turn_7", "switchboard.episode_id": "ep_7"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	orc := o.Definition().ID
	want := map[string]map[string]string{
		"switchboard.turn": ids("switchboard.agent_id", orc, "switchboard.outcome", "degraded"),
		"llm.route":        ids("switchboard.agent_id", orc, "gen_ai.operation.name", "chat"),
		"llm.compose":      ids("switchboard.agent_id", orc, "gen_ai.operation.name", "chat"),
		"subagent shop":    ids("switchboard.agent_id", "shop", "gen_ai.tool.name", "ask_shop", "switchboard.outcome", "ok"),
		"subagent rewards": ids("switchboard.agent_id", "rewards", "gen_ai.tool.name", "ask_rewards", "switchboard.outcome", "failed"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("span attributes (-want +got):\n%s", diff)
	}
}

// Lists that differ get values that differ, however their strings split; a value comes back the
// same from the cache as built; and the cache stops growing at its bound.
func TestStringLists(t *testing.T) {
	c := newStringLists()
	for _, list := range [][]string{nil, {}, {"ab"}, {"a", "b"}, {"a", "b"}, {"", "ab"}, {"ab", ""}, {"shop=ok", "rewards=failed"}} {
		for range 2 { // built, then cached
			got := c.value(list).AsStringSlice()
			if want := append([]string{}, list...); !slices.Equal(got, want) {
				t.Errorf("value(%q) = %q, want %q", list, got, want)
			}
		}
	}
	for i := range maxStringLists + 10 {
		c.value([]string{fmt.Sprint(i)})
	}
	if n := len(c.m); n != maxStringLists {
		t.Errorf("%d lists kept, want at most %d", n, maxStringLists)
	}
}

// Turns that run one after another and at once each get their own ids on every span and their
// own routing.decision event, although their attributes are laid out in arrays turns reuse.
func TestSpanAttributesTurnAfterTurn(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards", "ask_support"), compose: composeAll}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")},
		WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler), Tracers: tp}))
	const turns = 8
	var wg sync.WaitGroup
	for round := range 2 {
		for i := range turns / 2 {
			wg.Go(func() {
				id := fmt.Sprintf("turn_%d", round*turns/2+i)
				if _, err := o.Run(t.Context(), Turn{ID: id, EpisodeID: "ep_" + id, Principal: "alice", Message: "x"}, &collector{}); err != nil {
					t.Errorf("Run(%s) = %v", id, err)
				}
			})
		}
		wg.Wait()
	}
	byTrace := map[string]string{} // trace id -> its turn span's turn id
	for _, s := range sr.Ended() {
		if s.Name() == "switchboard.turn" {
			for _, kv := range s.Attributes() {
				if kv.Key == "switchboard.turn_id" {
					byTrace[s.SpanContext().TraceID().String()] = kv.Value.AsString()
				}
			}
			if ev := s.Events(); len(ev) != 1 || ev[0].Name != "routing.decision" || fmt.Sprint(ev[0].Attributes[0].Value.AsStringSlice()) != "[shop rewards support]" {
				t.Errorf("turn span events = %+v, want one routing.decision invoking shop, rewards and support", ev)
			}
		}
	}
	if len(byTrace) != turns {
		t.Fatalf("%d turn spans, want %d", len(byTrace), turns)
	}
	for _, s := range sr.Ended() {
		turn := byTrace[s.SpanContext().TraceID().String()]
		var got []string
		for _, kv := range s.Attributes() {
			if kv.Key == "switchboard.turn_id" || kv.Key == "switchboard.episode_id" {
				got = append(got, kv.Value.AsString())
			}
		}
		if want := []string{turn, "ep_" + turn}; !slices.Equal(got, want) {
			t.Errorf("span %s of %s has ids %q, want %q", s.Name(), turn, got, want)
		}
	}
}

// TestSpanAttributesKept: a tracer provider may keep the attribute slices it is given (the API
// allows it); what it keeps of one turn's spans must still name that turn after later turns
// ran.
func TestSpanAttributesKept(t *testing.T) {
	tp := &oteltest.KeepingProvider{}
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")},
		WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler), Tracers: tp}))
	for i := range 3 {
		id := fmt.Sprintf("turn_%d", i)
		if _, err := o.Run(t.Context(), Turn{ID: id, EpisodeID: "ep_" + id, Principal: "alice", Message: "x"}, &collector{}); err != nil {
			t.Fatalf("Run(%s) = %v", id, err)
		}
	}
	got := map[string][]string{}
	for _, s := range tp.Spans() {
		a := s.Attributes()
		got[s.Name()] = append(got[s.Name()], a["switchboard.turn_id"]+" "+a["switchboard.episode_id"])
	}
	ids := []string{"turn_0 ep_turn_0", "turn_1 ep_turn_1", "turn_2 ep_turn_2"}
	want := map[string][]string{"switchboard.turn": ids, "llm.route": ids, "llm.compose": ids, "subagent shop": ids, "subagent rewards": ids}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids kept by each span (-want +got):\n%s", diff)
	}
}
