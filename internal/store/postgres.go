package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// Postgres is a store in a PostgreSQL database, shared by several replicas: any replica can
// read a turn, or replay its events, whichever replica ran it.
type Postgres struct {
	db *sqlStore
}

var (
	_ orchestrator.Store   = (*Postgres)(nil)
	_ stream.LogStore      = (*Postgres)(nil)
	_ stream.BatchLogStore = (*Postgres)(nil)
)

// postgresDriver is the database/sql name github.com/jackc/pgx/v5/stdlib registers.
const postgresDriver = "pgx"

// migrationLock is the advisory lock key replicas take while migrating, so that several
// starting together run each migration once. Any constant works; this one spells "swbd".
const migrationLock = 0x73776264

// OpenPostgres connects to the database named by dsn (a postgres:// URL or key=value
// string, as pgx accepts) and migrates its schema. The caller must call [Postgres.Close].
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	db, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(16)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect postgres: %w", err)
	}
	if err := migratePostgres(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	s, err := newSQLStore(ctx, db, db, postgresDialect)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Postgres{db: s}, nil
}

// migratePostgres brings the schema up to date in one transaction under an advisory lock.
// PostgreSQL's DDL is transactional, so a failed migration leaves nothing half-done.
func migratePostgres(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback() // a no-op once committed
	steps := []string{
		"SELECT pg_advisory_xact_lock(" + fmt.Sprint(migrationLock) + ")",
		"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	}
	for _, stmt := range steps {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
	}
	var version int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&version); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if version > len(postgresMigrations) {
		return fmt.Errorf("%w: version %d, this binary knows %d", ErrSchemaVersion, version, len(postgresMigrations))
	}
	if version == len(postgresMigrations) {
		return nil
	}
	for i, m := range postgresMigrations[version:] {
		for _, stmt := range m {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("store: migration %d: %w", version+i+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM schema_version"); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES ($1)", len(postgresMigrations)); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Close releases the connection pool. Calls made after Close fail.
func (s *Postgres) Close() error { return s.db.close() }

// CreateTurn implements orchestrator.Store, with [Memory.CreateTurn]'s semantics. The unique
// index on (principal, idempotency key) settles concurrent duplicates across replicas.
func (s *Postgres) CreateTurn(ctx context.Context, t orchestrator.TurnRecord) (orchestrator.TurnRecord, bool, error) {
	return s.db.createTurn(ctx, t)
}

// FinishTurn implements orchestrator.Store, with [Memory.FinishTurn]'s semantics.
func (s *Postgres) FinishTurn(ctx context.Context, t orchestrator.TurnRecord) error {
	return s.db.finishTurn(ctx, t)
}

// AbandonStale finishes the running turns created before startedBefore, with
// [Memory.AbandonStale]'s semantics. Each turn's update and its turn.completed record commit
// together; rows a concurrent FinishTurn has already ended are not touched.
func (s *Postgres) AbandonStale(ctx context.Context, startedBefore time.Time) (int, error) {
	return s.db.abandonStale(ctx, startedBefore)
}

// Turn implements orchestrator.Store.
func (s *Postgres) Turn(ctx context.Context, p principal.Principal, turnID string) (orchestrator.TurnRecord, error) {
	return s.db.turn(ctx, p, turnID)
}

// Episode implements orchestrator.Store.
func (s *Postgres) Episode(ctx context.Context, p principal.Principal, episodeID string) (orchestrator.Episode, error) {
	return s.db.episode(ctx, p, episodeID)
}

// RecentTurns implements orchestrator.Store.
func (s *Postgres) RecentTurns(ctx context.Context, p principal.Principal, episodeID string, n int) ([]orchestrator.TurnRecord, error) {
	return s.db.recentTurns(ctx, p, episodeID, n)
}

// AppendEvent implements stream.LogStore.
func (s *Postgres) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	return s.db.append(ctx, turnID, rec)
}

// AppendEvents implements stream.BatchLogStore: the records commit in one transaction, all
// or none.
func (s *Postgres) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	return s.db.appendBatch(ctx, turnID, recs)
}

// Events implements stream.LogStore.
func (s *Postgres) Events(ctx context.Context, turnID string, after uint64) ([]stream.Record, error) {
	return s.db.list(ctx, turnID, after)
}
