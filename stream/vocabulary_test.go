package stream_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// TestVocabularyFrozen freezes the wire names of vocabulary version 1. Changing them breaks
// clients and the eval harness: bump VocabularyVersion and update this test together.
func TestVocabularyFrozen(t *testing.T) {
	if stream.VocabularyVersion != "1" {
		t.Fatalf("VocabularyVersion = %q; update the frozen list below with the new version", stream.VocabularyVersion)
	}
	want := []string{"turn.started", "status", "reply.delta", "reply.completed", "error", "turn.completed"}
	if diff := cmp.Diff(want, stream.Names); diff != "" {
		t.Errorf("Names changed without a version bump (-want +got):\n%s", diff)
	}
	events := []stream.Event{stream.TurnStarted{}, stream.Status{}, stream.ReplyDelta{}, stream.ReplyCompleted{}, stream.Error{}, stream.TurnCompleted{}}
	var names []string
	for _, ev := range events {
		names = append(names, ev.Name())
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Event.Name() values (-want +got):\n%s", diff)
	}
	// The JSON field names are part of the vocabulary too.
	wantData := []string{
		`{"turn_id":"","episode_id":""}`,
		`{"text":"","sources":null}`,
		`{"text":""}`,
		`{"text":""}`,
		`{"message":"","is_final":false}`,
		`{"turn_id":"","outcome":""}`,
	}
	for i, ev := range events {
		name, data, err := stream.Marshal(ev)
		if err != nil || name != want[i] || string(data) != wantData[i] {
			t.Errorf("Marshal(%T) = %q, %s, %v; want %q, %s", ev, name, data, err, want[i], wantData[i])
		}
		back, err := stream.Decode(name, data)
		if err != nil {
			t.Errorf("Decode(%s) error = %v", name, err)
		}
		if diff := cmp.Diff(ev, back); diff != "" {
			t.Errorf("Decode(Marshal(%T)) (-want +got):\n%s", ev, diff)
		}
	}
}
