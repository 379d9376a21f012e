package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// countingStore is a store that counts running turns for the running-turns limit.
type countingStore interface {
	testStore
	orchestrator.RunningCounter
}

// testRunningTurns checks the count the running-turns limit reads, through two handles on one
// database as two replicas hold them: each sees the other's turns, never another principal's,
// and a finished turn no longer counts.
func testRunningTurns(t *testing.T, a, b countingStore) {
	ctx := t.Context()
	mustCreate(t, a, turnRec(alice, "t1", "e1", ""))
	mustCreate(t, b, turnRec(alice, "t2", "e2", ""))
	mustCreate(t, b, turnRec(bob, "t3", "e3", ""))
	for _, s := range []countingStore{a, b} {
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

func TestMemoryRunningTurns(t *testing.T) {
	m := NewMemory()
	testRunningTurns(t, m, m)
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

// BenchmarkRunningTurns measures the count the running-turns limit adds to every turn start:
// one principal with 8 running turns among 2,000 finished ones (and other principals' turns).
func BenchmarkRunningTurns(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		benchmarkRunningTurns(b, s.sqlStore)
	})
	b.Run("postgres", func(b *testing.B) {
		benchmarkRunningTurns(b, openPostgres(b, postgresSchema(b)).sqlStore)
	})
}

func benchmarkRunningTurns(b *testing.B, s *sqlStore) {
	ctx := b.Context()
	for i := range 2000 {
		p := alice
		if i%2 == 1 {
			p = bob
		}
		rec := turnRec(p, fmt.Sprint("t", i), fmt.Sprint("e", i), "")
		if _, _, err := s.CreateTurn(ctx, rec); err != nil {
			b.Fatal(err)
		}
		if i >= 16 { // the first 16 stay running: 8 of alice's, 8 of bob's
			if err := s.FinishTurn(ctx, finished(rec)); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		if n, err := s.RunningTurns(ctx, alice); err != nil || n != 8 {
			b.Fatalf("RunningTurns() = %d, %v; want 8", n, err)
		}
	}
}
