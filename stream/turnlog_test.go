package stream_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// batchStore is a MemoryLogStore that notes the size of every write a TurnLog makes (an
// AppendEvent counts 1) and can fail writes or hold them until gate is closed.
type batchStore struct {
	*stream.MemoryLogStore
	gate chan struct{} // nil: writes go through at once
	err  error

	mu     sync.Mutex
	writes []int
}

func newBatchStore() *batchStore { return &batchStore{MemoryLogStore: stream.NewMemoryLogStore()} }

func (s *batchStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	if err := s.before(len(recs)); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

func (s *batchStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	if err := s.before(1); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s *batchStore) before(n int) error {
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	s.writes = append(s.writes, n)
	s.mu.Unlock()
	return s.err
}

func (s *batchStore) writeSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.writes)
}

// plainStore hides AppendEvents: a LogStore without batches.
type plainStore struct{ s *batchStore }

func (p plainStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	return p.s.AppendEvent(ctx, turnID, rec)
}

func (p plainStore) Events(ctx context.Context, turnID string, after uint64) ([]stream.Record, error) {
	return p.s.Events(ctx, turnID, after)
}

// writerRunning reports whether any TurnLog batch is being written.
func writerRunning() bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return bytes.Contains(buf[:n], []byte("stream.(*TurnLog).fire"))
}

func stored(t *testing.T, s stream.LogStore, turnID string) []stream.Record {
	t.Helper()
	recs, err := s.Events(t.Context(), turnID, 0)
	if err != nil {
		t.Fatalf("Events(%s) = %v", turnID, err)
	}
	return recs
}

func TestTurnLogBatchesStoreWrites(t *testing.T) {
	tests := []struct {
		name    string
		batches bool
	}{{"batch store", true}, {"plain store", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				bs := newBatchStore()
				var store stream.LogStore = plainStore{bs}
				if tt.batches {
					store = bs
				}
				h := stream.NewHub(store)
				log := h.Open("t1")
				evs := turnEvents("t1", 80) // started, 80 deltas, completed: 82 records

				for _, ev := range evs[:10] {
					log.Publish(ev)
				}
				synctest.Wait()
				if got := stored(t, store, "t1"); len(got) != 0 {
					t.Fatalf("stored before the batch delay = %d records, want 0", len(got))
				}
				time.Sleep(20 * time.Millisecond)
				synctest.Wait()
				if diff := cmp.Diff(records(evs[:10], 0), stored(t, store, "t1")); diff != "" {
					t.Fatalf("stored after the batch delay (-want +got):\n%s", diff)
				}

				// A full batch goes out without waiting for the delay.
				for _, ev := range evs[10:81] {
					log.Publish(ev)
				}
				synctest.Wait()
				if got := len(stored(t, store, "t1")); got < 10+64 {
					t.Errorf("stored after a full batch = %d records, want at least %d", got, 10+64)
				}

				// The end waits for nothing but the store.
				start := time.Now()
				log.Publish(evs[81])
				if waited := time.Since(start); waited != 0 {
					t.Errorf("Publish(TurnCompleted) waited %v, want 0", waited)
				}
				if diff := cmp.Diff(records(evs, 0), stored(t, store, "t1")); diff != "" {
					t.Errorf("store once TurnCompleted is published (-want +got):\n%s", diff)
				}
				if err := log.Err(); err != nil {
					t.Errorf("Err() = %v, want nil", err)
				}
				synctest.Wait()
				if writerRunning() {
					t.Error("a writer goroutine outlived TurnCompleted")
				}

				sizes := bs.writeSizes()
				if !tt.batches {
					if diff := cmp.Diff(slices.Repeat([]int{1}, len(evs)), sizes); diff != "" {
						t.Errorf("writes to a plain store (-want +got):\n%s", diff)
					}
					return
				}
				// 10 after the delay, a full batch (a few more may have joined it), the rest at
				// the end.
				if len(sizes) != 3 || sizes[0] != 10 || sizes[1] < 64 || sizes[0]+sizes[1]+sizes[2] != len(evs) {
					t.Errorf("batch sizes = %v, want [10, >=64, rest] adding up to %d", sizes, len(evs))
				}
			})
		})
	}
}

// TestTurnLogShowsEndOnceStored checks the promise replicas rely on: a follower that has seen
// turn.completed can replay the whole turn from the store.
func TestTurnLogShowsEndOnceStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newBatchStore()
		store.gate = make(chan struct{})
		h := stream.NewHub(store)
		log := h.Open("t1")
		evs := turnEvents("t1", 3)
		for _, ev := range evs[:4] {
			log.Publish(ev)
		}

		var mu sync.Mutex
		var seen []stream.Record
		followed := make(chan error, 1)
		go func() {
			for rec, err := range h.Follow(t.Context(), "t1", 0) {
				if err != nil {
					followed <- err
					return
				}
				mu.Lock()
				seen = append(seen, rec)
				mu.Unlock()
			}
			followed <- nil
		}()
		published := make(chan struct{})
		go func() {
			defer close(published)
			log.Publish(evs[4])
		}()
		synctest.Wait() // the end is being stored, held by the gate
		mu.Lock()
		if diff := cmp.Diff(records(evs[:4], 0), seen); diff != "" {
			t.Errorf("seen while the end is being stored (-want +got):\n%s", diff)
		}
		mu.Unlock()
		log.Publish(stream.ReplyDelta{Text: "late"}) // refused: the log is closing

		close(store.gate)
		<-published
		if err := <-followed; err != nil {
			t.Fatalf("Follow() = %v", err)
		}
		if diff := cmp.Diff(records(evs, 0), seen); diff != "" {
			t.Errorf("seen by the follower (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(records(evs, 0), stored(t, store, "t1")); diff != "" {
			t.Errorf("stored (-want +got):\n%s", diff)
		}
	})
}

func TestTurnLogFlush(t *testing.T) {
	boom := errors.New("disk full")
	tests := []struct {
		name       string
		err        error
		wantStored int
	}{
		{"stores what is queued", nil, 3},
		{"reports a store failure", boom, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newBatchStore()
			store.err = tt.err
			h := stream.NewHub(store)
			defer h.Close()
			log := h.Open("t1")
			for _, ev := range turnEvents("t1", 2)[:3] {
				log.Publish(ev)
			}
			if err := log.Flush(t.Context()); !errors.Is(err, tt.err) {
				t.Errorf("Flush() = %v, want %v", err, tt.err)
			}
			if got := len(stored(t, store, "t1")); got != tt.wantStored {
				t.Errorf("stored after Flush = %d records, want %d", got, tt.wantStored)
			}
			if err := log.Err(); !errors.Is(err, tt.err) {
				t.Errorf("Err() = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestTurnLogFlushEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newBatchStore()
		store.gate = make(chan struct{})
		h := stream.NewHub(store)
		log := h.Open("t1")
		log.Publish(stream.TurnStarted{TurnID: "t1"})
		log.Publish(stream.ReplyDelta{Text: "a"})
		time.Sleep(20 * time.Millisecond) // the writer takes the batch and waits on the gate
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := log.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Flush() behind a stuck batch = %v, want DeadlineExceeded", err)
		}
		close(store.gate)
		h.Close()
		if got := len(stored(t, store, "t1")); got != 2 {
			t.Errorf("stored after Close = %d records, want 2", got)
		}
	})
}

func TestHubCloseStoresQueuedRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newBatchStore()
		h := stream.NewHub(store)
		log := h.Open("t1")
		evs := turnEvents("t1", 4)
		for _, ev := range evs[:3] {
			log.Publish(ev)
		}
		start := time.Now()
		h.Close()
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Close() waited %v for the batch delay, want 0", waited)
		}
		if diff := cmp.Diff(records(evs[:3], 0), stored(t, store, "t1")); diff != "" {
			t.Errorf("stored once Close returns (-want +got):\n%s", diff)
		}
		if writerRunning() {
			t.Error("a writer goroutine outlived Close")
		}
		// A turn still finishing after Close stores as it publishes.
		for i, ev := range evs[3:] {
			log.Publish(ev)
			if got := len(stored(t, store, "t1")); got != 4+i {
				t.Errorf("stored after a Publish that followed Close = %d records, want %d", got, 4+i)
			}
		}
		if writerRunning() {
			t.Error("Publish after Close left a writer goroutine")
		}
	})
}

// deadlineStore notes whether each write's context carries a deadline.
type deadlineStore struct {
	*stream.MemoryLogStore
	mu        sync.Mutex
	deadlines []bool
}

func (s *deadlineStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	s.note(ctx)
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

func (s *deadlineStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	s.note(ctx)
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s *deadlineStore) note(ctx context.Context) {
	_, ok := ctx.Deadline()
	s.mu.Lock()
	s.deadlines = append(s.deadlines, ok)
	s.mu.Unlock()
}

// TestStoreTimeoutBoundsWrites checks that a log's writes carry the hub's store timeout as a
// deadline, and none when it is zero (a store in memory, which a deadline's timer only slows).
func TestStoreTimeoutBoundsWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []stream.HubOption
		want bool
	}{
		{"default", nil, true},
		{"a second", []stream.HubOption{stream.WithStoreTimeout(time.Second)}, true},
		{"zero", []stream.HubOption{stream.WithStoreTimeout(0)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &deadlineStore{MemoryLogStore: stream.NewMemoryLogStore()}
			hub := stream.NewHub(st, tc.opts...)
			defer hub.Close()
			log := hub.Open("t1")
			log.Publish(stream.TurnStarted{TurnID: "t1"})
			if err := log.Flush(t.Context()); err != nil {
				t.Fatalf("Flush() = %v", err)
			}
			log.Publish(stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeOK})
			st.mu.Lock()
			defer st.mu.Unlock()
			if len(st.deadlines) == 0 {
				t.Fatal("no write reached the store")
			}
			for i, got := range st.deadlines {
				if got != tc.want {
					t.Errorf("write %d has a deadline: %v, want %v", i, got, tc.want)
				}
			}
		})
	}
}
