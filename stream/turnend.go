package stream

import "context"

// Store returns the log store the hub writes turn logs to.
func (h *Hub) Store() LogStore { return h.store }

// PublishEnd publishes the turn's end, ev, as Publish does, except that the last batch of the
// log (every record not yet stored, held ones included, and ev's) is stored by commit rather than by the hub's
// store alone: commit receives the batch, in id order, and must store all of it in one
// transaction, with whatever else belongs to the turn's end (its stored row). This spares the
// turn's end a commit of its own.
//
// Followers are shown ev only once commit has returned nil. When commit fails, nothing of ev
// is shown, the log stays open with the batch queued for the store as before, and PublishEnd
// returns commit's error: the caller may publish other events and end the log with Publish.
// Events published by others while commit runs are ignored, as after any end.
func (l *TurnLog) PublishEnd(ev TurnCompleted, commit func(ctx context.Context, recs []Record) error) error {
	t := l.turn
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		return nil // already ended: like Publish, a no-op
	}
	t.closing = true
	t.mu.Unlock()

	l.sem <- struct{}{} // after the batch in flight, if any, so that batches commit in id order
	t.mu.Lock()
	enc := encodeEvent(ev)
	rec, frame := enc.record(uint64(len(t.recs)) + 1) // the commit and the frame share its JSON
	enc.release()
	held := len(l.held)
	var batch []Record
	if held == 0 {
		batch = append(l.pending, rec) // the queue's own room, usually enough: no copy
	} else {
		batch = append(append(l.held[:held:held], l.pending...), rec)
	}
	l.pending, l.held = nil, nil
	t.mu.Unlock()

	err := l.withTimeout(func(ctx context.Context) error { return commit(ctx, batch) })
	t.mu.Lock()
	if err != nil {
		l.held = batch[:held:held]
		l.pending = batch[held : len(batch)-1 : len(batch)-1]
		t.closing = false
	} else {
		t.appendFramed(rec, frame)
		t.completed = true
		t.broadcast()
	}
	t.mu.Unlock()
	if err == nil && held > 0 {
		l.Stored(rec.ID) // Err is nil again: the store has the whole log
	}
	<-l.sem
	t.mu.Lock()
	l.hurry() // the scheduled batch stores what is left now, or is cancelled if nothing is
	t.mu.Unlock()
	return err
}

// FlushHeld emits, scrubbed, the reply text the guard still holds back, as it does before
// turn.completed: for a caller that ends the log behind the guard itself ([TurnLog.PublishEnd]).
func (g *Guard) FlushHeld() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.flushTail()
}
