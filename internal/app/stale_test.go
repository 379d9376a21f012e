package app

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

// A turn left running in the database by a process that died is failed when the app starts
// on that database: a follower of its log ends, and it can no longer be "running elsewhere".
func TestStartAbandonsTurnsOfADeadProcess(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	const alice principal.Principal = "alice"

	// The previous process: one turn started long ago, one just now (as on another replica).
	prev, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatalf("OpenSQLite() = %v", err)
	}
	now := time.Now().UTC()
	for _, tr := range []struct {
		id      string
		created time.Time
	}{{"turn_crashed", now.Add(-5 * time.Minute)}, {"turn_fresh", now}} {
		rec := orchestrator.TurnRecord{ID: tr.id, EpisodeID: "ep_" + tr.id, Principal: alice, Message: "hi",
			State: orchestrator.TurnRunning, Created: tr.created}
		if _, _, err := prev.CreateTurn(ctx, rec); err != nil {
			t.Fatalf("CreateTurn(%s) = %v", tr.id, err)
		}
		started := stream.Record{ID: 1, Event: stream.TurnStarted{TurnID: tr.id, EpisodeID: rec.EpisodeID}}
		if err := prev.AppendEvent(ctx, tr.id, started); err != nil {
			t.Fatalf("AppendEvent(%s) = %v", tr.id, err)
		}
	}
	if err := prev.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}

	cfg := config.Default()
	cfg.Store = config.Store{Driver: "sqlite", DSN: path}
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Turns.Deadline = time.Second // so turns older than 1s + staleGrace are stale
	var logs obsBuffer
	a, err := New(ctx, Options{Config: cfg, AgentsDir: "../../agents", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = a.Close()
		}
	})

	got, err := a.Service.Turn(ctx, alice, "turn_crashed")
	if err != nil {
		t.Fatalf("Turn(turn_crashed) = %v", err)
	}
	if got.State != orchestrator.TurnCompleted || got.Outcome != stream.OutcomeFailed || got.Completed.IsZero() {
		t.Errorf("Turn(turn_crashed) = state %q, outcome %q, completed %v; want completed, failed, set",
			got.State, got.Outcome, got.Completed)
	}
	if fresh, err := a.Service.Turn(ctx, alice, "turn_fresh"); err != nil || fresh.State != orchestrator.TurnRunning {
		t.Errorf("Turn(turn_fresh) = state %q, %v; want running, nil", fresh.State, err)
	}
	if line := logs.String(); !strings.Contains(line, "level=INFO") || !strings.Contains(line, "turns=1") {
		t.Errorf("log = %q, want an info line with turns=1", line)
	}

	followCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var recs []stream.Record
	for rec, err := range a.Hub.Follow(followCtx, "turn_crashed", 0) {
		if err != nil {
			t.Fatalf("Follow(turn_crashed) = %v; want it to end at turn.completed", err)
		}
		recs = append(recs, rec)
	}
	want := []stream.Record{
		{ID: 1, Event: stream.TurnStarted{TurnID: "turn_crashed", EpisodeID: "ep_turn_crashed"}},
		{ID: 2, Event: stream.TurnCompleted{TurnID: "turn_crashed", Outcome: stream.OutcomeFailed}},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("Follow(turn_crashed) mismatch (-want +got):\n%s", diff)
	}

	if err := a.Service.Cancel(ctx, alice, "turn_crashed"); !errors.Is(err, orchestrator.ErrTurnFinished) {
		t.Errorf("Cancel(turn_crashed) = %v, want %v (a finished turn)", err, orchestrator.ErrTurnFinished)
	}
	if err := a.Service.Cancel(ctx, alice, "turn_fresh"); !errors.Is(err, orchestrator.ErrRunningElsewhere) {
		t.Errorf("Cancel(turn_fresh) = %v, want %v", err, orchestrator.ErrRunningElsewhere)
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

// fakeAbandoner answers AbandonStale with fn and reports each cutoff on calls.
type fakeAbandoner struct {
	calls chan time.Time
	fn    func(ctx context.Context, call int) (int, error)
	n     int // calls so far; only the sweeper's goroutine (or the test before it) touches it
}

func (f *fakeAbandoner) AbandonStale(ctx context.Context, startedBefore time.Time) (int, error) {
	f.n++
	select {
	case f.calls <- startedBefore:
	default: // the test has seen enough
	}
	return f.fn(ctx, f.n)
}

func TestStaleSweepLogs(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		err     error
		want    string // in the log; "" for no log at all
		wantNot string
	}{
		{name: "nothing stale", n: 0},
		{name: "some abandoned", n: 3, want: "level=INFO", wantNot: "level=ERROR"},
		{name: "store error", err: errors.New("database is locked"), want: "level=ERROR", wantNot: "level=INFO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs obsBuffer
			f := &fakeAbandoner{calls: make(chan time.Time, 1), fn: func(context.Context, int) (int, error) { return tt.n, tt.err }}
			w := &staleSweeper{store: f, age: 2 * time.Minute, log: slog.New(slog.NewTextHandler(&logs, nil))}
			before := time.Now()
			w.sweep(t.Context())
			after := time.Now()
			if cutoff := <-f.calls; cutoff.Before(before.Add(-w.age)) || cutoff.After(after.Add(-w.age)) {
				t.Errorf("cutoff = %v, want now - %v", cutoff, w.age)
			}
			got := logs.String()
			if tt.want == "" && got != "" {
				t.Errorf("log = %q, want none", got)
			}
			if !strings.Contains(got, tt.want) || (tt.wantNot != "" && strings.Contains(got, tt.wantNot)) {
				t.Errorf("log = %q, want %q and not %q", got, tt.want, tt.wantNot)
			}
			if tt.n > 0 && !strings.Contains(got, "turns=3") {
				t.Errorf("log = %q, want turns=3", got)
			}
		})
	}
}

// The sweeper sweeps at start, then on every tick; stop interrupts a sweep in progress
// without logging it as a failure, and leaves no goroutine behind.
func TestStaleSweeperRepeatsAndStops(t *testing.T) {
	entered := make(chan struct{})
	f := &fakeAbandoner{calls: make(chan time.Time, 1), fn: func(ctx context.Context, call int) (int, error) {
		if call < 3 {
			return 0, nil
		}
		close(entered) // the third sweep hangs, as on a stuck database, until stopped
		<-ctx.Done()
		return 0, ctx.Err()
	}}
	var logs obsBuffer
	w := startStaleSweeper(t.Context(), f, time.Minute, time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)))
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
	if f.n != 3 { // read after stop: the goroutine has exited
		t.Errorf("sweeps = %d, want 3", f.n)
	}
	if got := logs.String(); got != "" {
		t.Errorf("log = %q, want none: an interrupted sweep is not a failure", got)
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
