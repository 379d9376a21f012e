package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// postgresDSNEnv is the variable holding the DSN of a PostgreSQL database the tests may create
// schemas in. Without it the PostgreSQL tests are skipped.
const postgresDSNEnv = "SWITCHBOARD_TEST_POSTGRES_DSN"

var schemaSeq atomic.Int64

// postgresSchema creates a schema of its own for one test, dropped afterwards, and returns a
// DSN whose connections use it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	dsn := skipWithoutPostgres(t)
	admin, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := fmt.Sprintf("storetest_%d_%d", time.Now().UnixNano(), schemaSeq.Add(1))
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		// t.Context is done by now.
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	// pgx passes unknown settings through as run-time parameters.
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}

// skipWithoutPostgres skips t unless a test database is configured, and returns its DSN.
func skipWithoutPostgres(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		t.Skipf("%s not set", postgresDSNEnv)
	}
	return dsn
}

func openPostgres(t testing.TB, dsn string) *Postgres {
	t.Helper()
	s, err := OpenPostgres(t.Context(), dsn)
	if err != nil {
		t.Fatalf("OpenPostgres() = %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
	})
	return s
}

func TestPostgres(t *testing.T) {
	skipWithoutPostgres(t)
	runStoreSuite(t, func(t *testing.T) testStore { return openPostgres(t, postgresSchema(t)) })
}

func TestPostgresReplicas(t *testing.T) {
	skipWithoutPostgres(t)
	runSharedSuite(t, func(t *testing.T) (testStore, testStore) {
		dsn := postgresSchema(t)
		return openPostgres(t, dsn), openPostgres(t, dsn)
	})
}

func TestPostgresLosingInsert(t *testing.T) {
	testLosingInsert(t, openPostgres(t, postgresSchema(t)).sqlStore)
}

func TestPostgresMigrations(t *testing.T) {
	dsn := postgresSchema(t)
	openPostgres(t, dsn)
	openPostgres(t, dsn) // already migrated: a no-op

	admin, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(t.Context(), "UPDATE schema_version SET version = 99"); err != nil {
		t.Fatalf("set version: %v", err)
	}
	if s, err := OpenPostgres(t.Context(), dsn); !errors.Is(err, ErrSchemaVersion) {
		if s != nil {
			s.Close()
		}
		t.Errorf("OpenPostgres(version 99) = %v, want %v", err, ErrSchemaVersion)
	}
}
