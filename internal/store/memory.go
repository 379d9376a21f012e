package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// Memory is a store that lives and dies with the process, for tests and evals: not for
// serving users. It is the reference for the semantics every store shares (see the package
// doc), and keeps what it is given as a database would: copied, timestamps to the microsecond,
// events encoded.
//
// It holds at most a bounded number of episodes (see [WithMaxEpisodes]): creating one more
// forgets the oldest episode none of whose turns is running, with its turns, idempotency keys
// and event logs, so a long eval or a load test cannot grow it without limit.
type Memory struct {
	maxEpisodes int
	instance    string // the owner of the turns this store creates

	mu       sync.Mutex
	turns    map[string]orchestrator.TurnRecord
	owners   map[string]string       // turn id -> the instance that created it
	leases   map[string]time.Time    // instance -> end of its lease
	episodes map[episodeKey][]string // episode -> turn ids, oldest first
	order    []episodeKey            // episodes, oldest first
	keys     map[string]string       // principal + idempotency key -> turn id
	events   map[string][]memEvent
}

// DefaultMaxEpisodes is how many episodes a [Memory] keeps unless told otherwise: about 30 MB
// of one-turn episodes of the demo agents.
const DefaultMaxEpisodes = 1000

// episodeKey names an episode: its id is the client's choice, so two principals may each
// have one under the same id.
type episodeKey struct {
	principal principal.Principal
	id        string
}

type memEvent struct {
	id   uint64
	name string
	data []byte
}

var (
	_ orchestrator.Store   = (*Memory)(nil)
	_ stream.LogStore      = (*Memory)(nil)
	_ stream.BatchLogStore = (*Memory)(nil)
)

// NewMemory returns an empty in-memory store; [WithMaxEpisodes] and [WithInstance] apply.
func NewMemory(opts ...Option) *Memory {
	o := buildOptions(opts)
	return &Memory{
		maxEpisodes: o.maxEpisodes,
		instance:    o.instance,
		turns:       map[string]orchestrator.TurnRecord{},
		owners:      map[string]string{},
		leases:      map[string]time.Time{},
		episodes:    map[episodeKey][]string{},
		keys:        map[string]string{},
		events:      map[string][]memEvent{},
	}
}

// evict forgets the oldest episodes until at most maxEpisodes remain, skipping any with a
// running turn (its end must still find it). m.mu must be held.
func (m *Memory) evict() {
	for i := 0; len(m.order) > m.maxEpisodes && i < len(m.order); {
		ep := m.order[i]
		tids := m.episodes[ep] // looked up once: the oldest episodes are cold in the cache
		if m.running(tids) {
			i++
			continue
		}
		for _, tid := range tids {
			// Only the key's fields, not a copy of the whole record.
			if key := m.turns[tid].IdempotencyKey; key != "" {
				delete(m.keys, idemKey(m.turns[tid].Principal, key))
			}
			delete(m.turns, tid)
			delete(m.owners, tid)
			delete(m.events, tid)
		}
		delete(m.episodes, ep)
		if i == 0 {
			// The usual case, the oldest: dropping it by moving the slice's start costs
			// nothing, where deleting shifted the whole order once per turn.
			m.order[0] = episodeKey{}
			m.order = m.order[1:]
		} else {
			m.order = slices.Delete(m.order, i, i+1)
		}
	}
}

// running reports whether one of an episode's turns, tids, is still running. m.mu must be
// held.
func (m *Memory) running(tids []string) bool {
	for _, tid := range tids {
		if m.turns[tid].State == orchestrator.TurnRunning {
			return true
		}
	}
	return false
}

func idemKey(p principal.Principal, key string) string { return string(p) + "\x00" + key }

// CreateTurn implements orchestrator.Store. The turn goes to t.Principal's episode of that id,
// whether or not another principal has one of the same id; an idempotency key already used by
// t.Principal returns that turn with existing=true, even when the rest of t differs (the caller
// compares RequestHash).
func (m *Memory) CreateTurn(_ context.Context, t orchestrator.TurnRecord) (orchestrator.TurnRecord, bool, error) {
	t = normalizeTurn(t)
	d, err := cloneDecision(t.Decision)
	if err != nil {
		return orchestrator.TurnRecord{}, false, err
	}
	t.Decision = d
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.IdempotencyKey != "" {
		if id, ok := m.keys[idemKey(t.Principal, t.IdempotencyKey)]; ok {
			return m.get(id)
		}
	}
	if _, ok := m.turns[t.ID]; ok {
		return orchestrator.TurnRecord{}, false, fmt.Errorf("store: turn %s already exists", t.ID)
	}
	if t.IdempotencyKey != "" {
		m.keys[idemKey(t.Principal, t.IdempotencyKey)] = t.ID
	}
	m.turns[t.ID] = t
	m.owners[t.ID] = m.instance
	ep := episodeKey{t.Principal, t.EpisodeID}
	if len(m.episodes[ep]) == 0 {
		m.order = append(m.order, ep)
	}
	m.episodes[ep] = append(m.episodes[ep], t.ID)
	m.evict()
	stored, _, err := m.get(t.ID)
	return stored, false, err
}

// get returns a copy of a stored turn that shares nothing with the store, with existing=true.
// m.mu must be held.
func (m *Memory) get(id string) (orchestrator.TurnRecord, bool, error) {
	t := m.turns[id]
	d, err := cloneDecision(t.Decision)
	if err != nil {
		return orchestrator.TurnRecord{}, false, err
	}
	t.Decision = d
	return t, true, nil
}

// FinishTurn implements orchestrator.Store. It writes only the fields a turn's end sets
// (State, Outcome, Reply, Decision, Completed); the turn is found by t.ID and t.Principal. A
// turn no longer running is left alone: orchestrator.ErrTurnFinished.
func (m *Memory) FinishTurn(_ context.Context, t orchestrator.TurnRecord) error {
	t = normalizeTurn(t)
	d, err := cloneDecision(t.Decision)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, err := m.finishable(t)
	if err != nil {
		return err
	}
	old.State, old.Outcome, old.Reply, old.Decision, old.Completed = t.State, t.Outcome, t.Reply, d, t.Completed
	m.turns[t.ID] = old
	return nil
}

// finishable returns the stored turn t ends: ErrNotFound when t.Principal has no such turn,
// ErrTurnFinished when it is no longer running. m.mu must be held.
func (m *Memory) finishable(t orchestrator.TurnRecord) (orchestrator.TurnRecord, error) {
	old, ok := m.turns[t.ID]
	if !ok || old.Principal != t.Principal {
		return old, orchestrator.ErrNotFound
	}
	if old.State != orchestrator.TurnRunning {
		return old, fmt.Errorf("store: turn %s: %w", t.ID, orchestrator.ErrTurnFinished)
	}
	return old, nil
}

// Instance returns the owner id this store writes on the turns it creates.
func (m *Memory) Instance() string { return m.instance }

// RenewLease records that this store's instance is alive until until.
func (m *Memory) RenewLease(_ context.Context, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leases[m.instance] = storedTime(until)
	return nil
}

// ReleaseLease ends this instance's lease now: it is stopping, and whatever it leaves running
// is for the next sweep to end.
func (m *Memory) ReleaseLease(ctx context.Context) error { return m.RenewLease(ctx, time.Now()) }

// AbandonOwned finishes, as failed, every turn still running that this store's instance
// created: called at start-up, when no turn of this instance can be running yet, it ends the
// turns a previous run under the same instance id left behind. It returns how many it ended.
func (m *Memory) AbandonOwned(_ context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.abandon(func(id string, _ orchestrator.TurnRecord) bool { return m.owners[id] == m.instance })
}

// AbandonOrphans finishes, as failed, every turn still running whose owner's lease ended
// before now, and every one created before startedBefore whose owner has never held a lease
// (a turn of a process that kept none, or from before leases). It returns how many it ended.
// A turn that has finished in the meantime is left alone, so a second call finds nothing more.
func (m *Memory) AbandonOrphans(_ context.Context, now, startedBefore time.Time) (int, error) {
	now, cutoff := storedTime(now), storedTime(startedBefore)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.abandon(func(id string, t orchestrator.TurnRecord) bool {
		lease, ok := m.leases[m.owners[id]]
		if !ok {
			return t.Created.Before(cutoff)
		}
		return lease.Before(now)
	})
}

// abandon fails the running turns orphaned says are orphans and closes each one's log as
// [abandonEvents] says. m.mu must be held.
func (m *Memory) abandon(orphaned func(id string, t orchestrator.TurnRecord) bool) (int, error) {
	now := storedTime(time.Now())
	n := 0
	for id, t := range m.turns {
		if t.State != orchestrator.TurnRunning || !orphaned(id, t) {
			continue
		}
		recs := m.events[id]
		last := uint64(0)
		if len(recs) > 0 {
			last = recs[len(recs)-1].id
		}
		for i, ev := range abandonEvents(id) {
			name, data, err := stream.Marshal(ev)
			if err != nil {
				return n, err
			}
			recs = append(recs, memEvent{id: last + abandonIDGap + uint64(i), name: name, data: data})
		}
		m.events[id] = recs
		t.State, t.Outcome, t.Completed = orchestrator.TurnCompleted, stream.OutcomeFailed, now
		m.turns[id] = t
		n++
	}
	return n, nil
}

// Turn implements orchestrator.Store.
func (m *Memory) Turn(_ context.Context, p principal.Principal, id string) (orchestrator.TurnRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.turns[id]; !ok || t.Principal != p {
		return orchestrator.TurnRecord{}, orchestrator.ErrNotFound
	}
	t, _, err := m.get(id)
	return t, err
}

// Episode implements orchestrator.Store.
func (m *Memory) Episode(_ context.Context, p principal.Principal, id string) (orchestrator.Episode, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := m.episodes[episodeKey{p, id}]
	if len(ids) == 0 {
		return orchestrator.Episode{}, orchestrator.ErrNotFound
	}
	ep := orchestrator.Episode{ID: id, Principal: p}
	for _, tid := range ids {
		t, _, err := m.get(tid)
		if err != nil {
			return orchestrator.Episode{}, err
		}
		ep.Turns = append(ep.Turns, t)
	}
	return ep, nil
}

// RecentTurns implements orchestrator.Store.
func (m *Memory) RecentTurns(_ context.Context, p principal.Principal, episodeID string, n int) ([]orchestrator.TurnRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := m.episodes[episodeKey{p, episodeID}]
	if len(ids) == 0 {
		return nil, orchestrator.ErrNotFound
	}
	out := []orchestrator.TurnRecord{}
	for _, tid := range ids[len(ids)-min(max(n, 0), len(ids)):] {
		t, _, err := m.get(tid)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// AppendEvent implements stream.LogStore.
func (m *Memory) AppendEvent(_ context.Context, turnID string, rec stream.Record) error {
	name, data, err := rec.Marshal()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	recs := m.events[turnID]
	// Appends nearly always land at the end; the search keeps the log sorted regardless.
	i, found := slices.BinarySearchFunc(recs, rec.ID, compareID)
	if found {
		return fmt.Errorf("store: turn %s record %d: %w", turnID, rec.ID, stream.ErrRecordExists)
	}
	m.events[turnID] = slices.Insert(recs, i, memEvent{id: rec.ID, name: name, data: data})
	return nil
}

// AppendEvents implements stream.BatchLogStore: all of recs or, when one id is taken or
// repeated, none.
func (m *Memory) AppendEvents(_ context.Context, turnID string, recs []stream.Record) error {
	encoded, err := encodeEvents(recs)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.appendEvents(turnID, encoded)
}

// FinishTurnWithEvents implements orchestrator.EndStore: [Memory.FinishTurn] and
// [Memory.AppendEvents] at once, all of it or nothing.
func (m *Memory) FinishTurnWithEvents(_ context.Context, t orchestrator.TurnRecord, recs []stream.Record) error {
	t = normalizeTurn(t)
	d, err := cloneDecision(t.Decision)
	if err != nil {
		return err
	}
	encoded, err := encodeEvents(recs)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, err := m.finishable(t)
	if err != nil {
		return err
	}
	if err := m.appendEvents(t.ID, encoded); err != nil {
		return err
	}
	old.State, old.Outcome, old.Reply, old.Decision, old.Completed = t.State, t.Outcome, t.Reply, d, t.Completed
	m.turns[t.ID] = old
	return nil
}

func encodeEvents(recs []stream.Record) ([]memEvent, error) {
	encoded := make([]memEvent, len(recs))
	for i, rec := range recs {
		name, data, err := rec.Marshal()
		if err != nil {
			return nil, err
		}
		encoded[i] = memEvent{id: rec.ID, name: name, data: data}
	}
	return encoded, nil
}

// appendEvents adds encoded to the turn's log, or nothing when an id is taken or repeated.
// m.mu must be held.
func (m *Memory) appendEvents(turnID string, encoded []memEvent) error {
	log := m.events[turnID]
	if len(log) == 0 && increasing(encoded) {
		// The usual case, a turn's whole log at its end: encoded is the caller's own copy,
		// in order, and becomes the log as it is.
		m.events[turnID] = encoded
		return nil
	}
	batch := make(map[uint64]bool, len(encoded))
	for _, e := range encoded {
		_, found := slices.BinarySearchFunc(log, e.id, compareID)
		if found || batch[e.id] {
			return fmt.Errorf("store: turn %s record %d: %w", turnID, e.id, stream.ErrRecordExists)
		}
		batch[e.id] = true
	}
	log = slices.Grow(log, len(encoded)) // once, not once per insert
	for _, e := range encoded {
		i, _ := slices.BinarySearchFunc(log, e.id, compareID)
		log = slices.Insert(log, i, e)
	}
	m.events[turnID] = log
	return nil
}

func compareID(e memEvent, id uint64) int { return cmp.Compare(e.id, id) }

// increasing reports whether the ids of events strictly increase: none repeats, none is out of
// order.
func increasing(events []memEvent) bool {
	for i := 1; i < len(events); i++ {
		if events[i].id <= events[i-1].id {
			return false
		}
	}
	return true
}

// Events implements stream.LogStore.
func (m *Memory) Events(_ context.Context, turnID string, after uint64) ([]stream.Record, error) {
	m.mu.Lock()
	recs := m.events[turnID]
	i, _ := slices.BinarySearchFunc(recs, after, compareID)
	for i < len(recs) && recs[i].id <= after {
		i++
	}
	// Copied under the lock because an out-of-order insert shifts entries in place; the
	// encoded bytes themselves are never modified, so decoding can run unlocked.
	recs = slices.Clone(recs[i:])
	m.mu.Unlock()
	out := make([]stream.Record, 0, len(recs))
	for _, e := range recs {
		ev, err := stream.Decode(e.name, e.data)
		if err != nil {
			return nil, fmt.Errorf("store: turn %s record %d: %w", turnID, e.id, err)
		}
		out = append(out, stream.Record{ID: e.id, Event: ev})
	}
	return out, nil
}
