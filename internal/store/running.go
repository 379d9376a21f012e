package store

import (
	"context"
	"fmt"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
)

// qRunningTurns counts a principal's running turns for the running-turns limit. Running rows
// are few (the partial index turns_running holds only them), so the count stays cheap.
const qRunningTurns = `SELECT COUNT(*) FROM turns WHERE state = 'running' AND principal = ?`

var (
	_ orchestrator.RunningCounter = (*sqlStore)(nil)
	_ orchestrator.RunningCounter = (*Memory)(nil)
)

// RunningTurns implements orchestrator.RunningCounter: the count covers every process that
// shares the database, which is what makes the running-turns limit hold across replicas.
func (s *sqlStore) RunningTurns(ctx context.Context, p principal.Principal) (_ int, err error) {
	defer markUnavailable(&err)
	var n int
	if err := s.read.QueryRowContext(ctx, s.dialect(qRunningTurns), string(p)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count running turns: %w", err)
	}
	return n, nil
}

// RunningTurns implements orchestrator.RunningCounter. A turn stops counting when FinishTurn
// stores its end, before its turn.completed is published, so a client that waits for
// turn.completed and starts the next turn is never refused for the turn it just saw end. The
// store is bounded (WithMaxEpisodes), so the scan is too.
func (m *Memory) RunningTurns(_ context.Context, p principal.Principal) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, t := range m.turns {
		if t.running && t.principal == p {
			n++
		}
	}
	return n, nil
}
