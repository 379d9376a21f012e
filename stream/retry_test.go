package stream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// outageStore is a MemoryLogStore whose writes fail while it is down, as a database does
// during an outage or behind a lock held elsewhere.
type outageStore struct {
	*stream.MemoryLogStore
	mu       sync.Mutex
	down     bool
	failures int
}

var errDown = errors.New("database is down")

func (s *outageStore) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *outageStore) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		s.failures++
		return errDown
	}
	return nil
}

func (s *outageStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s *outageStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

// Records that fail to store are written again until the store takes them, within the log's
// retry deadline: an outage shorter than that loses nothing a client saw.
func TestTurnLogRetriesWhileStoreIsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &outageStore{MemoryLogStore: stream.NewMemoryLogStore()}
		h := stream.NewHub(store)
		defer h.Close()
		log := h.Open("t1")
		log.RetryUntil(time.Now().Add(time.Minute))
		evs := turnEvents("t1", 5)
		store.setDown(true)
		for _, ev := range evs[:4] {
			log.Publish(ev)
		}
		time.Sleep(3 * time.Second) // the outage: every write fails
		synctest.Wait()
		store.setDown(false)
		for _, ev := range evs[4:] {
			log.Publish(ev)
		}
		if err := log.Err(); err != nil {
			t.Errorf("Err() = %v, want nil", err)
		}
		if store.failures == 0 {
			t.Fatal("no write failed: the test did not take the store down")
		}
		if diff := cmp.Diff(records(evs, 0), stored(t, store, "t1")); diff != "" {
			t.Errorf("stored after the outage (-want +got):\n%s", diff)
		}
	})
}

// Past its retry deadline a log stops writing and holds what the store refused, and everything
// after it, for whoever ends the turn: nothing a client saw is dropped, and the store never has
// a later record without the earlier ones.
func TestTurnLogHoldsWhatTheStoreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &outageStore{MemoryLogStore: stream.NewMemoryLogStore()}
		h := stream.NewHub(store)
		defer h.Close()
		log := h.Open("t1")
		log.RetryUntil(time.Now().Add(2 * time.Second))
		evs := turnEvents("t1", 4)
		log.Publish(evs[0])
		if err := log.Flush(t.Context()); err != nil {
			t.Fatalf("Flush() = %v", err)
		}
		store.setDown(true)
		log.Publish(evs[1])
		log.Publish(evs[2])
		time.Sleep(5 * time.Second) // past the deadline
		synctest.Wait()
		store.setDown(false) // too late for this log: it holds, and writes nothing more
		for _, ev := range evs[3:] {
			log.Publish(ev)
		}
		if err := log.Err(); !errors.Is(err, errDown) {
			t.Errorf("Err() = %v, want %v", err, errDown)
		}
		if diff := cmp.Diff(records(evs, 1), log.Held()); diff != "" {
			t.Errorf("Held() (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(records(evs[:1], 0), stored(t, store, "t1")); diff != "" {
			t.Errorf("stored (-want +got):\n%s", diff)
		}
		// Whoever ends the turn stores them and says so.
		held := log.Held()
		if err := store.AppendEvents(t.Context(), "t1", held); err != nil {
			t.Fatal(err)
		}
		log.Stored(held[len(held)-1].ID)
		if err := log.Err(); err != nil || len(log.Held()) != 0 {
			t.Errorf("after Stored: Err() = %v, Held() = %v; want nil, none", err, log.Held())
		}
	})
}

// PublishEnd stores the records a log holds with the end: one commit makes the log whole.
func TestPublishEndStoresHeldRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &outageStore{MemoryLogStore: stream.NewMemoryLogStore()}
		h := stream.NewHub(store)
		defer h.Close()
		log := h.Open("t1")
		evs := turnEvents("t1", 3)
		store.setDown(true)
		for _, ev := range evs[:len(evs)-1] {
			log.Publish(ev) // no retry deadline: the first failure holds
		}
		if err := log.Flush(t.Context()); !errors.Is(err, errDown) {
			t.Fatalf("Flush() = %v, want %v", err, errDown)
		}
		store.setDown(false)
		err := log.PublishEnd(evs[len(evs)-1].(stream.TurnCompleted), func(ctx context.Context, recs []stream.Record) error {
			return store.AppendEvents(ctx, "t1", recs)
		})
		if err != nil {
			t.Fatalf("PublishEnd() = %v", err)
		}
		if diff := cmp.Diff(records(evs, 0), stored(t, store, "t1")); diff != "" {
			t.Errorf("stored (-want +got):\n%s", diff)
		}
		if err := log.Err(); err != nil {
			t.Errorf("Err() = %v, want nil once the store has the whole log", err)
		}
	})
}

// A follower of a turn whose end never reached the store (its owner could not store it) ends
// once the store has shown nothing new for the lost-after time, with an error and a failed
// turn.completed under ids past any the owner can have shown.
func TestReplayOfLostEndEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := stream.NewMemoryLogStore()
		evs := turnEvents("t1", 2)
		for _, rec := range records(evs[:2], 0) { // started and one delta: no end
			if err := store.AppendEvent(t.Context(), "t1", rec); err != nil {
				t.Fatal(err)
			}
		}
		h := stream.NewHub(store, stream.WithLostAfter(90*time.Second))
		defer h.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		got, err := collect(ctx, h, "t1", 0)
		if err != nil {
			t.Fatalf("Follow() = %v after %s, want an end", err, time.Since(start))
		}
		if waited := time.Since(start); waited < 90*time.Second || waited > 2*time.Minute {
			t.Errorf("Follow() ended after %s, want after the 90s lost-after time and soon after it", waited)
		}
		want := append(records(evs[:2], 0),
			stream.Record{ID: 2 + 1<<32, Event: stream.Error{Message: "Sorry, this answer was interrupted by a server problem and could not be saved. Please ask again.", IsFinal: true}},
			stream.Record{ID: 3 + 1<<32, Event: stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeFailed}},
		)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Follow() (-want +got):\n%s", diff)
		}
	})
}
