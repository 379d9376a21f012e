package stream

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"
)

// Hub keeps the live turns of this process in memory and serves their logs to followers. The
// [LogStore] is the source of truth; memory only spares live followers a store round trip and
// lets them wake the moment a record is appended.
//
// Writers never wait for followers: a follower pulls from the shared log at its own pace and is
// woken by a broadcast (a channel closed and replaced on each append), so a slow or stalled
// follower costs the writer nothing and buffers nothing.
type Hub struct {
	store LogStore
	opts  hubOptions

	mu      sync.Mutex
	turns   map[string]*liveTurn
	timers  map[string]*time.Timer // pending [Hub.Done] evictions
	closed  bool
	closing chan struct{}  // closed by Close: writers store what is queued without waiting
	writers sync.WaitGroup // TurnLog writer goroutines; Add only under mu while !closed
}

type hubOptions struct {
	grace        time.Duration
	poll         time.Duration
	storeTimeout time.Duration
}

// HubOption tunes a [Hub].
type HubOption func(*hubOptions)

// WithGrace sets how long [Hub.Done] keeps a finished turn in memory for late followers
// (default 1 minute); after it, they replay from the store.
func WithGrace(d time.Duration) HubOption { return func(o *hubOptions) { o.grace = d } }

// WithPollInterval sets how often a follower of a turn that runs on another replica re-reads
// the store for new records (default 500ms).
func WithPollInterval(d time.Duration) HubOption { return func(o *hubOptions) { o.poll = d } }

// WithStoreTimeout bounds each store write made by a [TurnLog], one batch of records (default 5s).
func WithStoreTimeout(d time.Duration) HubOption { return func(o *hubOptions) { o.storeTimeout = d } }

// NewHub returns a hub over store. It starts no goroutine; its turn logs do, while they have
// records waiting for the store.
func NewHub(store LogStore, opts ...HubOption) *Hub {
	o := hubOptions{grace: time.Minute, poll: 500 * time.Millisecond, storeTimeout: 5 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	return &Hub{store: store, opts: o, turns: map[string]*liveTurn{}, timers: map[string]*time.Timer{},
		closing: make(chan struct{})}
}

// liveTurn is the in-memory log of a turn running here. recs only grows, and a record is never
// modified once appended, so a follower may read a snapshot of it without the lock.
type liveTurn struct {
	log *TurnLog // the turn's one writer; set at creation

	mu        sync.Mutex
	recs      []Record
	wake      chan struct{} // closed and replaced on every append
	closing   bool          // TurnCompleted was published: later events are ignored
	completed bool          // TurnCompleted is stored (or failed to be) and in recs
}

// broadcast wakes every follower waiting for the next record. t.mu must be held.
func (t *liveTurn) broadcast() {
	close(t.wake)
	t.wake = make(chan struct{})
}

func (t *liveTurn) snapshot() ([]Record, <-chan struct{}, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.recs, t.wake, t.completed
}

// Done schedules a finished turn to be forgotten after the grace period; followers already
// reading it are not affected, later ones replay from the store.
func (h *Hub) Done(turnID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.turns[turnID] == nil || h.timers[turnID] != nil {
		return
	}
	live := h.turns[turnID]
	h.timers[turnID] = time.AfterFunc(h.opts.grace, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.turns[turnID] == live { // not a turn reopened under the same id since
			delete(h.turns, turnID)
		}
		delete(h.timers, turnID)
	})
}

// Close stops pending evictions and forgets every turn; followers already reading a live turn
// finish normally. It waits while turn logs store the records they still hold (each batch
// bounded by the store timeout), so call it before closing the store. It leaves no goroutine
// behind: after Close, a turn log stores its records in the goroutine that publishes them.
func (h *Hub) Close() {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
	for id, timer := range h.timers {
		timer.Stop()
		delete(h.timers, id)
	}
	clear(h.turns)
	h.mu.Unlock()
	h.writers.Wait()
}

func (h *Hub) live(turnID string) *liveTurn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.turns[turnID]
}

// Follow yields the turn's records with an ID greater than after, in order and each once: first
// what is already logged, then new records as they are appended, until the [TurnCompleted]
// record, after which it ends. A client past the end of a completed turn (after beyond its last
// id, as after a crash left ids that were shown but never stored) is given the turn.completed
// record once more, under its own id, so that it still learns the outcome; one at the end
// exactly gets nothing. A turn live in this process is read from memory; any other turn
// from the store, which is polled while the turn runs elsewhere, so a replica that did not run a
// turn still replays and follows it.
//
// If ctx ends first, Follow yields ctx's error once and ends. A store error is yielded and ends
// the sequence. Follow starts no goroutine.
func (h *Hub) Follow(ctx context.Context, turnID string, after uint64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		// Until the record at after is in the store, an empty read cannot tell a quiet turn
		// from a client that is already past the end (or claims to be), so each such round
		// also checks whether the turn has completed; once it is there, new records show up
		// in the read itself.
		recheck := true
		for {
			if t := h.live(turnID); t != nil {
				followLive(ctx, t, after, yield)
				return
			}
			recs, err := h.store.Events(ctx, turnID, after)
			if err != nil {
				if ctx.Err() != nil {
					err = context.Cause(ctx)
				}
				yield(Record{}, fmt.Errorf("stream: replay turn %s: %w", turnID, err))
				return
			}
			for _, rec := range recs {
				if rec.ID <= after {
					continue
				}
				if !yield(rec, nil) {
					return
				}
				after = rec.ID
				if _, ok := rec.Event.(TurnCompleted); ok {
					return
				}
			}
			if len(recs) == 0 && recheck {
				done, known, end, err := h.storeDelivered(ctx, turnID, after)
				if err != nil {
					yield(Record{}, err)
					return
				}
				if end != nil {
					yield(*end, nil)
					return
				}
				if done {
					return
				}
				recheck = !known
			} else if len(recs) > 0 {
				recheck = false
			}
			timer := time.NewTimer(h.opts.poll)
			select {
			case <-ctx.Done():
				timer.Stop()
				yield(Record{}, context.Cause(ctx))
				return
			case <-timer.C:
			}
		}
	}
}

func followLive(ctx context.Context, t *liveTurn, after uint64, yield func(Record, error) bool) {
	for {
		recs, wake, completed := t.snapshot()
		for _, rec := range recs[min(after, uint64(len(recs))):] {
			if !yield(rec, nil) {
				return
			}
			after = rec.ID
		}
		if completed {
			if n := uint64(len(recs)); n > 0 && after > n {
				yield(recs[n-1], nil) // past the end: the outcome once more
			}
			return
		}
		select {
		case <-ctx.Done():
			yield(Record{}, context.Cause(ctx))
			return
		case <-wake:
		}
	}
}

// lastDelivered reports whether the turn has completed and its last record has the ID after:
// a client that has seen it has nothing left to receive. One claiming an id beyond it has not
// (Follow gives it the end once more).
func (h *Hub) lastDelivered(ctx context.Context, turnID string, after uint64) (bool, error) {
	if t := h.live(turnID); t != nil {
		recs, _, completed := t.snapshot()
		return completed && uint64(len(recs)) == after, nil
	}
	done, _, _, err := h.storeDelivered(ctx, turnID, after)
	return done, err
}

// storeDelivered is lastDelivered for a turn that is not live here. It reads the record at
// after (and, only if the client claims an id beyond the log, the whole log). known reports
// that the store holds the record at after (or after is 0); end is the turn.completed record
// of a completed turn whose last id is below after.
func (h *Hub) storeDelivered(ctx context.Context, turnID string, after uint64) (done, known bool, end *Record, err error) {
	if after == 0 {
		return false, true, nil, nil // a completed turn has at least one record
	}
	recs, err := h.store.Events(ctx, turnID, after-1)
	known = len(recs) > 0
	if err == nil && !known {
		recs, err = h.store.Events(ctx, turnID, 0)
	}
	if err != nil {
		return false, false, nil, fmt.Errorf("stream: replay turn %s: %w", turnID, err)
	}
	if len(recs) == 0 {
		return false, false, nil, nil
	}
	last := recs[len(recs)-1]
	if _, completed := last.Event.(TurnCompleted); !completed {
		return false, known, nil, nil
	}
	if last.ID < after {
		return false, known, &last, nil
	}
	return last.ID == after, known, nil, nil
}
