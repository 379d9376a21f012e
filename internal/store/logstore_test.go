package store

import (
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
	"github.com/switchboard-ai/switchboard/stream/streamtest"
)

// TestLogStoreConformance runs the stream package's own contract for log stores, AppendEvents
// included, against every store here.
func TestLogStoreConformance(t *testing.T) {
	t.Run("Memory", func(t *testing.T) {
		streamtest.LogStoreSuite(t, func() stream.LogStore { return NewMemory() })
	})
	t.Run("SQLite", func(t *testing.T) {
		streamtest.LogStoreSuite(t, func() stream.LogStore {
			return openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
		})
	})
	t.Run("Postgres", func(t *testing.T) {
		skipWithoutPostgres(t)
		streamtest.LogStoreSuite(t, func() stream.LogStore { return openPostgres(t, postgresSchema(t)) })
	})
}
