package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testLosingInsert drives the path a concurrent duplicate takes after its lookup missed: the
// unique index refuses the turn, and the episode created for it must go with it. Racing
// goroutines reach this path only sometimes, so it is checked directly.
func testLosingInsert(t *testing.T, db *sqlStore) {
	ctx := t.Context()
	winner, _, err := db.CreateTurn(ctx, turnRec(alice, "t1", "e1", "k1"))
	if err != nil {
		t.Fatalf("createTurn() = %v", err)
	}
	inserted, err := db.insertTurn(ctx, normalizeTurn(turnRec(alice, "t2", "e2", "k1")))
	if err != nil || inserted {
		t.Fatalf("insertTurn(duplicate key) = %v, %v; want false, nil", inserted, err)
	}
	var episodes int
	if err := db.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM episodes WHERE id = 'e2'").Scan(&episodes); err != nil {
		t.Fatalf("count episodes: %v", err)
	}
	if episodes != 0 {
		t.Errorf("episodes e2 = %d, want 0: the losing insert left its episode behind", episodes)
	}
	got, existing, err := db.CreateTurn(ctx, turnRec(alice, "t3", "e3", "k1"))
	if err != nil || !existing {
		t.Fatalf("createTurn(duplicate key) = existing %v, %v; want true, nil", existing, err)
	}
	if diff := cmp.Diff(winner, got); diff != "" {
		t.Errorf("createTurn(duplicate key) mismatch (-want +got):\n%s", diff)
	}
}
