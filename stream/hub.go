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
	closing chan struct{}         // closed by Close: scheduled batches go out at once, retries give up
	writers sync.WaitGroup        // scheduled or running batches of turn logs; Add only under mu while !closed
	writing map[*TurnLog]struct{} // the logs counted in writers, for Close to hurry
}

type hubOptions struct {
	grace        time.Duration
	poll         time.Duration
	storeTimeout time.Duration
	lostAfter    time.Duration
}

// HubOption tunes a [Hub].
type HubOption func(*hubOptions)

// WithGrace sets how long [Hub.Done] keeps a finished turn in memory for late followers
// (default 1 minute); after it, they replay from the store.
func WithGrace(d time.Duration) HubOption { return func(o *hubOptions) { o.grace = d } }

// WithPollInterval sets how often a follower of a turn that runs on another replica re-reads
// the store for new records (default 500ms). A store that is an [AppendWatcher] wakes it
// sooner, as records arrive; the interval is then only the fallback for a missed signal.
func WithPollInterval(d time.Duration) HubOption { return func(o *hubOptions) { o.poll = d } }

// WithStoreTimeout bounds each store write made by a [TurnLog], one batch of records (default 5s).
// Zero or less sets no deadline, for a store that answers from memory and cannot hang: a
// deadline costs a timer on every write.
func WithStoreTimeout(d time.Duration) HubOption { return func(o *hubOptions) { o.storeTimeout = d } }

// WithLostAfter sets how long a follower of a turn that is not live in this process waits for
// the store to show a new record before it takes the turn's end for lost: no turn runs past its
// deadline, and one whose owner could not store its end is failed. The follower is then given
// an error in plain words and turn.completed with outcome failed, which are not stored, so it
// ends instead of waiting forever. Set it to the turn deadline plus the time an owner keeps
// retrying the store; zero (the default) waits as long as the follower's context allows.
func WithLostAfter(d time.Duration) HubOption { return func(o *hubOptions) { o.lostAfter = d } }

// NewHub returns a hub over store. It starts no goroutine; its turn logs do, while they have
// records waiting for the store.
func NewHub(store LogStore, opts ...HubOption) *Hub {
	o := hubOptions{grace: time.Minute, poll: 500 * time.Millisecond, storeTimeout: 5 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	return &Hub{store: store, opts: o, turns: map[string]*liveTurn{}, timers: map[string]*time.Timer{},
		closing: make(chan struct{}), writing: map[*TurnLog]struct{}{}}
}

// liveTurn is the in-memory log of a turn running here. recs only grows, and a record is never
// modified once appended, so a follower may read a snapshot of it without the lock.
type liveTurn struct {
	log    *TurnLog // the turn's one writer, &writer; nil for a completed turn loaded from the store
	writer TurnLog  // allocated with the turn rather than on its own

	mu     sync.Mutex
	recs   []Record
	frames [][]byte // recs as SSE frames, encoded once for every connection
	// recRoom and frameRoom are where recs and frames start: a short turn's log then costs
	// the turn no allocation of its own.
	recRoom   [liveRecords]Record
	frameRoom [liveRecords][]byte
	wake      chan struct{} // closed on the next append; nil until a follower waits for one
	closing   bool          // TurnCompleted was published: later events are ignored
	completed bool          // TurnCompleted is stored (or failed to be) and in recs

	// Guarded by the hub's mu.
	followers int  // SSE connections reading it now
	done      bool // [Hub.Done] was called, or it was loaded completed: it goes with its last follower
}

// append adds rec and its frame. t.mu must be held.
func (t *liveTurn) append(rec Record) {
	t.appendFramed(rec, encodeFrame(rec)) // nil if it cannot be encoded: the writer says so
}

// liveRecords is the room a turn's log starts with: a turn whose sub-agents answer without
// progress lines (turn.started, one delta, reply.completed, turn.completed) fits, so its
// slices are not regrown on the third and fifth record; a long reply regrows them a few
// times more, which its deltas dwarf. A larger start costs every short turn its unused room
// (88 bytes a record), all of it garbage once the turn is done.
const liveRecords = 8

// appendFramed adds rec and its already encoded frame. t.mu must be held.
func (t *liveTurn) appendFramed(rec Record, frame []byte) {
	if t.recs == nil {
		t.recs, t.frames = t.recRoom[:0], t.frameRoom[:0]
	}
	t.recs = append(t.recs, rec)
	t.frames = append(t.frames, frame)
}

// broadcast wakes every follower waiting for the next record. t.mu must be held. The next
// channel is made only when a follower asks for it: a burst of records published while no
// follower waits costs no channel each.
func (t *liveTurn) broadcast() {
	if t.wake != nil {
		close(t.wake)
		t.wake = nil
	}
}

// snapshot returns the records so far, a channel closed on the next append, and whether the
// turn has completed.
func (t *liveTurn) snapshot() ([]Record, <-chan struct{}, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.wake == nil && !t.completed {
		t.wake = make(chan struct{})
	}
	return t.recs, t.wake, t.completed
}

// frame returns the encoded frame of the record with id, if this log has it.
func (t *liveTurn) frame(id uint64) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id == 0 || id > uint64(len(t.frames)) {
		return nil
	}
	return t.frames[id-1]
}

// Done tells the hub a turn has finished: its log leaves memory when its last SSE follower
// does (at once when none reads it), or after the grace period at the latest; followers
// already reading it are not affected, later ones replay from the store.
func (h *Hub) Done(turnID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.turns[turnID] == nil || h.timers[turnID] != nil {
		return
	}
	live := h.turns[turnID]
	live.done = true
	if live.followers == 0 {
		// Nobody reads it now: later followers replay from the store (and share one copy).
		delete(h.turns, turnID)
		return
	}
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
	logs := make([]*TurnLog, 0, len(h.writing))
	for l := range h.writing {
		logs = append(logs, l)
	}
	h.mu.Unlock()
	for _, l := range logs { // outside mu: a log's lock is taken before the hub's
		l.turn.mu.Lock()
		l.hurry()
		l.turn.mu.Unlock()
	}
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
// turn still replays and follows it; a store that is an [AppendWatcher] wakes it as soon as
// the turn's records are appended there, and a turn whose end never reaches the store is
// ended for the follower as [WithLostAfter] says.
//
// If ctx ends first, Follow yields ctx's error once and ends. A store error is yielded and ends
// the sequence. Follow starts no goroutine.
func (h *Hub) Follow(ctx context.Context, turnID string, after uint64) iter.Seq2[Record, error] {
	return h.follow(ctx, turnID, after, followHooks{})
}

// followHooks let a follower act while Follow waits, on the follower's own goroutine: an SSE
// connection flushes what it wrote before each wait and writes its keep-alives on tick.
type followHooks struct {
	beforeWait func() bool // false ends the sequence
	tick       <-chan time.Time
	onTick     func() bool // false ends the sequence
}

func (k followHooks) wait() bool { return k.beforeWait == nil || k.beforeWait() }

func (h *Hub) follow(ctx context.Context, turnID string, after uint64, hooks followHooks) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		// Until the record at after is in the store, an empty read cannot tell a quiet turn
		// from a client that is already past the end (or claims to be), so each such round
		// also checks whether the turn has completed; once it is there, new records show up
		// in the read itself.
		recheck := true
		heard := time.Now()          // when the store last showed a new record
		var appended <-chan struct{} // nil (never ready) until the turn is read from the store
		var stopWatch func()
		defer func() {
			if stopWatch != nil {
				stopWatch()
			}
		}()
		for {
			if t := h.live(turnID); t != nil {
				followLive(ctx, t, after, hooks, yield)
				return
			}
			if w, ok := h.store.(AppendWatcher); ok && stopWatch == nil {
				// Watch before reading, so an append between the read and the wait still
				// wakes the wait.
				appended, stopWatch = w.WatchAppends(turnID)
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
			if len(recs) > 0 {
				heard = time.Now()
			} else if lost := h.opts.lostAfter; lost > 0 && time.Since(heard) >= lost {
				for _, rec := range lostEnd(turnID, after) {
					if !yield(rec, nil) {
						return
					}
				}
				return
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
			if !hooks.wait() {
				return
			}
			timer := time.NewTimer(h.opts.poll)
		poll:
			for {
				select {
				case <-ctx.Done():
					timer.Stop()
					yield(Record{}, context.Cause(ctx))
					return
				case <-hooks.tick:
					if !hooks.onTick() {
						timer.Stop()
						return
					}
				case <-appended:
					timer.Stop()
					break poll
				case <-timer.C:
					break poll
				}
			}
		}
	}
}

// lostIDGap puts the records that end a lost turn's replay far past any id its owner can have
// shown: no turn publishes 2^32 events. A sweep that later fails the turn writes its own end
// the same distance past the stored log, so a client resuming from these ids is not given
// records it has seen under other ids.
const lostIDGap = 1 << 32

// lostMessage tells a follower why a turn ended without its end in the store.
const lostMessage = "Sorry, this answer was interrupted by a server problem and could not be saved. Please ask again."

// lostEnd is what a follower is given for a turn whose end the store never showed (see
// [WithLostAfter]), after the record with id after.
func lostEnd(turnID string, after uint64) []Record {
	id := after + lostIDGap
	return []Record{
		{ID: id, Event: Error{Message: lostMessage, IsFinal: true}},
		{ID: id + 1, Event: TurnCompleted{TurnID: turnID, Outcome: OutcomeFailed}},
	}
}

func followLive(ctx context.Context, t *liveTurn, after uint64, hooks followHooks, yield func(Record, error) bool) {
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
		if !hooks.wait() {
			return
		}
		for waiting := true; waiting; {
			select {
			case <-ctx.Done():
				yield(Record{}, context.Cause(ctx))
				return
			case <-hooks.tick:
				if !hooks.onTick() {
					return
				}
			case <-wake:
				waiting = false
			}
		}
	}
}

// acquire registers an SSE follower of a turn and returns its log in memory: the live turn, or
// a completed turn loaded from the store once and shared by all its followers, so that many
// clients replaying one long turn hold one copy of it. It returns nil for a turn that is
// neither (running on another replica, or unknown): the follower then reads the store. Each
// non-nil result must be given back with [Hub.release].
func (h *Hub) acquire(ctx context.Context, turnID string) (*liveTurn, error) {
	h.mu.Lock()
	if t := h.turns[turnID]; t != nil {
		t.followers++
		h.mu.Unlock()
		return t, nil
	}
	h.mu.Unlock()
	recs, err := h.store.Events(ctx, turnID, 0)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if _, completed := recs[len(recs)-1].Event.(TurnCompleted); !completed {
		return nil, nil
	}
	if recs[len(recs)-1].ID != uint64(len(recs)) {
		// Not 1..n: a crash recovery wrote the end past a gap. Memory logs index records by
		// id, so this one is served from the store.
		return nil, nil
	}
	loaded := &liveTurn{completed: true, closing: true, done: true}
	for _, rec := range recs {
		loaded.append(rec)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.turns[turnID]; t != nil { // loaded meanwhile by another follower
		loaded = t
	} else if !h.closed {
		h.turns[turnID] = loaded
	}
	loaded.followers++
	return loaded, nil
}

// release ends a follower's hold on t; a finished turn leaves memory with its last follower.
func (h *Hub) release(turnID string, t *liveTurn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.followers--
	if t.followers > 0 || !t.done || h.turns[turnID] != t {
		return
	}
	delete(h.turns, turnID)
	if timer := h.timers[turnID]; timer != nil {
		timer.Stop()
		delete(h.timers, turnID)
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
