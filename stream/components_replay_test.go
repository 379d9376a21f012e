package stream_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// What a replay serves is what the guard let through: the stored reply.completed carries the
// scrubbed components, not the CCS payload as it came.
func TestReplayServesGuardedComponents(t *testing.T) {
	store := stream.NewMemoryLogStore()
	h := stream.NewHub(store)
	log := h.Open("t1")
	g := stream.NewGuard(log, stream.GuardConfig{Forbidden: []string{"points.balance"}})
	g.Publish(stream.TurnStarted{TurnID: "t1", EpisodeID: "e1"})
	g.Publish(stream.ReplyCompleted{Text: "You have 12,450 points.", Components: []json.RawMessage{
		json.RawMessage(`{"type":"points_balance","data":{"points":12450,"note":"goroutine 7 [running]:\n\t/srv/ccs/points.go:88 +0x1d from points.balance"}}`),
		json.RawMessage(`{"type":"blob","data":"` + strings.Repeat("x", stream.MaxComponentBytes) + `"}`),
	}})
	g.Publish(stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeOK})
	if err := log.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.Done("t1")

	recs, err := store.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got *stream.ReplyCompleted
	for _, rec := range recs {
		if rc, ok := rec.Event.(stream.ReplyCompleted); ok {
			got = &rc
		}
	}
	if got == nil {
		t.Fatalf("stored events = %v, want a reply.completed", recs)
	}
	want := `{"type":"points_balance","data":{"points":12450,"note":"from"}}`
	if len(got.Components) != 1 || string(got.Components[0]) != want {
		t.Errorf("stored components = %s, want only %s", got.Components, want)
	}
	if got.Text != "You have 12,450 points." {
		t.Errorf("stored text = %q, want it kept", got.Text)
	}
}
