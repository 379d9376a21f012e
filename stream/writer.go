package stream

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A turn's records reach the store in batches: a commit costs far more than the rows in it
// (tens of microseconds on SQLite, about a millisecond on PostgreSQL), and a streamed reply
// publishes hundreds of deltas. A batch goes out batchDelay after its first record, or as soon
// as batchRecords are waiting, or at once on Flush, TurnCompleted or Hub.Close.
const (
	batchDelay   = 10 * time.Millisecond
	batchRecords = 64
)

// startWriter runs l's writeLoop in a goroutine of its own, which Close waits for. Once the
// hub is closed it runs it in the caller instead, so nothing is left running after Close and a
// turn still finishing keeps its records (it then stores synchronously, as writeLoop does not
// wait on a closed hub).
func (h *Hub) startWriter(l *TurnLog) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		l.writeLoop()
		return
	}
	h.writers.Add(1)
	h.mu.Unlock()
	go h.write(l)
}

// write is the writer goroutine of l.
func (h *Hub) write(l *TurnLog) {
	defer h.writers.Done()
	l.writeLoop()
}

// writeLoop drains the log's queue to the store, a batch at a time, and returns when the
// queue is empty: a writer exists only while records wait, so an idle or finished turn holds
// no goroutine. Publish starts the next one.
func (l *TurnLog) writeLoop() {
	for {
		l.waitForBatch()
		// Only cancellation could fail this, and Background is never cancelled.
		_ = l.writePending(context.Background())
		l.turn.mu.Lock()
		if len(l.pending) == 0 {
			l.writing = false
			l.turn.mu.Unlock()
			return
		}
		l.turn.mu.Unlock()
	}
}

// waitForBatch returns when the queued batch should go out: batchDelay after it began, or
// sooner once batchRecords wait, the queue is empty (the turn's end was stored by Flush), the
// turn is ending or the hub closes. A nudge can outlive its batch: "full" publishes that raced
// with the write that took them leave one behind, and it must not cut the next batch short.
func (l *TurnLog) waitForBatch() {
	timer := time.NewTimer(batchDelay)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return
		case <-l.hub.closing:
			return
		case <-l.kick:
			l.turn.mu.Lock()
			n, ending := len(l.pending), l.turn.closing
			l.turn.mu.Unlock()
			if n == 0 || n >= batchRecords || ending {
				return
			}
		}
	}
}

// nudge asks the writer to write now. A nudge nobody takes stays buffered and only makes the
// next batch go out early.
func (l *TurnLog) nudge() {
	select {
	case l.kick <- struct{}{}:
	default:
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
	ctx, cancel := context.WithTimeout(context.Background(), l.hub.opts.storeTimeout)
	defer cancel()
	return call(ctx)
}
