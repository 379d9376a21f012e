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
// events encoded. Each turn's record and log are kept encoded in bytes (see memcodec.go).
//
// It holds at most a bounded number of episodes (see [WithMaxEpisodes]): creating one more
// forgets the oldest episode none of whose turns is running, with its turns, idempotency keys
// and event logs, so a long eval or a load test cannot grow it without limit.
type Memory struct {
	maxEpisodes int
	instance    string // the owner of every turn this store holds: it creates them all

	mu       sync.Mutex
	turns    map[string]memTurn
	leases   map[string]time.Time    // instance -> end of its lease
	episodes map[episodeKey][]string // episode -> turn ids, oldest first
	order    []episodeKey            // episodes, oldest first
	keys     map[string]string       // principal + idempotency key -> turn id
}

// memTurn is a stored turn: its record and its event log, encoded, and what the store looks
// up often without decoding them. A log may be written before its turn is created (or for a
// turn never created): rec is nil until it is.
type memTurn struct {
	principal principal.Principal
	running   bool
	keyed     bool   // the turn has an idempotency key
	rec       []byte // the record, encodeTurn's
	end       int    // where in rec the fields a turn's end sets start
	log       []byte // the event log, appendLog's, in id order; never modified once written
	lastID    uint64 // the id of the log's last record, 0 for an empty log
}

// DefaultMaxEpisodes is how many episodes a [Memory] keeps unless told otherwise: about 1.5 MB
// of one-turn episodes of the demo agents.
const DefaultMaxEpisodes = 1000

// episodeKey names an episode: its id is the client's choice, so two principals may each
// have one under the same id.
type episodeKey struct {
	principal principal.Principal
	id        string
}

var (
	_ orchestrator.Store      = (*Memory)(nil)
	_ stream.LogStore         = (*Memory)(nil)
	_ stream.BatchLogStore    = (*Memory)(nil)
	_ orchestrator.KeyedTurns = (*Memory)(nil)
)

// NewMemory returns an empty in-memory store; [WithMaxEpisodes] and [WithInstance] apply.
func NewMemory(opts ...Option) *Memory {
	o := buildOptions(opts)
	return &Memory{
		maxEpisodes: o.maxEpisodes,
		instance:    o.instance,
		turns:       map[string]memTurn{},
		leases:      map[string]time.Time{},
		episodes:    map[episodeKey][]string{},
		keys:        map[string]string{},
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
			if mt := m.turns[tid]; mt.keyed {
				if t, err := decodeTurn(mt.rec); err == nil {
					delete(m.keys, idemKey(t.Principal, t.IdempotencyKey))
				}
			}
			delete(m.turns, tid)
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
		if m.turns[tid].running {
			return true
		}
	}
	return false
}

func idemKey(p principal.Principal, key string) string { return string(p) + "\x00" + key }

// put stores t as the turn of its id, whose entry (a log written before the turn, or the
// zero value) is mt. m.mu must be held.
func (m *Memory) put(mt memTurn, t orchestrator.TurnRecord) {
	mt.principal, mt.running, mt.keyed = t.Principal, t.State == orchestrator.TurnRunning, t.IdempotencyKey != ""
	mt.rec, mt.end = encodeTurn(make([]byte, 0, turnSize(t)), t)
	m.turns[t.ID] = mt
}

// end stores the fields a turn's end sets from t (State, Outcome, Reply, Decision, Completed)
// in the stored turn mt of t.ID, keeping the rest as it was stored. The new record is written
// to room when it has the capacity (see appendEvents), to bytes of its own otherwise. m.mu
// must be held.
func (m *Memory) end(mt memTurn, t orchestrator.TurnRecord, room []byte) {
	if size := mt.end + endSize(t); cap(room) < size {
		room = make([]byte, 0, size)
	}
	rec := append(room[:0], mt.rec[:mt.end]...)
	mt.rec = encodeTurnEnd(rec, t)
	mt.running = t.State == orchestrator.TurnRunning
	m.turns[t.ID] = mt
}

// endSize is about the bytes encodeTurnEnd takes for t.
func endSize(t orchestrator.TurnRecord) int {
	return turnSize(orchestrator.TurnRecord{State: t.State, Outcome: t.Outcome, Reply: t.Reply, Decision: t.Decision})
}

// turnSize is about the bytes encodeTurn takes for t, so that one allocation holds it.
func turnSize(t orchestrator.TurnRecord) int {
	n := 64 + len(t.ID) + len(t.EpisodeID) + len(t.Principal) + len(t.Message) + len(t.Locale) + len(t.Location) +
		len(t.IdempotencyKey) + len(t.RequestHash) + len(t.State) + len(t.Outcome) + len(t.Reply)
	if d := t.Decision; d != nil {
		n += 32 + len(d.CapBehaviour)
		for _, s := range d.Invoked {
			n += len(s) + 1
		}
		for _, s := range d.Dropped {
			n += len(s) + 1
		}
		for _, a := range d.Agents {
			n += len(a.Agent) + len(a.Outcome) + 32
			for _, s := range a.Tools {
				n += len(s) + 1
			}
		}
	}
	return n
}

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
	mt, ok := m.turns[t.ID]
	if ok && mt.rec != nil { // a log alone, written first, is no turn
		return orchestrator.TurnRecord{}, false, fmt.Errorf("store: turn %s already exists", t.ID)
	}
	if t.IdempotencyKey != "" {
		m.keys[idemKey(t.Principal, t.IdempotencyKey)] = t.ID
	}
	m.put(mt, t)
	ep := episodeKey{t.Principal, t.EpisodeID}
	tids := m.episodes[ep]
	if len(tids) == 0 {
		m.order = append(m.order, ep)
	}
	m.episodes[ep] = append(tids, t.ID)
	m.evict()
	// What was stored is t itself: its decision is the store's copy, which the encoding has
	// copied again, so t shares nothing with the store.
	return t, false, nil
}

// get returns a copy of a stored turn, decoded, with existing=true. m.mu must be held.
func (m *Memory) get(id string) (orchestrator.TurnRecord, bool, error) {
	t, err := decodeTurn(m.turns[id].rec)
	if err != nil {
		return orchestrator.TurnRecord{}, false, err
	}
	return t, true, nil
}

// FinishTurn implements orchestrator.Store. It writes only the fields a turn's end sets
// (State, Outcome, Reply, Decision, Completed); the turn is found by t.ID and t.Principal. A
// turn no longer running is left alone: orchestrator.ErrTurnFinished.
func (m *Memory) FinishTurn(_ context.Context, t orchestrator.TurnRecord) error {
	t = normalizeTurn(t) // the decision is copied as it is encoded
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, err := m.finishable(t)
	if err != nil {
		return err
	}
	m.end(mt, t, nil)
	return nil
}

// finishable returns the stored turn t ends: ErrNotFound when t.Principal has no such turn,
// ErrTurnFinished when it is no longer running. m.mu must be held.
func (m *Memory) finishable(t orchestrator.TurnRecord) (memTurn, error) {
	mt, ok := m.turns[t.ID]
	if !ok || mt.rec == nil || mt.principal != t.Principal {
		return memTurn{}, orchestrator.ErrNotFound
	}
	if !mt.running {
		return memTurn{}, fmt.Errorf("store: turn %s: %w", t.ID, orchestrator.ErrTurnFinished)
	}
	return mt, nil
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
	return m.abandon(func(orchestrator.TurnRecord) bool { return true }) // this instance created them all
}

// AbandonOrphans finishes, as failed, every turn still running whose owner's lease ended
// before now, and every one created before startedBefore whose owner has never held a lease
// (a turn of a process that kept none, or from before leases). It returns how many it ended.
// A turn that has finished in the meantime is left alone, so a second call finds nothing more.
func (m *Memory) AbandonOrphans(_ context.Context, now, startedBefore time.Time) (int, error) {
	now, cutoff := storedTime(now), storedTime(startedBefore)
	m.mu.Lock()
	defer m.mu.Unlock()
	lease, leased := m.leases[m.instance] // the owner of every turn held
	return m.abandon(func(t orchestrator.TurnRecord) bool {
		if !leased {
			return t.Created.Before(cutoff)
		}
		return lease.Before(now)
	})
}

// abandon fails the running turns orphaned says are orphans and closes each one's log as
// [abandonEvents] says. m.mu must be held.
func (m *Memory) abandon(orphaned func(t orchestrator.TurnRecord) bool) (int, error) {
	now := storedTime(time.Now())
	n := 0
	for id, mt := range m.turns {
		if !mt.running {
			continue
		}
		t, err := decodeTurn(mt.rec)
		if err != nil {
			return n, err
		}
		if !orphaned(t) {
			continue
		}
		var recs []memEvent
		for i, ev := range abandonEvents(id) {
			name, data, err := stream.Marshal(ev)
			if err != nil {
				return n, err
			}
			recs = append(recs, memEvent{id: mt.lastID + abandonIDGap + uint64(i), name: name, data: data})
		}
		mt.log = appendLog(mt.log[:len(mt.log):len(mt.log)], recs)
		mt.lastID = recs[len(recs)-1].id
		t.State, t.Outcome, t.Completed = orchestrator.TurnCompleted, stream.OutcomeFailed, now
		m.put(mt, t)
		n++
	}
	return n, nil
}

// Turn implements orchestrator.Store.
func (m *Memory) Turn(_ context.Context, p principal.Principal, id string) (orchestrator.TurnRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mt, ok := m.turns[id]; !ok || mt.rec == nil || mt.principal != p {
		return orchestrator.TurnRecord{}, orchestrator.ErrNotFound
	}
	t, _, err := m.get(id)
	return t, err
}

// TurnByKey implements orchestrator.KeyedTurns.
func (m *Memory) TurnByKey(_ context.Context, p principal.Principal, key string) (orchestrator.TurnRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.keys[idemKey(p, key)]
	if !ok {
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
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.appendEvents(turnID, []stream.Record{rec}, 0)
	return err
}

// AppendEvents implements stream.BatchLogStore: all of recs or, when one id is taken or
// repeated, none.
func (m *Memory) AppendEvents(_ context.Context, turnID string, recs []stream.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.appendEvents(turnID, recs, 0)
	return err
}

// FinishTurnWithEvents implements orchestrator.EndStore: [Memory.FinishTurn] and
// [Memory.AppendEvents] at once, all of it or nothing.
func (m *Memory) FinishTurnWithEvents(_ context.Context, t orchestrator.TurnRecord, recs []stream.Record) error {
	t = normalizeTurn(t) // the decision is copied as it is encoded
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, err := m.finishable(t)
	if err != nil {
		return err
	}
	room, err := m.appendEvents(t.ID, recs, mt.end+endSize(t))
	if err != nil {
		return err
	}
	m.end(m.turns[t.ID], t, room) // as appendEvents left it
	return nil
}

// appendEvents adds recs to the turn's log, or nothing when an id is taken or repeated or an
// event does not encode. A log can be written for a turn the store does not hold (or no
// longer does); it is kept until the store holds the turn and forgets it.
//
// When it writes the log's first bytes it allocates room bytes more, returned empty, for the
// caller's record of the turn's end: one allocation rather than two for the usual turn, whose
// records are all stored with its end. m.mu must be held.
func (m *Memory) appendEvents(turnID string, recs []stream.Record, room int) ([]byte, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	mt := m.turns[turnID]
	if recs[0].ID > mt.lastID && increasingRecords(recs) {
		// The usual case, records after the log's last: appended to its bytes. The bytes
		// already written are never touched, so readers that hold them stay right, and a
		// failed append leaves the log as it was.
		log := mt.log
		if len(log) == 0 {
			size := room
			for _, rec := range recs {
				name, data, _ := rec.Marshal()
				size += eventSize(name, data)
			}
			log = make([]byte, 0, size)
		}
		for _, rec := range recs {
			name, data, err := rec.Marshal()
			if err != nil {
				return nil, err
			}
			log = appendEvent(log, rec.ID, name, data)
		}
		mt.log = log
		if room > 0 {
			mt.log = log[:len(log):len(log)] // appends must not run into the room given out
		}
		mt.lastID = recs[len(recs)-1].ID
		m.turns[turnID] = mt
		return log[len(log):], nil
	}
	encoded := make([]memEvent, len(recs))
	for i, rec := range recs {
		name, data, err := rec.Marshal()
		if err != nil {
			return nil, err
		}
		encoded[i] = memEvent{id: rec.ID, name: name, data: data}
	}
	log, err := decodeLog(mt.log, 0)
	if err != nil {
		return nil, err
	}
	batch := make(map[uint64]bool, len(encoded))
	for _, e := range encoded {
		_, found := slices.BinarySearchFunc(log, e.id, compareID)
		if found || batch[e.id] {
			return nil, fmt.Errorf("store: turn %s record %d: %w", turnID, e.id, stream.ErrRecordExists)
		}
		batch[e.id] = true
	}
	log = slices.Grow(log, len(encoded)) // once, not once per insert
	for _, e := range encoded {
		i, _ := slices.BinarySearchFunc(log, e.id, compareID)
		log = slices.Insert(log, i, e)
	}
	mt.log = appendLog(nil, log) // new bytes: readers may hold the old ones
	mt.lastID = log[len(log)-1].id
	m.turns[turnID] = mt
	return nil, nil
}

func compareID(e memEvent, id uint64) int { return cmp.Compare(e.id, id) }

// increasingRecords reports whether the ids of recs strictly increase: none repeats, none is
// out of order.
func increasingRecords(recs []stream.Record) bool {
	for i := 1; i < len(recs); i++ {
		if recs[i].ID <= recs[i-1].ID {
			return false
		}
	}
	return true
}

// Events implements stream.LogStore.
func (m *Memory) Events(_ context.Context, turnID string, after uint64) ([]stream.Record, error) {
	m.mu.Lock()
	log := m.turns[turnID].log
	m.mu.Unlock()
	// The bytes a log holds are never modified once written, so decoding runs unlocked.
	recs, err := decodeLog(log, after)
	if err != nil {
		return nil, fmt.Errorf("store: turn %s: %w", turnID, err)
	}
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
