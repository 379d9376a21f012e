package stream

import (
	"context"
	"fmt"
	"sync"
)

// TurnLog appends a turn's events to its log. It is the turn's [Sink]: each event gets the next
// id (1, 2, 3…), is written to the store and wakes the turn's followers. Events published after
// [TurnCompleted] are ignored: the log is closed.
type TurnLog struct {
	hub    *Hub
	turnID string
	turn   *liveTurn

	writeMu sync.Mutex // serialises Publish so ids and store order agree
	errMu   sync.Mutex
	err     error
}

var _ Sink = (*TurnLog)(nil)

// Open returns the writer of a turn's log, making the turn live in this process. Opening a
// turn that is already live returns a writer onto the same log. The turn id must be new to the
// store: ids restart at 1.
func (h *Hub) Open(turnID string) *TurnLog {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.turns[turnID]
	if t == nil {
		t = &liveTurn{wake: make(chan struct{})}
		h.turns[turnID] = t
	}
	if timer := h.timers[turnID]; timer != nil {
		timer.Stop()
		delete(h.timers, turnID)
	}
	return &TurnLog{hub: h, turnID: turnID, turn: t}
}

// Publish appends ev to the log. It blocks only for the store write (bounded by the hub's store
// timeout), never for followers. A store failure does not stop live followers; it is kept for
// [TurnLog.Err].
func (l *TurnLog) Publish(ev Event) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	t := l.turn
	t.mu.Lock()
	if t.completed {
		t.mu.Unlock()
		return
	}
	rec := Record{ID: uint64(len(t.recs)) + 1, Event: ev}
	t.mu.Unlock()

	// Persist first: a record a live follower has seen must also be replayable from the store.
	ctx, cancel := context.WithTimeout(context.Background(), l.hub.opts.storeTimeout)
	if err := l.hub.store.AppendEvent(ctx, l.turnID, rec); err != nil {
		l.setErr(fmt.Errorf("stream: persist turn %s record %d: %w", l.turnID, rec.ID, err))
	}
	cancel()

	t.mu.Lock()
	t.recs = append(t.recs, rec)
	if _, ok := ev.(TurnCompleted); ok {
		t.completed = true
	}
	close(t.wake)
	t.wake = make(chan struct{})
	t.mu.Unlock()
}

// Err returns the first store error met by Publish, or nil.
func (l *TurnLog) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

func (l *TurnLog) setErr(err error) {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if l.err == nil {
		l.err = err
	}
}
