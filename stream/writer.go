package stream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/internal/gostack"
)

// A turn's records reach the store in batches: a commit costs far more than the rows in it
// (tens of microseconds on SQLite, about a millisecond on PostgreSQL), and a streamed reply
// publishes hundreds of deltas. A batch goes out batchDelay after its first record, or as soon
// as batchRecords are waiting, or at once on Flush, TurnCompleted or Hub.Close.
const (
	batchDelay   = 10 * time.Millisecond
	batchRecords = 64
)

// A log's batches are written by a timer's function, not by a goroutine of its own: a turn
// that ends within batchDelay (most do: the end stores whatever is queued) never starts one,
// and a long reply runs one short-lived goroutine per batch. writing is true from the
// timer's arming until the queue is found empty, and the hub counts that time among its
// writers, so that Close can fire pending batches at once and wait for them.

// schedule arms the log's next batch to go out after d. It returns false once the hub is
// closed: the caller then stores the queue itself, so that nothing is left running after
// Close. turn.mu must be held.
func (l *TurnLog) schedule(d time.Duration) bool {
	if !l.hub.addWriter(l) {
		return false
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.fire)
	} else {
		l.timer.Reset(d)
	}
	return true
}

// fire stores the queued batch when its time comes, then schedules the next one if records
// arrived meanwhile: at once if a full batch waits or the turn is ending. Once the hub is
// closed it stores what is left once more and stops: records published after Close are
// stored by their publishers, so a batch that re-armed itself would run for as long as its
// turn published faster than the store writes, and hold Close up all that time.
func (l *TurnLog) fire() {
	// Each batch runs on a goroutine of its own (its timer's), and storing it reaches about
	// 32 KiB of stack in SQLite when it leads a group commit. A stream's writer is left
	// alone: an idle stream would hold the larger stack for as long as it stays open.
	gostack.To32K(len(l.turnID))
	_ = l.writePending(context.Background())
	l.turn.mu.Lock()
	defer l.turn.mu.Unlock()
	closed := l.hub.isClosed()
	if len(l.pending) > 0 && closed {
		// What is queued now was published before Close, or after it by a publisher that
		// stores it too: once more is enough. What is queued after that, publishers store.
		l.turn.mu.Unlock()
		_ = l.writePending(context.Background())
		l.turn.mu.Lock()
	}
	if len(l.pending) == 0 || closed {
		l.writing = false
		l.hub.doneWriter(l)
		return
	}
	d := batchDelay
	if len(l.pending) >= batchRecords || l.turn.closing {
		d = 0
	}
	l.timer.Reset(d) // still counted among the hub's writers
}

// hurry makes a scheduled batch go out now rather than at its deadline, or cancels it when
// the queue is empty (the turn's end stored it). A batch being written is left alone: fire
// looks at the queue again when it is done. turn.mu must be held.
func (l *TurnLog) hurry() {
	if !l.writing || l.timer == nil || !l.timer.Stop() {
		return
	}
	if len(l.pending) == 0 {
		l.writing = false
		l.hub.doneWriter(l)
		return
	}
	l.timer.Reset(0)
}

// addWriter counts l's scheduled batch among the hub's writers, unless the hub is closed.
func (h *Hub) addWriter(l *TurnLog) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.writing[l] = struct{}{}
	h.writers.Add(1)
	return true
}

// doneWriter ends the count addWriter started for l.
func (h *Hub) doneWriter(l *TurnLog) {
	h.mu.Lock()
	delete(h.writing, l)
	h.mu.Unlock()
	h.writers.Done()
}

// isClosed reports whether Close has begun.
func (h *Hub) isClosed() bool {
	select {
	case <-h.closing:
		return true
	default:
		return false
	}
}

// writePending stores every queued record as one batch. Batches are taken and written under
// sem, so they commit in the order their records were published. Once the log holds records
// the store refused (see [TurnLog.Held]), later ones join them unwritten: a store that skipped
// ids would make replays from it skip them too.
func (l *TurnLog) writePending(ctx context.Context) error {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-l.sem }()
	l.turn.mu.Lock()
	batch := l.pending
	l.pending = nil
	if len(l.held) > 0 {
		l.held = append(l.held, batch...)
		batch = nil
	}
	l.turn.mu.Unlock()
	if len(batch) > 0 {
		l.store(batch)
	}
	return nil
}

// Retries of a failed store write start at retryFirst and double up to retryMax: a database
// restarting answers again within seconds, and a log that waits does not hammer it meanwhile.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = time.Second
)

// store commits one batch, in one call when the store is a [BatchLogStore]; each call is
// bounded by the hub's store timeout. A failed write is tried again until the log's retry
// deadline ([TurnLog.RetryUntil]) or the hub's Close; then the batch is held (and the error kept
// for Err), not dropped: its records are already live, and whoever ends the turn stores them.
func (l *TurnLog) store(batch []Record) {
	wait := retryFirst
	for attempt := 0; ; attempt++ {
		rest, err := l.storeOnce(batch, attempt > 0)
		if err == nil {
			return
		}
		batch = rest
		l.turn.mu.Lock()
		until := l.retryUntil
		l.turn.mu.Unlock()
		if time.Now().Add(wait).After(until) || !l.pause(wait) {
			l.turn.mu.Lock()
			l.held = append(batch, l.held...)
			l.turn.mu.Unlock()
			l.setErr(err)
			return
		}
		wait = min(2*wait, retryMax)
	}
}

// pause waits d, or less when the hub closes (false): then nobody waits for a retry.
func (l *TurnLog) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-l.hub.closing:
		return false
	}
}

// storeOnce tries batch once and returns what is still to store. A retry that finds a record
// already there takes it as stored: the earlier attempt committed, and only its answer was lost.
func (l *TurnLog) storeOnce(batch []Record, retry bool) ([]Record, error) {
	if bs, ok := l.hub.store.(BatchLogStore); ok && len(batch) > 1 {
		err := l.withTimeout(func(ctx context.Context) error { return bs.AppendEvents(ctx, l.turnID, batch) })
		if err == nil || retry && errors.Is(err, ErrRecordExists) {
			return nil, nil
		}
		return batch, fmt.Errorf("stream: persist turn %s records %d-%d: %w",
			l.turnID, batch[0].ID, batch[len(batch)-1].ID, err)
	}
	for i, rec := range batch {
		err := l.withTimeout(func(ctx context.Context) error { return l.hub.store.AppendEvent(ctx, l.turnID, rec) })
		if err != nil && !(retry && errors.Is(err, ErrRecordExists)) {
			return batch[i:], fmt.Errorf("stream: persist turn %s record %d: %w", l.turnID, rec.ID, err)
		}
	}
	return nil, nil
}

func (l *TurnLog) withTimeout(call func(context.Context) error) error {
	if l.hub.opts.storeTimeout <= 0 {
		return call(context.Background())
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.hub.opts.storeTimeout)
	defer cancel()
	return call(ctx)
}
