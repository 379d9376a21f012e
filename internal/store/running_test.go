package store

import (
	"path/filepath"
	"testing"
)

// testRunningTurns checks the count the running-turns limit reads, through two handles on one
// database as two replicas hold them: each sees the other's turns, never another principal's,
// and a finished turn no longer counts.
func testRunningTurns(t *testing.T, a, b *sqlStore) {
	ctx := t.Context()
	mustCreate(t, a, turnRec(alice, "t1", "e1", ""))
	mustCreate(t, b, turnRec(alice, "t2", "e2", ""))
	mustCreate(t, b, turnRec(bob, "t3", "e3", ""))
	for _, s := range []*sqlStore{a, b} {
		if n, err := s.RunningTurns(ctx, alice); err != nil || n != 2 {
			t.Errorf("RunningTurns(alice) = %d, %v; want 2", n, err)
		}
		if n, err := s.RunningTurns(ctx, bob); err != nil || n != 1 {
			t.Errorf("RunningTurns(bob) = %d, %v; want 1", n, err)
		}
		if n, err := s.RunningTurns(ctx, "carol"); err != nil || n != 0 {
			t.Errorf("RunningTurns(carol) = %d, %v; want 0", n, err)
		}
	}
	if err := a.FinishTurn(ctx, finished(turnRec(alice, "t2", "e2", ""))); err != nil {
		t.Fatalf("FinishTurn() = %v", err)
	}
	if n, err := b.RunningTurns(ctx, alice); err != nil || n != 1 {
		t.Errorf("RunningTurns(alice) after one finished = %d, %v; want 1", n, err)
	}
}

func TestSQLiteRunningTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	testRunningTurns(t, openSQLite(t, path).sqlStore, openSQLite(t, "file:"+path).sqlStore)
}

func TestPostgresRunningTurns(t *testing.T) {
	skipWithoutPostgres(t)
	dsn := postgresSchema(t)
	testRunningTurns(t, openPostgres(t, dsn).sqlStore, openPostgres(t, dsn).sqlStore)
}
