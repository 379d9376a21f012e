package store

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// closingRecords are the records a sweep appends to the log of a turn it abandons, whose last
// stored record is last: far past it, so that no id a live follower may have seen is reused.
func closingRecords(turnID string, last uint64) []stream.Record {
	return []stream.Record{
		{ID: last + abandonIDGap, Event: stream.Error{Message: abandonedMessage, IsFinal: true}},
		{ID: last + abandonIDGap + 1, Event: stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeFailed}},
	}
}

// testAbandonStale checks which turns a sweep finishes and what it leaves in their logs. The
// cutoff has a fraction of a second and some turns sit on whole seconds around it, because
// SQLite compares the stored text: "10:00:00+00:00" must order before "10:00:00.000500+00:00".
func testAbandonStale(t *testing.T, s testStore) {
	ctx := t.Context()
	cutoff := time.Date(2026, 11, 21, 10, 0, 0, 500_000, time.UTC)
	at := func(p principal.Principal, id string, c time.Time) orchestrator.TurnRecord {
		rec := turnRec(p, id, "ep-"+id, "")
		rec.Created = c
		return rec
	}
	withReply := at(alice, "old-with-events", cutoff.Add(-time.Hour))
	withReply.Reply = "partial answer" // as a turn that died while composing
	tests := []struct {
		name      string
		rec       orchestrator.TurnRecord
		finished  bool            // stored as completed before the sweep
		events    []stream.Record // already in the turn's log
		abandoned bool            // whether the sweep must finish it
		wantLog   []stream.Record // the log after the sweep
	}{
		{
			name: "running an hour before the cutoff, with events", rec: withReply,
			events:    sampleRecords()[:2],
			abandoned: true,
			wantLog:   append(sampleRecords()[:2:2], closingRecords("old-with-events", 2)...),
		},
		{
			name: "running, another principal, no events", rec: at(bob, "old-bob", cutoff.Add(-time.Minute)),
			abandoned: true,
			wantLog:   closingRecords("old-bob", 0),
		},
		{
			name: "running, on the whole second before the cutoff", rec: at(alice, "whole-second-before", cutoff.Truncate(time.Second)),
			abandoned: true,
			wantLog:   closingRecords("whole-second-before", 0),
		},
		{
			name: "running, a microsecond before the cutoff", rec: at(alice, "just-before", cutoff.Add(-time.Microsecond)),
			abandoned: true,
			wantLog:   closingRecords("just-before", 0),
		},
		{
			name: "running, at the cutoff", rec: at(alice, "at-cutoff", cutoff),
			events:  sampleRecords()[:1],
			wantLog: sampleRecords()[:1],
		},
		{
			name: "running, a microsecond after the cutoff", rec: at(alice, "just-after", cutoff.Add(time.Microsecond)),
			wantLog: []stream.Record{},
		},
		{
			name: "running, on the whole second after the cutoff", rec: at(alice, "whole-second-after", cutoff.Truncate(time.Second).Add(time.Second)),
			wantLog: []stream.Record{},
		},
		{
			name: "completed long before the cutoff", rec: at(alice, "old-completed", cutoff.Add(-time.Hour)),
			finished: true,
			events:   sampleRecords(),
			wantLog:  sampleRecords(),
		},
	}
	wantN := 0
	for _, tt := range tests {
		mustCreate(t, s, tt.rec)
		if tt.finished {
			if err := s.FinishTurn(ctx, finished(tt.rec)); err != nil {
				t.Fatalf("FinishTurn(%s) = %v", tt.rec.ID, err)
			}
		}
		for _, r := range tt.events {
			if err := s.AppendEvent(ctx, tt.rec.ID, r); err != nil {
				t.Fatalf("AppendEvent(%s, %d) = %v", tt.rec.ID, r.ID, err)
			}
		}
		if tt.abandoned {
			wantN++
		}
	}

	before := storedTime(time.Now())
	n, err := s.AbandonOrphans(ctx, time.Now(), cutoff)
	after := storedTime(time.Now())
	if err != nil || n != wantN {
		t.Fatalf("AbandonOrphans() = %d, %v; want %d, nil", n, err, wantN)
	}
	check := func(t *testing.T, rec orchestrator.TurnRecord, finishedBefore, abandoned bool, wantLog []stream.Record) {
		t.Helper()
		want := stored(rec)
		if finishedBefore {
			want = stored(finished(rec))
		}
		got, err := s.Turn(ctx, rec.Principal, rec.ID)
		if err != nil {
			t.Fatalf("Turn() = %v", err)
		}
		if abandoned {
			if got.Completed.Before(before) || got.Completed.After(after) {
				t.Errorf("Completed = %v, want between %v and %v", got.Completed, before, after)
			}
			want.State, want.Outcome, want.Completed = orchestrator.TurnCompleted, stream.OutcomeFailed, got.Completed
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Turn() mismatch (-want +got):\n%s", diff)
		}
		recs, err := s.Events(ctx, rec.ID, 0)
		if err != nil {
			t.Fatalf("Events() = %v", err)
		}
		if diff := cmp.Diff(wantLog, recs); diff != "" {
			t.Errorf("Events() mismatch (-want +got):\n%s", diff)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, tt.rec, tt.finished, tt.abandoned, tt.wantLog) })
	}

	// A second sweep finds nothing left to do and changes nothing.
	snapshot := map[string]orchestrator.TurnRecord{}
	for _, tt := range tests {
		got, err := s.Turn(ctx, tt.rec.Principal, tt.rec.ID)
		if err != nil {
			t.Fatalf("Turn(%s) = %v", tt.rec.ID, err)
		}
		snapshot[tt.rec.ID] = got
	}
	if n, err := s.AbandonOrphans(ctx, time.Now(), cutoff); err != nil || n != 0 {
		t.Fatalf("AbandonOrphans() again = %d, %v; want 0, nil", n, err)
	}
	for _, tt := range tests {
		got, err := s.Turn(ctx, tt.rec.Principal, tt.rec.ID)
		if err != nil {
			t.Fatalf("Turn(%s) = %v", tt.rec.ID, err)
		}
		if diff := cmp.Diff(snapshot[tt.rec.ID], got); diff != "" {
			t.Errorf("Turn(%s) after a second sweep mismatch (-first +second):\n%s", tt.rec.ID, diff)
		}
		recs, err := s.Events(ctx, tt.rec.ID, 0)
		if err != nil {
			t.Fatalf("Events(%s) = %v", tt.rec.ID, err)
		}
		if diff := cmp.Diff(tt.wantLog, recs); diff != "" {
			t.Errorf("Events(%s) after a second sweep mismatch (-want +got):\n%s", tt.rec.ID, diff)
		}
	}
}

// testConcurrentAbandon races sweeps through a and b (one store, or two replicas of one
// database) and FinishTurn calls against them: each stale turn is abandoned at most once, its
// log gains exactly one turn.completed when it is, and a turn FinishTurn ended first is left
// alone.
func testConcurrentAbandon(t *testing.T, a, b testStore) {
	ctx := t.Context()
	const turns, sweepers = 12, 4
	cutoff := created.Add(time.Hour)
	recs := make([]orchestrator.TurnRecord, turns)
	for i := range recs {
		recs[i] = turnRec(alice, fmt.Sprintf("t%d", i), fmt.Sprintf("e%d", i), "")
		mustCreate(t, a, recs[i])
	}

	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		counts   = make([]int, sweepers)
		errs     = make([]error, sweepers)
		finishes = make([]error, turns)
	)
	for i := range sweepers {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			<-start
			counts[i], errs[i] = s.AbandonOrphans(ctx, time.Now(), cutoff)
		})
	}
	// Every other turn ends normally while the sweeps run, as a slow live turn would.
	for i := 0; i < turns; i += 2 {
		wg.Go(func() {
			<-start
			finishes[i] = b.FinishTurn(ctx, finished(recs[i]))
		})
	}
	close(start)
	wg.Wait()

	total := 0
	for i := range sweepers {
		if errs[i] != nil {
			t.Fatalf("AbandonOrphans #%d = %v", i, errs[i])
		}
		total += counts[i]
	}
	for i, err := range finishes {
		if err != nil && !errors.Is(err, orchestrator.ErrTurnFinished) { // a sweep may win the race
			t.Fatalf("FinishTurn(t%d) = %v", i, err)
		}
	}
	closed := 0
	for _, rec := range recs {
		log, err := a.Events(ctx, rec.ID, 0)
		if err != nil {
			t.Fatalf("Events(%s) = %v", rec.ID, err)
		}
		want := []stream.Record{}
		if len(log) > 0 {
			closed++
			want = closingRecords(rec.ID, 0)
		}
		if diff := cmp.Diff(want, log); diff != "" {
			t.Errorf("Events(%s) mismatch (-want +got):\n%s", rec.ID, diff)
		}
		got, err := a.Turn(ctx, alice, rec.ID)
		if err != nil {
			t.Fatalf("Turn(%s) = %v", rec.ID, err)
		}
		if got.State != orchestrator.TurnCompleted {
			t.Errorf("Turn(%s).State = %q, want %q", rec.ID, got.State, orchestrator.TurnCompleted)
		}
		// A turn nobody finished must have been abandoned; one FinishTurn ended first must not.
		if len(log) == 0 && got.Outcome != stream.OutcomeDegraded {
			t.Errorf("Turn(%s) has no turn.completed record but outcome %q", rec.ID, got.Outcome)
		}
		// A FinishTurn that lost the race must have changed nothing.
		if len(log) > 0 && got.Outcome != stream.OutcomeFailed {
			t.Errorf("Turn(%s) was abandoned but has outcome %q: a late FinishTurn overwrote it", rec.ID, got.Outcome)
		}
	}
	if total != closed {
		t.Errorf("sweeps reported %d abandoned turns, but %d logs were closed", total, closed)
	}
	if total < turns/2 {
		t.Errorf("sweeps abandoned %d turns, want at least the %d nobody finished", total, turns/2)
	}
}

// testLateFinish: a turn a sweep abandoned keeps the sweep's outcome when its own process, not
// dead after all, finishes it late; FinishTurn says so with ErrTurnFinished. An unknown turn,
// or another principal's, is still ErrNotFound.
func testLateFinish(t *testing.T, s testStore) {
	ctx := t.Context()
	rec := turnRec(alice, "late", "ep-late", "")
	mustCreate(t, s, rec)
	if n, err := s.AbandonOrphans(ctx, time.Now(), created.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("AbandonOrphans() = %d, %v; want 1, nil", n, err)
	}
	abandoned, err := s.Turn(ctx, alice, rec.ID)
	if err != nil {
		t.Fatalf("Turn() = %v", err)
	}
	tests := []struct {
		name string
		rec  orchestrator.TurnRecord
		want error
	}{
		{"abandoned", finished(rec), orchestrator.ErrTurnFinished},
		{"another principal's", finished(turnRec(bob, "late", "ep-late", "")), orchestrator.ErrNotFound},
		{"unknown", finished(turnRec(alice, "nope", "ep-late", "")), orchestrator.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.FinishTurn(ctx, tt.rec); !errors.Is(err, tt.want) {
				t.Errorf("FinishTurn() = %v, want %v", err, tt.want)
			}
			got, err := s.Turn(ctx, alice, rec.ID)
			if err != nil {
				t.Fatalf("Turn() = %v", err)
			}
			if diff := cmp.Diff(abandoned, got); diff != "" {
				t.Errorf("Turn() after a late FinishTurn mismatch (-abandoned +got):\n%s", diff)
			}
		})
	}
}

// assertAbandoned fails unless turnID is failed and its log is want followed by the sweep's
// closing records.
func assertAbandoned(t *testing.T, s testStore, p principal.Principal, turnID string, want []stream.Record) {
	t.Helper()
	got, err := s.Turn(t.Context(), p, turnID)
	if err != nil {
		t.Fatalf("Turn(%s) = %v", turnID, err)
	}
	if got.State != orchestrator.TurnCompleted || got.Outcome != stream.OutcomeFailed || got.Completed.IsZero() {
		t.Errorf("Turn(%s) = %s, %s, completed %v; want completed, failed, set", turnID, got.State, got.Outcome, got.Completed)
	}
	last := uint64(0)
	if len(want) > 0 {
		last = want[len(want)-1].ID
	}
	assertLog(t, s, turnID, append(want[:len(want):len(want)], closingRecords(turnID, last)...))
}

func assertRunning(t *testing.T, s testStore, p principal.Principal, turnID string, want []stream.Record) {
	t.Helper()
	got, err := s.Turn(t.Context(), p, turnID)
	if err != nil {
		t.Fatalf("Turn(%s) = %v", turnID, err)
	}
	if got.State != orchestrator.TurnRunning {
		t.Errorf("Turn(%s).State = %s, want running", turnID, got.State)
	}
	assertLog(t, s, turnID, want)
}

func assertLog(t *testing.T, s testStore, turnID string, want []stream.Record) {
	t.Helper()
	got, err := s.Events(t.Context(), turnID, 0)
	if err != nil {
		t.Fatalf("Events(%s) = %v", turnID, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Events(%s) mismatch (-want +got):\n%s", turnID, diff)
	}
}

// testOwnTurns: an instance holding a lease keeps its turns however old they are; restarted
// under the same id it ends at once the turns it left running (AbandonOwned), and once its
// lease is released or lapses a sweep ends what it left.
func testOwnTurns(t *testing.T, s testStore) {
	ctx := t.Context()
	now := time.Now()
	if err := s.RenewLease(ctx, now.Add(time.Minute)); err != nil {
		t.Fatalf("RenewLease() = %v", err)
	}
	// Created long before any cutoff: only the lease protects them.
	for _, id := range []string{"own1", "own2"} {
		mustCreate(t, s, turnRec(alice, id, "ep-"+id, ""))
	}
	logged := sampleRecords()[:2]
	for _, r := range logged {
		if err := s.AppendEvent(ctx, "own1", r); err != nil {
			t.Fatalf("AppendEvent() = %v", err)
		}
	}
	if n, err := s.AbandonOrphans(ctx, now, now); err != nil || n != 0 {
		t.Fatalf("AbandonOrphans(lease held) = %d, %v; want 0, nil", n, err)
	}
	assertRunning(t, s, alice, "own1", logged)

	if n, err := s.AbandonOwned(ctx); err != nil || n != 2 {
		t.Fatalf("AbandonOwned() = %d, %v; want 2, nil", n, err)
	}
	assertAbandoned(t, s, alice, "own1", logged)
	assertAbandoned(t, s, alice, "own2", nil)
	if n, err := s.AbandonOwned(ctx); err != nil || n != 0 {
		t.Fatalf("AbandonOwned() again = %d, %v; want 0, nil", n, err)
	}

	// Released: the next sweep ends what is still running, whatever its age.
	mustCreate(t, s, turnRec(alice, "own3", "ep-own3", ""))
	if err := s.ReleaseLease(ctx); err != nil {
		t.Fatalf("ReleaseLease() = %v", err)
	}
	if n, err := s.AbandonOrphans(ctx, time.Now().Add(time.Millisecond), now.Add(-time.Hour*24*365*10)); err != nil || n != 1 {
		t.Fatalf("AbandonOrphans(lease released) = %d, %v; want 1, nil", n, err)
	}
	assertAbandoned(t, s, alice, "own3", nil)
}

// testLeases: two instances on one database. Each one's turns survive the other's sweeps
// while its lease holds, however old; once it lapses they end at the next sweep, and only
// they. A turn whose owner never held a lease ends by age.
func testLeases(t *testing.T, a, b testStore) {
	ctx := t.Context()
	if a.Instance() == b.Instance() {
		t.Fatalf("two stores share instance %q", a.Instance())
	}
	now := time.Now()
	for _, s := range []testStore{a, b} {
		if err := s.RenewLease(ctx, now.Add(15*time.Second)); err != nil {
			t.Fatalf("RenewLease() = %v", err)
		}
	}
	mustCreate(t, a, turnRec(alice, "ta", "ep-ta", ""))
	mustCreate(t, b, turnRec(bob, "tb", "ep-tb", ""))
	if n, err := b.AbandonOrphans(ctx, now, now); err != nil || n != 0 {
		t.Fatalf("AbandonOrphans(both alive) = %d, %v; want 0, nil", n, err)
	}

	// a stops renewing: its lease runs out.
	if err := a.RenewLease(ctx, now.Add(-time.Second)); err != nil {
		t.Fatalf("RenewLease() = %v", err)
	}
	if n, err := b.AbandonOrphans(ctx, now, now.Add(-time.Hour)); err != nil || n != 1 {
		t.Fatalf("AbandonOrphans(a lapsed) = %d, %v; want 1, nil", n, err)
	}
	assertAbandoned(t, b, alice, "ta", nil)
	assertRunning(t, a, bob, "tb", []stream.Record{})

	// b's restart under its own id ends tb; a's sweep would not have, b's lease holding.
	if n, err := a.AbandonOrphans(ctx, now, now.Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("AbandonOrphans(b alive) = %d, %v; want 0, nil", n, err)
	}
	if n, err := b.AbandonOwned(ctx); err != nil || n != 1 {
		t.Fatalf("b.AbandonOwned() = %d, %v; want 1, nil", n, err)
	}
	assertAbandoned(t, a, bob, "tb", nil)
}

// testFinishWithEvents: FinishTurnWithEvents stores a turn's end and its log's last records
// together, or nothing: not for a turn a sweep has failed, nor when an id is taken.
func testFinishWithEvents(t *testing.T, s testStore) {
	ctx := t.Context()
	es, ok := s.(orchestrator.EndStore)
	if !ok {
		t.Fatalf("%T is not an orchestrator.EndStore", s)
	}
	end := func(id string) []stream.Record {
		return []stream.Record{
			{ID: 2, Event: stream.ReplyDelta{Text: "done"}},
			{ID: 3, Event: stream.TurnCompleted{TurnID: id, Outcome: stream.OutcomeDegraded}},
		}
	}
	first := sampleRecords()[:1]

	// Running: both stored.
	ok1 := turnRec(alice, "end-ok", "ep-end-ok", "")
	mustCreate(t, s, ok1)
	if err := s.AppendEvent(ctx, ok1.ID, first[0]); err != nil {
		t.Fatal(err)
	}
	if err := es.FinishTurnWithEvents(ctx, finished(ok1), end(ok1.ID)); err != nil {
		t.Fatalf("FinishTurnWithEvents() = %v", err)
	}
	if got, err := s.Turn(ctx, alice, ok1.ID); err != nil || !cmp.Equal(stored(finished(ok1)), got) {
		t.Errorf("Turn() = %+v, %v; want it finished", got, err)
	}
	assertLog(t, s, ok1.ID, append(first[:1:1], end(ok1.ID)...))

	// Abandoned first: ErrTurnFinished, and the log keeps only the sweep's end.
	late := turnRec(alice, "end-late", "ep-end-late", "")
	mustCreate(t, s, late)
	if n, err := s.AbandonOwned(ctx); err != nil || n != 1 {
		t.Fatalf("AbandonOwned() = %d, %v; want 1, nil", n, err)
	}
	if err := es.FinishTurnWithEvents(ctx, finished(late), end(late.ID)); !errors.Is(err, orchestrator.ErrTurnFinished) {
		t.Errorf("FinishTurnWithEvents(abandoned) = %v, want %v", err, orchestrator.ErrTurnFinished)
	}
	assertAbandoned(t, s, alice, late.ID, nil)

	// An id already taken: ErrRecordExists, and the turn is still running.
	taken := turnRec(alice, "end-taken", "ep-end-taken", "")
	mustCreate(t, s, taken)
	if err := s.AppendEvent(ctx, taken.ID, stream.Record{ID: 3, Event: stream.ReplyDelta{Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := es.FinishTurnWithEvents(ctx, finished(taken), end(taken.ID)); !errors.Is(err, stream.ErrRecordExists) {
		t.Errorf("FinishTurnWithEvents(taken id) = %v, want %v", err, stream.ErrRecordExists)
	}
	assertRunning(t, s, alice, taken.ID, []stream.Record{{ID: 3, Event: stream.ReplyDelta{Text: "x"}}})
}
