package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
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

// The decision column holds what json.Marshal gives a decision, however its names read.
func TestEncodeDecisionIsJSONMarshal(t *testing.T) {
	for _, d := range []*orchestrator.Decision{
		{},
		{Invoked: []string{"shop", "rewards"}, IntentCount: 2, Cap: 3, CapBehaviour: "within"},
		{Invoked: []string{"a<b>&c", "\u2028é"}, Dropped: []string{"x"}, CapBehaviour: "over",
			Agents: []orchestrator.AgentOutcome{{Agent: "<shop>", Outcome: "ok", Latency: 1500 * time.Microsecond, Tools: []string{"t&1"}}}},
	} {
		got, err := encodeDecision(d)
		if err != nil {
			t.Fatalf("encodeDecision(%+v) = %v", d, err)
		}
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("encodeDecision(%+v) = %s, want %s", d, got, want)
		}
	}
	if got, err := encodeDecision(nil); got != nil || err != nil {
		t.Errorf("encodeDecision(nil) = %v, %v; want nil, nil", got, err)
	}
}
