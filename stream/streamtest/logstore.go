package streamtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// LogStoreSuite checks that a [stream.LogStore] keeps the contract the hub relies on, and
// [stream.BatchLogStore]'s too when the store has it. newStore must return an empty store each
// time it is called.
func LogStoreSuite(t *testing.T, newStore func() stream.LogStore) {
	t.Helper()
	t.Run("RoundTripsEveryEvent", func(t *testing.T) { testRoundTrip(t, newStore()) })
	t.Run("EventsAfter", func(t *testing.T) { testEventsAfter(t, newStore()) })
	t.Run("UnknownTurnIsEmpty", func(t *testing.T) { testUnknownTurn(t, newStore()) })
	t.Run("DuplicateIDRejected", func(t *testing.T) { testDuplicate(t, newStore()) })
	t.Run("TurnsAreSeparate", func(t *testing.T) { testSeparate(t, newStore()) })
	t.Run("ConcurrentTurns", func(t *testing.T) { testConcurrent(t, newStore()) })
	t.Run("ResultsAreCopies", func(t *testing.T) { testCopies(t, newStore()) })
	t.Run("AppendEvents", func(t *testing.T) { testBatches(t, newStore()) })
}

// sampleEvents holds one of each event, with the awkward characters a store must keep.
func sampleEvents() []stream.Event {
	return []stream.Event{
		stream.TurnStarted{TurnID: "t1", EpisodeID: "e1"},
		stream.Status{Text: "Searching offers and looking up your points…", Sources: []stream.Source{
			{AgentID: "shop", Event: "searching_offers"}, {AgentID: "rewards", Event: "checking_points"}}},
		stream.ReplyDelta{Text: "Line one\nline \"two\" <b>&</b> ✓"},
		stream.ReplyCompleted{Text: "done", Components: []json.RawMessage{json.RawMessage(`{"type":"offer_list","items":[1,2]}`)}},
		stream.Error{Message: "Rewards are unavailable right now.", IsFinal: false},
		stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeDegraded},
	}
}

func appendAll(t *testing.T, s stream.LogStore, turnID string, evs []stream.Event) []stream.Record {
	t.Helper()
	recs := make([]stream.Record, len(evs))
	for i, ev := range evs {
		recs[i] = stream.Record{ID: uint64(i + 1), Event: ev}
		if err := s.AppendEvent(t.Context(), turnID, recs[i]); err != nil {
			t.Fatalf("AppendEvent(%s, %d) = %v, want nil", turnID, i+1, err)
		}
	}
	return recs
}

func testRoundTrip(t *testing.T, s stream.LogStore) {
	want := appendAll(t, s, "t1", sampleEvents())
	got, err := s.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatalf("Events() error = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Events(t1, 0) mismatch (-want +got):\n%s", diff)
	}
}

func testEventsAfter(t *testing.T, s stream.LogStore) {
	all := appendAll(t, s, "t1", sampleEvents())
	for _, after := range []uint64{0, 1, 3, 5, 6, 100} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			got, err := s.Events(t.Context(), "t1", after)
			if err != nil {
				t.Fatalf("Events() error = %v", err)
			}
			want := []stream.Record{}
			if after < uint64(len(all)) {
				want = all[after:]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Events(t1, %d) mismatch (-want +got):\n%s", after, diff)
			}
		})
	}
}

func testUnknownTurn(t *testing.T, s stream.LogStore) {
	got, err := s.Events(t.Context(), "nope", 0)
	if err != nil || len(got) != 0 {
		t.Errorf("Events(unknown, 0) = %v, %v, want empty, nil", got, err)
	}
}

func testDuplicate(t *testing.T, s stream.LogStore) {
	appendAll(t, s, "t1", sampleEvents()[:2])
	err := s.AppendEvent(t.Context(), "t1", stream.Record{ID: 2, Event: stream.ReplyDelta{Text: "again"}})
	if !errors.Is(err, stream.ErrRecordExists) {
		t.Errorf("AppendEvent(duplicate id) = %v, want ErrRecordExists", err)
	}
	got, err := s.Events(t.Context(), "t1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]stream.Record{{ID: 2, Event: sampleEvents()[1]}}, got); diff != "" {
		t.Errorf("record 2 changed after a rejected append (-want +got):\n%s", diff)
	}
}

func testSeparate(t *testing.T, s stream.LogStore) {
	a := appendAll(t, s, "a", sampleEvents()[:3])
	b := appendAll(t, s, "b", sampleEvents()[3:])
	for turn, want := range map[string][]stream.Record{"a": a, "b": b} {
		got, err := s.Events(t.Context(), turn, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Events(%s) mismatch (-want +got):\n%s", turn, diff)
		}
	}
}

func testConcurrent(t *testing.T, s stream.LogStore) {
	const turns, perTurn = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, turns*perTurn*2)
	for i := range turns {
		turnID := fmt.Sprintf("turn-%d", i)
		wg.Go(func() {
			for j := range perTurn {
				rec := stream.Record{ID: uint64(j + 1), Event: stream.ReplyDelta{Text: fmt.Sprint(j)}}
				if err := s.AppendEvent(t.Context(), turnID, rec); err != nil {
					errs <- err
				}
				if _, err := s.Events(t.Context(), turnID, 0); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent use: %v", err)
	}
	for i := range turns {
		got, err := s.Events(t.Context(), fmt.Sprintf("turn-%d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != perTurn {
			t.Fatalf("turn-%d has %d records, want %d", i, len(got), perTurn)
		}
		for j, rec := range got {
			want := stream.Record{ID: uint64(j + 1), Event: stream.ReplyDelta{Text: fmt.Sprint(j)}}
			if diff := cmp.Diff(want, rec); diff != "" {
				t.Errorf("turn-%d record %d (-want +got):\n%s", i, j+1, diff)
			}
		}
	}
}

func testCopies(t *testing.T, s stream.LogStore) {
	appendAll(t, s, "t1", sampleEvents()[:2])
	first, err := s.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	st := first[1].Event.(stream.Status)
	st.Sources[0].AgentID = "mutated"
	first[0] = stream.Record{}
	again, err := s.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleEvents()[:2], []stream.Event{again[0].Event, again[1].Event}); diff != "" {
		t.Errorf("mutating a result changed the store (-want +got):\n%s", diff)
	}
}

// deltas returns n reply.delta records with ids from first on.
func deltas(first uint64, n int) []stream.Record {
	recs := make([]stream.Record, n)
	for i := range recs {
		recs[i] = stream.Record{ID: first + uint64(i), Event: stream.ReplyDelta{Text: fmt.Sprintf("word %d ", i)}}
	}
	return recs
}

func testBatches(t *testing.T, s stream.LogStore) {
	bs, ok := s.(stream.BatchLogStore)
	if !ok {
		t.Skip("the store has no AppendEvents")
	}
	head := appendAll(t, s, "t1", sampleEvents()[:2]) // ids 1 and 2, one at a time
	tests := []struct {
		name    string
		batch   []stream.Record
		wantErr error
		want    []stream.Record // the log afterwards
	}{
		{"none", nil, nil, head},
		{"an id already stored", []stream.Record{deltas(3, 1)[0], deltas(4, 1)[0], {ID: 2, Event: stream.ReplyDelta{Text: "again"}}},
			stream.ErrRecordExists, head},
		{"an id twice in the batch", []stream.Record{deltas(3, 1)[0], deltas(3, 1)[0]}, stream.ErrRecordExists, head},
		{"every event", records(3, sampleEvents()), nil, append(slices.Clone(head), records(3, sampleEvents())...)},
		// More rows than a store may put in one statement.
		{"a long burst", deltas(9, 1000), nil, append(append(slices.Clone(head), records(3, sampleEvents())...), deltas(9, 1000)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := bs.AppendEvents(t.Context(), "t1", tt.batch); !errors.Is(err, tt.wantErr) {
				t.Errorf("AppendEvents() = %v, want %v", err, tt.wantErr)
			}
			got, err := s.Events(t.Context(), "t1", 0)
			if err != nil {
				t.Fatalf("Events() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("log after AppendEvents (-want +got):\n%s", diff)
			}
		})
	}
	// A batch is one more way to append: single appends carry on after it.
	if err := s.AppendEvent(t.Context(), "t1", deltas(1009, 1)[0]); err != nil {
		t.Errorf("AppendEvent() after batches = %v, want nil", err)
	}
	if got, err := s.Events(t.Context(), "other", 0); err != nil || len(got) != 0 {
		t.Errorf("Events(other turn) = %d records, %v; want none: batches stay in their turn", len(got), err)
	}
}

// records numbers evs from first on.
func records(first uint64, evs []stream.Event) []stream.Record {
	recs := make([]stream.Record, len(evs))
	for i, ev := range evs {
		recs[i] = stream.Record{ID: first + uint64(i), Event: ev}
	}
	return recs
}
