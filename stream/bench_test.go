package stream_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// BenchmarkGuardReply streams a 2 KB reply in 4-byte deltas, as an LLM does, through a Guard.
func BenchmarkGuardReply(b *testing.B) {
	benchGuard(b, strings.Repeat("Here are a few offers on running shoes that match your size. ", 30)+
		"Your points are unavailable (principal_mismatch) right now.")
}

// benchGuard streams reply through a Guard in 4-byte deltas and completes it, per iteration.
func benchGuard(b *testing.B, reply string) {
	var deltas []string
	for i := 0; i < len(reply); i += 4 {
		deltas = append(deltas, reply[i:min(i+4, len(reply))])
	}
	g := stream.NewGuard(stream.SinkFunc(func(stream.Event) {}), stream.GuardConfig{Forbidden: []string{"offers.search", "rewards.balance"}})
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range deltas {
			g.Publish(stream.ReplyDelta{Text: d})
		}
		g.Publish(stream.ReplyCompleted{Text: reply})
	}
}

// BenchmarkGuardStatus scrubs one short status line.
func BenchmarkGuardStatus(b *testing.B) {
	g := stream.NewGuard(stream.SinkFunc(func(stream.Event) {}), stream.GuardConfig{})
	st := stream.Status{Text: "Searching offers and looking up your points balance…"}
	b.ReportAllocs()
	for b.Loop() {
		g.Publish(st)
	}
}

// BenchmarkRendererEmit renders forward and transform events with no window (every call
// produces a line), the renderer's per-event cost.
func BenchmarkRendererEmit(b *testing.B) {
	r := stream.NewRenderer(stream.RendererConfig{
		Vocabulary: vocabulary,
		Out:        stream.SinkFunc(func(stream.Event) {}),
		Now:        func() time.Time { return time.Time{} },
	})
	defer r.Close()
	fwd := stream.Emission{AgentID: "shop", Event: "found_offers"}
	tr := stream.Emission{AgentID: "shop", Event: "offers_for", Params: map[string]string{"query": "running shoes size 44"}}
	b.ReportAllocs()
	for b.Loop() {
		r.Emit(fwd)
		r.Emit(tr)
	}
}

// BenchmarkRendererBatch merges three parallel events per window and flushes.
func BenchmarkRendererBatch(b *testing.B) {
	r := stream.NewRenderer(stream.RendererConfig{
		Vocabulary: vocabulary,
		Rendering:  definitions.Rendering{BatchWindow: time.Hour},
		Out:        stream.SinkFunc(func(stream.Event) {}),
	})
	defer r.Close()
	evs := []stream.Emission{
		{AgentID: "shop", Event: "searching_offers"},
		{AgentID: "rewards", Event: "checking_points"},
		{AgentID: "support", Event: "checking_orders"},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evs {
			r.Emit(e)
		}
		r.Flush()
	}
}

// BenchmarkGuardReplyStatusWords is BenchmarkGuardReply with the ordinary word "status" in every
// paragraph, an anchor that used to send the whole window through the regexp at every step.
func BenchmarkGuardReplyStatusWords(b *testing.B) {
	benchGuard(b, strings.Repeat("Your order status is shipped and the parcel should arrive on Friday as planned. ", 27))
}
