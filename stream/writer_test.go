package stream

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// scheduled reports whether l has a batch scheduled or being written, and how many logs the
// hub counts among its writers.
func scheduled(h *Hub, l *TurnLog) (bool, int) {
	l.turn.mu.Lock()
	writing := l.writing
	l.turn.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return writing, len(h.writing)
}

// twoRecords opens turn t1 on a new hub and publishes its first two records.
func twoRecords() (*MemoryLogStore, *Hub, *TurnLog) {
	store := NewMemoryLogStore()
	h := NewHub(store)
	l := h.Open("t1")
	l.Publish(TurnStarted{TurnID: "t1", EpisodeID: "ep"})
	l.Publish(ReplyDelta{Text: "hello"})
	return store, h, l
}

// A turn's batches are timers, not goroutines, so what must hold is that none is left
// scheduled: not after the end stored the queue, not after a failed end's queue went out.
func TestTurnLogLeavesNoBatchScheduled(t *testing.T) {
	tests := []struct {
		name string
		end  func(l *TurnLog) error
	}{
		{"Publish of the end", func(l *TurnLog) error {
			l.Publish(TurnCompleted{TurnID: "t1", Outcome: OutcomeOK})
			return nil
		}},
		{"PublishEnd", func(l *TurnLog) error {
			return l.PublishEnd(TurnCompleted{TurnID: "t1", Outcome: OutcomeOK}, func(ctx context.Context, recs []Record) error {
				return l.hub.store.(BatchLogStore).AppendEvents(ctx, "t1", recs)
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store, h, l := twoRecords()
				defer h.Close()
				if writing, n := scheduled(h, l); !writing || n != 1 {
					t.Fatalf("after two records: scheduled %v, hub writers %d; want true, 1", writing, n)
				}
				if err := tt.end(l); err != nil {
					t.Fatalf("end: %v", err)
				}
				if writing, n := scheduled(h, l); writing || n != 0 {
					t.Errorf("after the end: scheduled %v, hub writers %d; want false, 0", writing, n)
				}
				time.Sleep(2 * batchDelay) // a timer left armed would fire here
				synctest.Wait()
				recs, err := store.Events(t.Context(), "t1", 0)
				if err != nil || len(recs) != 3 {
					t.Errorf("stored %d records (err %v), want 3", len(recs), err)
				}
			})
		})
	}
}

// A batch still scheduled when the turn's end fails goes out at once, and then nothing is left.
func TestTurnLogFailedEndWritesQueueAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, h, l := twoRecords()
		defer h.Close()
		err := l.PublishEnd(TurnCompleted{TurnID: "t1", Outcome: OutcomeOK}, func(context.Context, []Record) error {
			return context.DeadlineExceeded
		})
		if err == nil {
			t.Fatal("PublishEnd with a failing commit = nil, want its error")
		}
		synctest.Wait() // no time passes: only a batch sent at once is stored here
		if recs, _ := store.Events(t.Context(), "t1", 0); len(recs) != 2 {
			t.Errorf("stored %d records after the failed end, want the 2 queued", len(recs))
		}
		if writing, n := scheduled(h, l); writing || n != 0 {
			t.Errorf("after the queue went out: scheduled %v, hub writers %d; want false, 0", writing, n)
		}
	})
}

// slowLogStore takes storeDelay to store each batch, as a loaded database would.
type slowLogStore struct {
	*MemoryLogStore
}

const storeDelay = 5 * time.Millisecond

func (s slowLogStore) AppendEvent(ctx context.Context, turnID string, rec Record) error {
	time.Sleep(storeDelay)
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s slowLogStore) AppendEvents(ctx context.Context, turnID string, recs []Record) error {
	time.Sleep(storeDelay)
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

// A batch scheduled before Close goes out at once and does not re-arm itself while its turn
// publishes faster than the store writes: Close returns while the turn still runs, whose later
// records its own goroutine stores, and the store ends up with every record.
func TestHubCloseStopsScheduledBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := slowLogStore{NewMemoryLogStore()}
		h := NewHub(store)
		l := h.Open("t1")
		l.Publish(TurnStarted{TurnID: "t1", EpisodeID: "ep"}) // schedules a batch
		const deltas = 100
		published := make(chan struct{})
		go func() {
			defer close(published)
			for range deltas { // one record a millisecond, five a store write
				l.Publish(ReplyDelta{Text: "word "})
				time.Sleep(time.Millisecond)
			}
			l.Publish(TurnCompleted{TurnID: "t1", Outcome: OutcomeOK})
		}()
		time.Sleep(time.Millisecond)
		h.Close()
		select {
		case <-published:
			t.Errorf("Close returned only once the turn had published all %d records", deltas+2)
		default:
		}
		<-published
		recs, err := store.Events(context.Background(), "t1", 0)
		if err != nil || len(recs) != deltas+2 {
			t.Errorf("stored %d records (err %v), want %d", len(recs), err, deltas+2)
		}
		if writing, n := scheduled(h, l); writing || n != 0 {
			t.Errorf("after the turn: scheduled %v, hub writers %d; want false, 0", writing, n)
		}
	})
}
