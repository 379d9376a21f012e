package stream

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"time"
)

// TurnLog appends a turn's events to its log. It is the turn's [Sink]: each event gets the next
// id (1, 2, 3…), is appended to the turn's log in memory, where it wakes the turn's followers at
// once, and is queued for the store, which a background writer fills in batches (one
// transaction each when the store is a [BatchLogStore]). Events published after
// [TurnCompleted] are ignored: the log is closed.
//
// Followers in this process read memory, followers on other replicas read the store, so the
// store may lag memory by up to one batch while the turn runs. The end is different: publishing
// [TurnCompleted] first commits everything still queued, then the end itself, and only then
// shows it to followers here. Once any follower has seen the end, and once Publish of the end
// has returned, the whole log can be replayed from the store on any replica.
type TurnLog struct {
	hub    *Hub
	turnID string
	turn   *liveTurn

	// Guarded by turn.mu, so that queue order is id order.
	pending    []Record  // published, not yet handed to the store
	held       []Record  // refused by the store until retryUntil, and every record after them
	retryUntil time.Time // failed writes are retried until then
	writing    bool      // a batch is scheduled or being written (see [TurnLog.schedule])
	// pendingRoom is where the first queue starts, allocated with the log. It serves once:
	// a batch handed to the store may still be read while later records queue.
	pendingRoom [pendingRecords]Record
	roomUsed    bool
	timer       *time.Timer // runs fire when the scheduled batch is due

	sem chan struct{} // capacity 1: one batch at a time, so batches commit in id order

	errMu sync.Mutex
	err   error
}

var _ Sink = (*TurnLog)(nil)

// Open returns the writer of a turn's log, making the turn live in this process. Opening a
// turn that is already live returns its writer. The turn id must be new to the store: ids
// restart at 1.
func (h *Hub) Open(turnID string) *TurnLog {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.turns[turnID]
	if t == nil {
		t = &liveTurn{}
		t.writer = TurnLog{hub: h, turnID: turnID, turn: t, sem: make(chan struct{}, 1)}
		t.log = &t.writer
		h.turns[turnID] = t
	}
	if timer := h.timers[turnID]; timer != nil {
		timer.Stop()
		delete(h.timers, turnID)
	}
	return t.log
}

// Publish appends ev to the log and wakes followers. It does not wait for the store, except
// for [TurnCompleted]: that call returns once every record of the turn has been committed (or
// has failed until the log's retry deadline; see [TurnLog.Err]), each attempt bounded by the
// hub's store timeout. A store failure does not stop live followers.
func (l *TurnLog) Publish(ev Event) {
	t := l.turn
	enc := encodeEvent(ev) // outside the lock: encoding is the costly part
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		enc.release()
		return
	}
	rec, frame := enc.record(uint64(len(t.recs)) + 1)
	enc.release()
	switch {
	case l.pending != nil:
	case !l.roomUsed:
		l.pending, l.roomUsed = l.pendingRoom[:0], true
	default:
		l.pending = make([]Record, 0, pendingRecords) // not regrown on the second and third record
	}
	l.pending = append(l.pending, rec)
	if _, ok := ev.(TurnCompleted); ok {
		// Refuse later events now; show the end only once the store has the whole log.
		t.closing = true
		t.mu.Unlock()
		_ = l.Flush(context.Background()) // a failure is kept for Err
		t.mu.Lock()
		l.hurry() // the scheduled batch, if any, finds nothing left
		t.appendFramed(rec, frame)
		t.completed = true
		t.broadcast()
		t.mu.Unlock()
		return
	}
	t.appendFramed(rec, frame)
	t.broadcast()
	inline := false
	switch {
	case l.hub.isClosed():
		inline = true // nothing is scheduled after Close: the publisher stores its own records
	case !l.writing:
		l.writing = l.schedule(batchDelay)
		inline = !l.writing
	case len(l.pending) >= batchRecords:
		l.hurry()
	}
	t.mu.Unlock()
	if inline {
		// This call's record is stored when it returns, by this call or by the batch that
		// held sem before it. Only cancellation could fail it, and Background never ends.
		_ = l.writePending(context.Background())
	}
}

// pendingRecords is the room a log's queue for the store starts with: a turn's records until
// its end, or one batch's worth of a long reply's deltas, mostly fit.
const pendingRecords = 8

// Flush commits every record published so far that is not yet in the store, and returns the
// log's first store error ([TurnLog.Err]): nil means the store holds everything published
// before the call. It returns ctx's error if ctx ends while it waits for a batch in flight.
func (l *TurnLog) Flush(ctx context.Context) error {
	if err := l.writePending(ctx); err != nil {
		return err
	}
	return l.Err()
}

// Err returns the first store error met while storing the log, or nil: nil means the store
// holds every record written so far. A failed write is retried until the log's retry deadline
// ([TurnLog.RetryUntil]); the records it could not store by then are held ([TurnLog.Held]),
// visible to live followers but missing from replays until someone stores them.
func (l *TurnLog) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// RetryUntil makes the log retry failed store writes until t: the turn's deadline and a grace,
// past which its owner stops waiting for the store. The zero time (the default) retries
// nothing.
func (l *TurnLog) RetryUntil(t time.Time) {
	l.turn.mu.Lock()
	l.retryUntil = t
	l.turn.mu.Unlock()
}

// Held returns, in id order, the records the store refused until the retry deadline and every
// record published after them: once one is held the log writes nothing more, so that the store
// never holds a later record without the earlier ones. Whoever ends the turn stores them, and
// then calls [TurnLog.Stored].
func (l *TurnLog) Held() []Record {
	l.turn.mu.Lock()
	defer l.turn.mu.Unlock()
	return append(l.held[:0:0], l.held...)
}

// Stored tells the log that records up to id were stored by its caller: they are no longer
// held, and once none is, Err is nil again.
func (l *TurnLog) Stored(id uint64) {
	l.turn.mu.Lock()
	i := 0
	for i < len(l.held) && l.held[i].ID <= id {
		i++
	}
	l.held = l.held[i:]
	empty := len(l.held) == 0
	l.turn.mu.Unlock()
	if empty {
		l.errMu.Lock()
		l.err = nil
		l.errMu.Unlock()
	}
}

func (l *TurnLog) setErr(err error) {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// encodedEvent is an event encoded into a pooled buffer, waiting for its record id.
type encodedEvent struct {
	ev   Event
	name string
	e    *encoder // nil when the event could not be encoded
}

// encodeEvent encodes ev; call release once the record is made.
func encodeEvent(ev Event) encodedEvent {
	if ev == nil {
		return encodedEvent{}
	}
	e := encoders.Get().(*encoder)
	e.buf.Reset()
	if err := e.enc.Encode(ev); err != nil {
		encoders.Put(e)
		return encodedEvent{ev: ev, name: ev.Name()}
	}
	return encodedEvent{ev: ev, name: ev.Name(), e: e}
}

// record makes the record with id and its SSE frame in one allocation: the record's data is a
// slice of the frame, so the frame and the store share one copy of the JSON rather than each
// holding its own. An event that could not be encoded gets nil data and a nil frame, which its
// writer reports.
func (c encodedEvent) record(id uint64) (Record, []byte) {
	if c.e == nil {
		return Record{ID: id, Event: c.ev}, nil
	}
	data := bytes.TrimRight(c.e.buf.Bytes(), "\n")
	b := make([]byte, 0, len(data)+len(c.name)+32)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, "\ndata: "...)
	start := len(b)
	b = append(b, data...)
	end := len(b)
	b = append(b, "\nevent: "...)
	b = append(b, c.name...)
	b = append(b, "\n\n"...)
	return Record{ID: id, Event: c.ev, name: c.name, data: b[start:end:end]}, b
}

// release returns the encoder to its pool.
func (c encodedEvent) release() {
	if c.e != nil && c.e.buf.Cap() <= 64<<10 { // one huge reply must not pin its buffer forever
		encoders.Put(c.e)
	}
}
