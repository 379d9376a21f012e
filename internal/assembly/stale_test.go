package assembly

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/store"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// closing is what a sweep appends to the log of a turn it abandons whose last stored record is
// last: a plain-words error and turn.completed, far past last so that no id is reused.
func closing(turnID string, last uint64) []stream.Record {
	const gap = 1 << 32 // store.abandonIDGap
	return []stream.Record{
		{ID: last + gap, Event: stream.Error{Message: "Sorry, the server working on this answer stopped before it finished. Please ask again.", IsFinal: true}},
		{ID: last + gap + 1, Event: stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeFailed}},
	}
}

// Turns left running in the database by processes that died are failed when the app starts on
// that database: at once those of its own instance id (a previous run of this process), by age
// those of an owner that never held a lease; a live replica's turn is left alone. A follower of
// an ended turn's log ends on a plain-words error and turn.completed, and it can no longer be
// "running elsewhere".
func TestStartAbandonsTurnsOfADeadProcess(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	const alice principal.Principal = "alice"
	const self = "host-a/127.0.0.1:8080"

	now := time.Now().UTC()
	previous := []struct {
		id, instance string
		lease        time.Duration // renewed until now + lease; 0: never held one
		created      time.Time
	}{
		{"turn_mine", self, 15 * time.Second, now},                         // this process before kill -9
		{"turn_crashed", "never-leased", 0, now.Add(-5 * time.Minute)},     // from before leases
		{"turn_fresh", "never-leased-2", 0, now},                           // too young to judge by age
		{"turn_replica", "host-b/:8080", time.Minute, now.Add(-time.Hour)}, // a live replica's
	}
	for _, tr := range previous {
		prev, err := store.OpenSQLite(ctx, path, store.WithInstance(tr.instance))
		if err != nil {
			t.Fatalf("OpenSQLite() = %v", err)
		}
		if tr.lease > 0 {
			if err := prev.RenewLease(ctx, now.Add(tr.lease)); err != nil {
				t.Fatalf("RenewLease() = %v", err)
			}
		}
		rec := orchestrator.TurnRecord{ID: tr.id, EpisodeID: "ep_" + tr.id, Principal: alice, Message: "hi",
			State: orchestrator.TurnRunning, Created: tr.created}
		if _, _, err := prev.CreateTurn(ctx, rec); err != nil {
			t.Fatalf("CreateTurn(%s) = %v", tr.id, err)
		}
		started := stream.Record{ID: 1, Event: stream.TurnStarted{TurnID: tr.id, EpisodeID: rec.EpisodeID}}
		if err := prev.AppendEvent(ctx, tr.id, started); err != nil {
			t.Fatalf("AppendEvent(%s) = %v", tr.id, err)
		}
		if err := prev.Close(); err != nil {
			t.Fatalf("Close() = %v", err)
		}
	}

	cfg := config.Default()
	cfg.Store = config.Store{Driver: "sqlite", DSN: path}
	cfg.Instance.ID = self
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Turns.Deadline = time.Second // so unleased turns older than 1s + staleGrace are stale
	var logs obsBuffer
	a, err := New(ctx, Input{Config: &cfg, Agents: "../../demo", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = a.Close()
		}
	})

	for _, id := range []string{"turn_mine", "turn_crashed"} {
		got, err := a.Service.Turn(ctx, alice, id)
		if err != nil {
			t.Fatalf("Turn(%s) = %v", id, err)
		}
		if got.State != orchestrator.TurnCompleted || got.Outcome != stream.OutcomeFailed || got.Completed.IsZero() {
			t.Errorf("Turn(%s) = state %q, outcome %q, completed %v; want completed, failed, set",
				id, got.State, got.Outcome, got.Completed)
		}
		followCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var recs []stream.Record
		for rec, err := range a.Hub.Follow(followCtx, id, 0) {
			if err != nil {
				t.Fatalf("Follow(%s) = %v; want it to end at turn.completed", id, err)
			}
			recs = append(recs, rec)
		}
		cancel()
		want := append([]stream.Record{{ID: 1, Event: stream.TurnStarted{TurnID: id, EpisodeID: "ep_" + id}}}, closing(id, 1)...)
		if diff := cmp.Diff(want, recs); diff != "" {
			t.Errorf("Follow(%s) mismatch (-want +got):\n%s", id, diff)
		}
		if err := a.Service.Cancel(ctx, alice, id); !errors.Is(err, orchestrator.ErrTurnFinished) {
			t.Errorf("Cancel(%s) = %v, want %v (a finished turn)", id, err, orchestrator.ErrTurnFinished)
		}
	}
	for _, id := range []string{"turn_fresh", "turn_replica"} {
		if got, err := a.Service.Turn(ctx, alice, id); err != nil || got.State != orchestrator.TurnRunning {
			t.Errorf("Turn(%s) = state %q, %v; want running, nil", id, got.State, err)
		}
		if err := a.Service.Cancel(ctx, alice, id); !errors.Is(err, orchestrator.ErrRunningElsewhere) {
			t.Errorf("Cancel(%s) = %v, want %v", id, err, orchestrator.ErrRunningElsewhere)
		}
	}
	for _, want := range []string{"left running", "turns=1"} {
		if line := logs.String(); !strings.Contains(line, want) {
			t.Errorf("log = %q, want %q", line, want)
		}
	}

	waitStarted(t, a.sweeper)
	closed = true
	if err := a.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	assertStopped(t, a.sweeper)
}

func TestStaleAge(t *testing.T) {
	tests := []struct {
		deadline, want time.Duration
	}{
		{0, defaultDeadline + staleGrace},
		{-time.Second, defaultDeadline + staleGrace},
		{20 * time.Second, 20*time.Second + staleGrace},
	}
	for _, tt := range tests {
		if got := staleAge(tt.deadline); got != tt.want {
			t.Errorf("staleAge(%v) = %v, want %v", tt.deadline, got, tt.want)
		}
	}
}

// fakeRecoverer answers AbandonOrphans with fn and reports each call's times on calls, and
// counts the other calls. Only the sweeper's goroutine (or the test before or after it)
// touches it.
type fakeRecoverer struct {
	calls    chan [2]time.Time // now, startedBefore
	fn       func(ctx context.Context, call int) (int, error)
	ownErr   error // AbandonOwned fails with it, once
	n        int   // AbandonOrphans calls so far
	owned    int   // AbandonOwned calls
	leases   []time.Time
	released int
}

func (f *fakeRecoverer) AbandonOrphans(ctx context.Context, now, startedBefore time.Time) (int, error) {
	f.n++
	select {
	case f.calls <- [2]time.Time{now, startedBefore}:
	default: // the test has seen enough
	}
	return f.fn(ctx, f.n)
}

func (f *fakeRecoverer) AbandonOwned(context.Context) (int, error) {
	f.owned++
	if err := f.ownErr; err != nil {
		f.ownErr = nil
		return 0, err
	}
	return 2, nil
}

func (f *fakeRecoverer) RenewLease(_ context.Context, until time.Time) error {
	f.leases = append(f.leases, until)
	return nil
}

func (f *fakeRecoverer) ReleaseLease(context.Context) error {
	f.released++
	return nil
}

func TestStaleSweepLogs(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		err     error
		want    string // in the log; "" for none beyond the own-turns line
		wantNot string
	}{
		{name: "nothing stale", n: 0, wantNot: "stopped process"},
		{name: "some abandoned", n: 3, want: "turns=3", wantNot: "level=ERROR"},
		{name: "store error", err: errors.New("database is locked"), want: "level=ERROR", wantNot: "stopped process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs obsBuffer
			f := &fakeRecoverer{calls: make(chan [2]time.Time, 1), fn: func(context.Context, int) (int, error) { return tt.n, tt.err }}
			w := &staleSweeper{store: f, age: 2 * time.Minute, lease: 15 * time.Second, log: slog.New(slog.NewTextHandler(&logs, nil))}
			before := time.Now()
			w.sweep(t.Context())
			after := time.Now()
			got := <-f.calls
			if now, cutoff := got[0], got[1]; now.Before(before) || now.After(after) || !cutoff.Equal(now.Add(-w.age)) {
				t.Errorf("AbandonOrphans(now %v, cutoff %v), want now and now - %v", now, cutoff, w.age)
			}
			if len(f.leases) != 1 || !f.leases[0].Equal(got[0].Add(w.lease)) {
				t.Errorf("leases renewed until %v, want once until now + %v", f.leases, w.lease)
			}
			logged := logs.String()
			if !strings.Contains(logged, "previous run of this instance") || !strings.Contains(logged, "turns=2") {
				t.Errorf("log = %q, want the own turns ended (turns=2)", logged)
			}
			if !strings.Contains(logged, tt.want) || (tt.wantNot != "" && strings.Contains(logged, tt.wantNot)) {
				t.Errorf("log = %q, want %q and not %q", logged, tt.want, tt.wantNot)
			}
		})
	}
}

// Until AbandonOwned has once succeeded, each sweep retries it, and nothing else runs before
// it does: a lease renewed first would let this process's own leftovers look alive.
func TestStaleSweepRetriesOwnTurns(t *testing.T) {
	var logs obsBuffer
	f := &fakeRecoverer{calls: make(chan [2]time.Time, 2), ownErr: errors.New("database is locked"),
		fn: func(context.Context, int) (int, error) { return 0, nil }}
	w := &staleSweeper{store: f, age: time.Minute, lease: 15 * time.Second, log: slog.New(slog.NewTextHandler(&logs, nil))}
	w.sweep(t.Context())
	if f.owned != 1 || f.n != 0 || len(f.leases) != 0 {
		t.Errorf("after a failed AbandonOwned: %d owned, %d orphan sweeps, %d renewals; want 1, 0, 0", f.owned, f.n, len(f.leases))
	}
	w.sweep(t.Context())
	w.sweep(t.Context())
	if f.owned != 2 || f.n != 2 || len(f.leases) != 2 {
		t.Errorf("after two more sweeps: %d owned, %d orphan sweeps, %d renewals; want 2, 2, 2", f.owned, f.n, len(f.leases))
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("log = %q, want the failure logged", logs.String())
	}
}

// Every sweep, after renewing the lease, stores the turn ends this process could not store,
// and stop gives them a last chance: a turn whose end failed to store is not left running.
func TestStaleSweepSettlesTurnEnds(t *testing.T) {
	f := &fakeRecoverer{calls: make(chan [2]time.Time, 2), fn: func(context.Context, int) (int, error) { return 0, nil }}
	var settles []int // leases renewed at each call
	w := &staleSweeper{store: f, age: time.Minute, lease: 15 * time.Second, log: slog.New(slog.DiscardHandler),
		settle: func(context.Context) error { settles = append(settles, len(f.leases)); return nil },
		cancel: func() {}, done: make(chan struct{})}
	w.sweep(t.Context())
	close(w.done)
	if err := w.stop(); err != nil {
		t.Fatalf("stop() = %v", err)
	}
	if diff := cmp.Diff([]int{1, 1}, settles); diff != "" {
		t.Errorf("settle calls, by leases renewed before each (-want +got):\n%s", diff)
	}
}

// The sweeper sweeps at start, then on every tick; stop interrupts a sweep in progress
// without logging it as a failure, releases the lease and leaves no goroutine behind.
func TestStaleSweeperRepeatsAndStops(t *testing.T) {
	entered := make(chan struct{})
	f := &fakeRecoverer{calls: make(chan [2]time.Time, 1), fn: func(ctx context.Context, call int) (int, error) {
		if call < 3 {
			return 0, nil
		}
		close(entered) // the third sweep hangs, as on a stuck database, until stopped
		<-ctx.Done()
		return 0, ctx.Err()
	}}
	var logs obsBuffer
	w := startStaleSweeper(t.Context(), f, time.Minute, time.Millisecond, time.Second, slog.New(slog.NewTextHandler(&logs, nil)), nil)
	select {
	case <-f.calls: // the first sweep ran before start returned
	default:
		t.Fatal("startStaleSweeper returned before its first sweep")
	}
	<-entered // two more sweeps, on ticks
	waitStarted(t, w)
	if err := w.stop(); err != nil {
		t.Fatalf("stop() = %v", err)
	}
	if f.n != 3 || f.owned != 1 || len(f.leases) != 3 || f.released != 1 { // read after stop: the goroutine has exited
		t.Errorf("%d sweeps, %d own, %d renewals, %d releases; want 3, 1, 3, 1", f.n, f.owned, len(f.leases), f.released)
	}
	if got := logs.String(); strings.Contains(got, "level=ERROR") {
		t.Errorf("log = %q, want no error: an interrupted sweep is not a failure", got)
	}
	assertStopped(t, w)
}

// waitStarted fails unless w's background loop is running, or starts within a few seconds.
func waitStarted(t *testing.T, w *staleSweeper) {
	t.Helper()
	if w == nil {
		t.Fatal("no sweeper started")
	}
	select {
	case <-w.started:
	case <-time.After(5 * time.Second):
		t.Fatal("sweeper loop not running 5s after start")
	}
}

// assertStopped fails unless w's loop has returned: stop must wait for it, so after stop (or
// the app's Close) nothing of the sweeper is left running.
func assertStopped(t *testing.T, w *staleSweeper) {
	t.Helper()
	select {
	case <-w.done:
	default:
		t.Fatal("sweeper loop still running after stop")
	}
}
