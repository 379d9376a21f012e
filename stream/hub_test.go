package stream_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// turnEvents is a whole turn: started, n deltas, completed.
func turnEvents(turnID string, n int) []stream.Event {
	evs := []stream.Event{stream.TurnStarted{TurnID: turnID, EpisodeID: "ep"}}
	for i := range n {
		evs = append(evs, stream.ReplyDelta{Text: string(rune('a' + i%26))})
	}
	return append(evs, stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeOK})
}

func records(evs []stream.Event, after int) []stream.Record {
	var out []stream.Record
	for i, ev := range evs {
		if i+1 > after {
			out = append(out, stream.Record{ID: uint64(i + 1), Event: ev})
		}
	}
	return out
}

// collect runs Follow to its end and returns what it yielded and its last error.
func collect(ctx context.Context, h *stream.Hub, turnID string, after uint64) ([]stream.Record, error) {
	var got []stream.Record
	for rec, err := range h.Follow(ctx, turnID, after) {
		if err != nil {
			return got, err
		}
		got = append(got, rec)
	}
	return got, nil
}

func TestHubReplaysFromMemoryAndStore(t *testing.T) {
	evs := turnEvents("t1", 5)
	store := stream.NewMemoryLogStore()
	writer := stream.NewHub(store)
	log := writer.Open("t1")
	for _, ev := range evs {
		log.Publish(ev)
	}
	if err := log.Err(); err != nil {
		t.Fatalf("TurnLog.Err() = %v", err)
	}
	replica := stream.NewHub(store) // did not run the turn
	for _, tc := range []struct {
		name string
		hub  *stream.Hub
	}{{"live here", writer}, {"other replica", replica}} {
		for _, after := range []int{0, 3, 6} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := collect(t.Context(), tc.hub, "t1", uint64(after))
				if err != nil {
					t.Fatalf("Follow() error = %v", err)
				}
				if diff := cmp.Diff(records(evs, after), got); diff != "" {
					t.Errorf("Follow(after=%d) mismatch (-want +got):\n%s", after, diff)
				}
			})
		}
	}
}

func TestHubFollowsLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evs := turnEvents("t1", 4)
		h := stream.NewHub(stream.NewMemoryLogStore())
		log := h.Open("t1")
		log.Publish(evs[0])

		var mu sync.Mutex
		var got []stream.Record
		var followErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			for rec, err := range h.Follow(t.Context(), "t1", 0) {
				mu.Lock()
				if err != nil {
					followErr = err
				} else {
					got = append(got, rec)
				}
				mu.Unlock()
			}
		}()
		synctest.Wait() // follower replayed the first record and is waiting
		mu.Lock()
		if len(got) != 1 {
			t.Errorf("records before live appends = %d, want 1", len(got))
		}
		mu.Unlock()
		for _, ev := range evs[1:] {
			log.Publish(ev)
		}
		log.Publish(stream.ReplyDelta{Text: "after the end"}) // ignored: the log is closed
		<-done
		if followErr != nil {
			t.Fatalf("Follow() error = %v", followErr)
		}
		if diff := cmp.Diff(records(evs, 0), got); diff != "" {
			t.Errorf("Follow() mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestHubFollowsAnotherReplicaByPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evs := turnEvents("t1", 3)
		store := stream.NewMemoryLogStore()
		writer := stream.NewHub(store)
		replica := stream.NewHub(store, stream.WithPollInterval(100*time.Millisecond))
		log := writer.Open("t1")
		log.Publish(evs[0])

		type result struct {
			recs []stream.Record
			err  error
		}
		res := make(chan result, 1)
		go func() {
			recs, err := collect(t.Context(), replica, "t1", 0)
			res <- result{recs, err}
		}()
		for _, ev := range evs[1:] {
			time.Sleep(250 * time.Millisecond)
			log.Publish(ev)
		}
		r := <-res
		if r.err != nil {
			t.Fatalf("Follow() error = %v", r.err)
		}
		if diff := cmp.Diff(records(evs, 0), r.recs); diff != "" {
			t.Errorf("Follow() mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestHubFollowEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, live := range []bool{true, false} {
			store := stream.NewMemoryLogStore()
			h := stream.NewHub(store)
			log := stream.NewHub(store).Open("t1")
			if live {
				log = h.Open("t1")
			}
			log.Publish(stream.TurnStarted{TurnID: "t1"})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			got, err := collect(ctx, h, "t1", 0)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("live=%v: Follow() error = %v, want DeadlineExceeded", live, err)
			}
			if len(got) != 1 {
				t.Errorf("live=%v: Follow() yielded %d records, want 1", live, len(got))
			}
		}
	})
}

// countingStore counts Events calls and can fail appends.
type countingStore struct {
	*stream.MemoryLogStore
	mu        sync.Mutex
	reads     int
	appendErr error
}

func (s *countingStore) Events(ctx context.Context, turnID string, after uint64) ([]stream.Record, error) {
	s.mu.Lock()
	s.reads++
	s.mu.Unlock()
	return s.MemoryLogStore.Events(ctx, turnID, after)
}

func (s *countingStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	if s.appendErr != nil {
		return s.appendErr
	}
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s *countingStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	if s.appendErr != nil {
		return s.appendErr
	}
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

// A finished turn nobody follows leaves memory at once (later followers replay from the
// store); one still followed stays until its last follower leaves, or the grace period ends.
func TestHubDoneForgetsUnfollowedTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &countingStore{MemoryLogStore: stream.NewMemoryLogStore()}
		h := stream.NewHub(store, stream.WithGrace(time.Minute))
		defer h.Close()
		log := h.Open("t1")
		for _, ev := range turnEvents("t1", 2) {
			log.Publish(ev)
		}
		h.Done("t1")
		got, err := collect(t.Context(), h, "t1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if store.reads == 0 || len(got) != 4 {
			t.Errorf("after Done with no follower: store reads = %d, records = %d; want > 0 and 4", store.reads, len(got))
		}
	})
}

func TestTurnLogKeepsServingWhenStoreFails(t *testing.T) {
	boom := errors.New("disk full")
	store := &countingStore{MemoryLogStore: stream.NewMemoryLogStore(), appendErr: boom}
	h := stream.NewHub(store)
	log := h.Open("t1")
	evs := turnEvents("t1", 1)
	for _, ev := range evs {
		log.Publish(ev)
	}
	if err := log.Err(); !errors.Is(err, boom) {
		t.Errorf("TurnLog.Err() = %v, want %v", err, boom)
	}
	got, err := collect(t.Context(), h, "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(records(evs, 0), got); diff != "" {
		t.Errorf("live follow with a failing store (-want +got):\n%s", diff)
	}
}

func TestTurnLogConcurrentWriters(t *testing.T) {
	store := stream.NewMemoryLogStore()
	h := stream.NewHub(store)
	log := h.Open("t1")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				log.Publish(stream.ReplyDelta{Text: "x"})
			}
		})
	}
	wg.Wait()
	log.Publish(stream.TurnCompleted{TurnID: "t1"})
	recs, err := collect(t.Context(), h, "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if rec.ID != uint64(i+1) {
			t.Fatalf("record %d has id %d, want %d", i, rec.ID, i+1)
		}
	}
	if len(recs) != 401 {
		t.Errorf("records = %d, want 401", len(recs))
	}
	stored, err := store.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs, stored); diff != "" {
		t.Errorf("store and memory disagree (-memory +store):\n%s", diff)
	}
}

// TestHubFollowEndsForClientPastTheEnd covers a client that claims an id beyond the turn's log
// while the turn runs (as one that saw ids a crashed process never stored): once the turn
// completes, Follow gives it the turn.completed record, so that it learns the outcome, and
// ends rather than wait (or poll the store) forever.
func TestHubFollowEndsForClientPastTheEnd(t *testing.T) {
	for _, live := range []bool{true, false} {
		t.Run(fmt.Sprint("live=", live), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := stream.NewMemoryLogStore()
				writer := stream.NewHub(store)
				h := stream.NewHub(store, stream.WithPollInterval(100*time.Millisecond))
				if live {
					h = writer
				}
				log := writer.Open("t1")
				evs := turnEvents("t1", 2)
				log.Publish(evs[0])
				if err := log.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				type result struct {
					recs []stream.Record
					err  error
				}
				res := make(chan result, 1)
				go func() {
					recs, err := collect(ctx, h, "t1", 99)
					res <- result{recs, err}
				}()
				time.Sleep(time.Second) // the follower has polled a few times
				publishAll(log, evs[1:])
				r := <-res
				end := uint64(len(evs))
				want := []stream.Record{{ID: end, Event: evs[end-1]}}
				if r.err != nil || !cmp.Equal(want, r.recs) {
					t.Errorf("Follow(after=99) = %v, %v; want %v, nil", r.recs, r.err, want)
				}
				// At the end exactly: nothing.
				if recs, err := collect(ctx, h, "t1", end); err != nil || len(recs) != 0 {
					t.Errorf("Follow(after=%d) = %v, %v; want none, nil", end, recs, err)
				}
			})
		})
	}
}
