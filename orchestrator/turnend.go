package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/stream"
)

// DefaultEndGrace is how long past its deadline a turn's end is retried while the store fails,
// unless ServiceConfig.EndGrace says otherwise: long enough for a database restart or a lock
// held for a maintenance statement, short enough that a user is not kept waiting for minutes.
const DefaultEndGrace = 30 * time.Second

// lostMargin is what a replay waits beyond the end of the retries: the last attempt may start
// just before it and take a store timeout, and its follower polls.
const lostMargin = 15 * time.Second

// LostAfter is how long a replay should wait for a turn's next stored record before it takes the
// turn's end for lost (stream.WithLostAfter), for turns with this deadline (zero: the default)
// and the default end grace: by then the turn's owner has stored its end or given up on it.
func LostAfter(deadline time.Duration) time.Duration {
	if deadline <= 0 {
		deadline = 60 * time.Second
	}
	return deadline + DefaultEndGrace + lostMargin
}

// Retries of a turn's end start at endRetryFirst and double up to endRetryMax.
const (
	endRetryFirst = 100 * time.Millisecond
	endRetryMax   = 2 * time.Second
)

// lateEndMessage tells the user why a turn that ran to its end still failed: a sweep took this
// process for dead (its lease lapsed) and failed the turn first.
const lateEndMessage = "Sorry, this answer was interrupted by a server problem and could not be saved. Please ask again."

// unsavedMessage tells the user why a turn that ran to its end failed: its end could not be
// stored before the retries ran out.
const unsavedMessage = "Sorry, this answer could not be saved because of a problem on our side, so it may be missing when you come back. Please ask again."

// unsavedEnd is a turn that ended in this process, for its clients, without its end (or all of
// its log) in the store; [Service.Settle] stores it.
type unsavedEnd struct {
	rec       TurnRecord // as it must be stored: completed, and failed unless rowStored
	log       *stream.TurnLog
	rowStored bool // the turn's row is stored; only held log records are missing
}

// endBy is when the retries of rec's end stop: its deadline and the end grace past its start.
func (s *Service) endBy(rec TurnRecord) time.Time {
	return rec.Created.Add(s.cfg.Deadline + s.cfg.EndGrace)
}

// end stores the turn's end and then shows it to followers, retrying while the store fails,
// until endBy. A client that sees an outcome can count on the store to keep it: ok is shown only
// once stored. When a sweep has failed the turn meanwhile (it took this process for dead), the
// turn ends failed, as stored. When the retries run out, the turn ends failed for its clients,
// with a plain-words error, and waits for [Service.Settle] to store it so. It returns the
// outcome the turn's followers were shown.
func (s *Service) end(ctx context.Context, out *stream.Guard, log *stream.TurnLog, rec TurnRecord) stream.Outcome {
	until := s.endBy(rec)
	wait := endRetryFirst
	for {
		err := s.storeEnd(ctx, out, log, rec, until)
		switch {
		case err == nil:
			return rec.Outcome
		case errors.Is(err, ErrTurnFinished) && s.storedByUs(ctx, rec):
			// An earlier attempt committed, and only its answer was lost: the end is stored.
			s.stopRunning(rec.ID)
			out.Publish(stream.TurnCompleted{TurnID: rec.ID, Outcome: rec.Outcome})
			return rec.Outcome
		case errors.Is(err, ErrTurnFinished):
			s.cfg.Logger.WarnContext(ctx, "turn was abandoned by a sweep before it finished", "turn_id", rec.ID)
			s.stopRunning(rec.ID)
			out.Publish(stream.Error{Message: lateEndMessage, IsFinal: true})
			out.Publish(stream.TurnCompleted{TurnID: rec.ID, Outcome: stream.OutcomeFailed})
			return stream.OutcomeFailed
		case errors.Is(err, errLogHeld) || time.Now().Add(wait).After(until):
			s.cfg.Logger.ErrorContext(ctx, "turn end not stored before its retries ran out; it ends failed", "turn_id", rec.ID, "err", err)
			s.giveUp(out, log, rec)
			return stream.OutcomeFailed
		}
		s.cfg.Logger.WarnContext(ctx, "store turn end; retrying", "turn_id", rec.ID, "err", err)
		timer := time.NewTimer(wait)
		<-timer.C // the turn's own context may be over: its end is stored regardless
		wait = min(2*wait, endRetryMax)
	}
}

// storedByUs reports whether the stored end of a turn found finished is rec's own, which an
// attempt whose commit succeeded but whose answer was lost (a connection cut at that moment)
// leaves behind, rather than a sweep's.
func (s *Service) storedByUs(ctx context.Context, rec TurnRecord) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	got, err := s.cfg.Store.Turn(ctx, rec.Principal, rec.ID)
	return err == nil && got.Outcome == rec.Outcome &&
		got.Completed.Truncate(time.Microsecond).Equal(rec.Completed.Truncate(time.Microsecond))
}

// errLogHeld means the turn's log gave up on the store (its retries ran out): no later attempt
// of this turn's end can succeed before Settle.
var errLogHeld = errors.New("orchestrator: turn log not stored")

// storeEnd makes one attempt at storing rec's end. With an [EndStore] that is also the hub's
// log store, the end and the log's unstored records go in one transaction and, once committed,
// to followers. Otherwise the log is flushed, the turn's row stored, and the end published,
// which stores its record (a failure of that last write leaves the record held, for Settle).
func (s *Service) storeEnd(ctx context.Context, out *stream.Guard, log *stream.TurnLog, rec TurnRecord, until time.Time) error {
	if es, ok := s.cfg.Store.(EndStore); ok && sameStore(s.cfg.Hub.Store(), s.cfg.Store) {
		out.FlushHeld() // what the guard holds back goes out before the end, as through Publish
		return log.PublishEnd(stream.TurnCompleted{TurnID: rec.ID, Outcome: rec.Outcome}, func(ctx context.Context, recs []stream.Record) error {
			if err := es.FinishTurnWithEvents(ctx, rec, recs); err != nil {
				return err
			}
			s.stopRunning(rec.ID)
			return nil
		})
	}
	// Events before the row: a stored outcome must come with the log the client saw.
	flushCtx, cancel := context.WithDeadline(context.WithoutCancel(ctx), until)
	err := log.Flush(flushCtx)
	cancel()
	if err != nil {
		if log.Err() != nil {
			return fmt.Errorf("%w: %w", errLogHeld, err)
		}
		return err
	}
	storeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	err = s.cfg.Store.FinishTurn(storeCtx, rec)
	cancel()
	if err != nil {
		return err
	}
	s.stopRunning(rec.ID)
	out.Publish(stream.TurnCompleted{TurnID: rec.ID, Outcome: rec.Outcome})
	if log.Err() != nil {
		s.mu.Lock()
		s.unsaved[rec.ID] = &unsavedEnd{rec: rec, log: log, rowStored: true}
		s.mu.Unlock()
	}
	return nil
}

// storeTimeout bounds one store call of a turn's end.
const storeTimeout = 5 * time.Second

// giveUp ends, for its clients, a turn whose end could not be stored: failed, after an error
// that says so. The store still shows the turn running; [Service.Settle] stores it as failed,
// with the records its log holds, and a sweep fails it if this process dies first. Either way
// the stored outcome agrees with what the clients saw.
func (s *Service) giveUp(out *stream.Guard, log *stream.TurnLog, rec TurnRecord) {
	rec.Outcome, rec.Completed = stream.OutcomeFailed, time.Now().UTC()
	s.mu.Lock()
	delete(s.run, rec.ID)
	s.unsaved[rec.ID] = &unsavedEnd{rec: rec, log: log}
	s.mu.Unlock()
	out.Publish(stream.Error{Message: unsavedMessage, IsFinal: true})
	out.Publish(stream.TurnCompleted{TurnID: rec.ID, Outcome: stream.OutcomeFailed})
}

// Settle stores the ends of the turns that ended in this process without them: their rows as
// their clients saw them end, with the log records the store refused. Call it on every
// heartbeat; a turn it cannot store yet is tried again next time. It returns the first error
// met, or nil when nothing is left unsaved.
func (s *Service) Settle(ctx context.Context) error {
	s.settleMu.Lock()
	defer s.settleMu.Unlock()
	s.mu.Lock()
	pending := make([]*unsavedEnd, 0, len(s.unsaved))
	for _, u := range s.unsaved {
		pending = append(pending, u)
	}
	s.mu.Unlock()
	var first error
	for _, u := range pending {
		err := s.settle(ctx, u)
		switch {
		case errors.Is(err, ErrTurnFinished):
			// A sweep failed it first, with its own closing records: failed, as shown.
			err = nil
		case err != nil:
			if first == nil {
				first = fmt.Errorf("orchestrator: store the end of turn %s: %w", u.rec.ID, err)
			}
			continue
		}
		s.mu.Lock()
		delete(s.unsaved, u.rec.ID)
		s.mu.Unlock()
		s.cfg.Logger.InfoContext(ctx, "stored the end of a turn after the store failed", "turn_id", u.rec.ID, "outcome", u.rec.Outcome)
	}
	return first
}

// Unsaved returns how many turns ended in this process without their end in the store.
func (s *Service) Unsaved() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.unsaved)
}

// settle stores one unsaved end, under settleMu.
func (s *Service) settle(ctx context.Context, u *unsavedEnd) error {
	recs := u.log.Held()
	if es, ok := s.cfg.Store.(EndStore); ok && !u.rowStored && sameStore(s.cfg.Hub.Store(), s.cfg.Store) {
		err := es.FinishTurnWithEvents(ctx, u.rec, recs)
		if errors.Is(err, stream.ErrRecordExists) {
			// A write that failed for this process may have committed after all.
			if recs, err = s.unstored(ctx, u.rec.ID, recs); err == nil {
				err = es.FinishTurnWithEvents(ctx, u.rec, recs)
			}
		}
		if err == nil && len(recs) > 0 {
			u.log.Stored(recs[len(recs)-1].ID)
		}
		return err
	}
	if !u.rowStored {
		if err := s.cfg.Store.FinishTurn(ctx, u.rec); err != nil {
			return err
		}
		u.rowStored = true
	}
	recs, err := s.unstored(ctx, u.rec.ID, recs)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := s.cfg.Hub.Store().AppendEvent(ctx, u.rec.ID, rec); err != nil {
			return err
		}
		u.log.Stored(rec.ID)
	}
	return nil
}

// unstored returns the records of recs (in id order) that the store does not have.
func (s *Service) unstored(ctx context.Context, turnID string, recs []stream.Record) ([]stream.Record, error) {
	if len(recs) == 0 {
		return recs, nil
	}
	have, err := s.cfg.Hub.Store().Events(ctx, turnID, recs[0].ID-1)
	if err != nil {
		return nil, err
	}
	stored := make(map[uint64]bool, len(have))
	for _, r := range have {
		stored[r.ID] = true
	}
	out := recs[:0:0]
	for _, r := range recs {
		if !stored[r.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}
