package audit

import (
	"context"
	"log/slog"
	"testing"
)

// discard is a recorder that keeps nothing, so that the benchmark measures the caller's side.
type discard struct{}

func (discard) AppendAudit(context.Context, []Entry) error { return nil }

// BenchmarkRecord measures what recording costs the caller (a turn): the entry is bounded,
// stamped and queued; the Log's own goroutine writes it.
func BenchmarkRecord(b *testing.B) {
	l, err := New(Config{Recorder: discard{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	d := RoutingDecision{TurnID: "turn_5f74a5587b95238835b20ef5", Outcome: "ok", Intents: 2, Cap: "within",
		Agents: []AgentOutcome{{Agent: "shop", Outcome: "ok"}, {Agent: "rewards", Outcome: "ok"}}}
	b.ReportAllocs()
	for b.Loop() {
		l.Record(ctx, "alice", d)
	}
}
