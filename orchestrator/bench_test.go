package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
)

// sleeper is a sub-agent that takes d, or less if its context ends first.
func sleeper(d time.Duration) ask.Func {
	return func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return ask.Answer{Text: "done", Outcome: ask.OutcomeOK, Busy: d}, nil
		case <-ctx.Done():
			return ask.Answer{}, ctx.Err()
		}
	}
}

// BenchmarkFanOut measures a 3-way fan-out with sub-agents of 50, 100 and 300 ms.
// x-ideal is the turn's wall time over the slowest sub-agent's: 1.0 is perfect concurrency,
// about 1.5 would be the sum of the three.
func BenchmarkFanOut(b *testing.B) {
	const slowest = 300 * time.Millisecond
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards", "ask_support"), compose: composeAll}
	o := newTestOrchestrator(b, 3, model, map[string]ask.Agent{
		"shop": sleeper(50 * time.Millisecond), "rewards": sleeper(100 * time.Millisecond), "support": sleeper(slowest),
	})
	var total time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if _, err := o.Run(b.Context(), Turn{ID: "t", Principal: "alice", Message: "all three"}, &collector{}); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		n++
	}
	b.ReportMetric(float64(total)/float64(n)/float64(slowest), "x-ideal")
}

// BenchmarkDispatchOverhead measures the runtime's own cost of a turn with instant fakes:
// routing, cap, fan-out, rendering and composition bookkeeping.
func BenchmarkDispatchOverhead(b *testing.B) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	o := newTestOrchestrator(b, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	b.ReportAllocs()
	for b.Loop() {
		model.reset()
		if _, err := o.Run(b.Context(), Turn{ID: "t", Principal: "alice", Message: "two things"}, &collector{}); err != nil {
			b.Fatal(err)
		}
	}
}
