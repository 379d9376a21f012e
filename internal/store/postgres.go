package store

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// Postgres is a store in a PostgreSQL database, shared by several replicas: any replica can
// read a turn, or replay its events, whichever replica ran it.
type Postgres struct {
	*sqlStore // the shared SQL implementation of every store method
	notify    *notifier
}

var (
	_ orchestrator.Store      = (*Postgres)(nil)
	_ stream.LogStore         = (*Postgres)(nil)
	_ stream.BatchLogStore    = (*Postgres)(nil)
	_ orchestrator.KeyedTurns = (*Postgres)(nil)
)

// postgresDriver is the database/sql name github.com/jackc/pgx/v5/stdlib registers.
const postgresDriver = "pgx"

// migrationLock is the advisory lock key replicas take while migrating, so that several
// starting together run each migration once. Any constant works; this one spells "swbd".
const migrationLock = 0x73776264

// OpenPostgres connects to the database named by dsn (a postgres:// URL or key=value
// string, as pgx accepts) and migrates its schema. The caller must call [Postgres.Close].
func OpenPostgres(ctx context.Context, dsn string, opts ...Option) (*Postgres, error) {
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
	s, err := newSQLStore(ctx, db, db, postgresDialect, buildOptions(opts).instance)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Postgres{sqlStore: s, notify: newNotifier(dsn)}, nil
}

// Close ends the store's listening connection, if it has one, and closes the database.
func (p *Postgres) Close() error {
	p.notify.close()
	return p.sqlStore.Close()
}

// migratePostgres brings the schema up to date in one transaction under an advisory lock.
// PostgreSQL's DDL is transactional, so a failed migration leaves nothing half-done.
func migratePostgres(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback() // a no-op once committed
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock("+fmt.Sprint(migrationLock)+")"); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	// CREATE TABLE IF NOT EXISTS needs the CREATE privilege even when the table exists, which
	// the application's role lacks where an owner role migrates (docs/operations.md): only a
	// new database gets the table created.
	var versioned bool
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&versioned); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if !versioned {
		if _, err := tx.ExecContext(ctx, "CREATE TABLE schema_version (version INTEGER NOT NULL)"); err != nil {
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
