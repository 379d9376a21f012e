package store

import (
	"errors"
	"fmt"
	"testing"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

func TestMemory(t *testing.T) {
	runStoreSuite(t, func(*testing.T) testStore { return NewMemory() })
}

// The memory store keeps a bounded number of episodes: the oldest go, with their turns, keys
// and logs, except one whose turn is still running, which its end must still find.
func TestMemoryForgetsTheOldestEpisodes(t *testing.T) {
	ctx := t.Context()
	const keep = 3
	m := NewMemory(WithMaxEpisodes(keep))
	ep := func(i int) orchestrator.TurnRecord {
		return turnRec(alice, fmt.Sprintf("t%d", i), fmt.Sprintf("e%d", i), fmt.Sprintf("k%d", i))
	}
	for i := range 8 {
		rec := mustCreate(t, m, ep(i))
		if err := m.AppendEvent(ctx, rec.ID, sampleRecords()[0]); err != nil {
			t.Fatalf("AppendEvent(%s) = %v", rec.ID, err)
		}
		if i == 1 {
			continue // e1 stays running
		}
		if err := m.FinishTurn(ctx, finished(rec)); err != nil {
			t.Fatalf("FinishTurn(%s) = %v", rec.ID, err)
		}
	}
	kept := map[int]bool{1: true, 6: true, 7: true} // e1 running, then the newest
	for i := range 8 {
		_, err := m.Turn(ctx, alice, fmt.Sprintf("t%d", i))
		recs, evErr := m.Events(ctx, fmt.Sprintf("t%d", i), 0)
		if evErr != nil {
			t.Fatalf("Events(t%d) = %v", i, evErr)
		}
		switch {
		case kept[i] && (err != nil || len(recs) != 1):
			t.Errorf("t%d: Turn() = %v, %d events; want kept with its event", i, err, len(recs))
		case !kept[i] && (!errors.Is(err, orchestrator.ErrNotFound) || len(recs) != 0):
			t.Errorf("t%d: Turn() = %v, %d events; want forgotten", i, err, len(recs))
		}
	}
	// A forgotten turn's idempotency key starts a new turn (and e1, still running, stays).
	if _, existing, err := m.CreateTurn(ctx, turnRec(alice, "t0-again", "e0-again", "k0")); err != nil || existing {
		t.Errorf("CreateTurn(key of a forgotten turn) = existing %v, %v; want a new turn", existing, err)
	}
	if err := m.FinishTurn(ctx, finished(ep(1))); err != nil {
		t.Errorf("FinishTurn(t1, kept while running) = %v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// e1, e7 and e0-again; only the first two have logged anything.
	logs := 0
	for _, mt := range m.turns {
		if len(mt.log) > 0 {
			logs++
		}
	}
	if len(m.episodes) != keep || len(m.order) != keep || len(m.turns) != keep || len(m.keys) != keep || logs != 2 {
		t.Errorf("%d episodes, %d ordered, %d turns, %d keys, %d logs; want %d, %d, %d, %d, 2",
			len(m.episodes), len(m.order), len(m.turns), len(m.keys), logs, keep, keep, keep, keep)
	}
}
