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

// The memory store does not count: it serves one process, whose own count is exact.
var _ orchestrator.RunningCounter = (*sqlStore)(nil)

// RunningTurns implements orchestrator.RunningCounter: the count covers every process that
// shares the database, which is what makes the running-turns limit hold across replicas.
func (s *sqlStore) RunningTurns(ctx context.Context, p principal.Principal) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, s.dialect(qRunningTurns), string(p)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count running turns: %w", err)
	}
	return n, nil
}
