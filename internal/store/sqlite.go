package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// SQLite is a store in one SQLite database file, the default for a single replica. Several
// processes may open the same file: writers queue on SQLite's lock for up to the busy timeout.
type SQLite struct {
	*sqlStore // the shared SQL implementation of every store method
}

var (
	_ orchestrator.Store      = (*SQLite)(nil)
	_ stream.LogStore         = (*SQLite)(nil)
	_ stream.BatchLogStore    = (*SQLite)(nil)
	_ orchestrator.KeyedTurns = (*SQLite)(nil)
)

// Every connection runs these. WAL lets lookups proceed while a write is in progress;
// synchronous=NORMAL is durable against a crash of the process, and a power loss can only
// lose the last commits, never corrupt the file. _time_format=sqlite writes timestamps in a
// form the driver parses back into time.Time.
const sqliteParams = "_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)" +
	"&_pragma=synchronous(NORMAL)&_time_format=sqlite"

// defaultBusyTimeout is the busy_timeout of sqliteParams: how long a write waits for a lock
// another process holds before it fails (and, for a turn's events and end, is retried).
const defaultBusyTimeout = 5 * time.Second

// OpenSQLite opens the database named by dsn, creating the file when it is missing, and
// migrates its schema. dsn is a file path or a "file:" URI, optionally with the driver's query
// parameters; ":memory:" gives a private database that lives as long as the store.
//
// Writes go through one connection, so they never contend with each other inside the process;
// lookups use a pool of read-only connections. The caller must call [SQLite.Close].
func OpenSQLite(ctx context.Context, dsn string, opts ...Option) (*SQLite, error) {
	if dsn == "" {
		return nil, errors.New("store: empty sqlite dsn")
	}
	o := buildOptions(opts)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	params := sqliteParams
	if o.busyTimeout != defaultBusyTimeout {
		params = strings.Replace(params, "busy_timeout(5000)", fmt.Sprintf("busy_timeout(%d)", o.busyTimeout.Milliseconds()), 1)
	}
	write, err := sql.Open("sqlite", dsn+sep+params+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// One writer: SQLite allows one write transaction at a time anyway, and queueing in the
	// pool is cheaper than spinning on SQLITE_BUSY. IMMEDIATE takes the write lock at BEGIN,
	// so a transaction never fails half-way when another process holds it.
	write.SetMaxOpenConns(1)
	if err := migrateSQLite(ctx, write); err != nil {
		write.Close()
		if cannotOpen(err) {
			return nil, fmt.Errorf("store: cannot open the SQLite file %s: does its folder exist, and may this user write there? %w", SQLiteFile(dsn), err)
		}
		return nil, err
	}
	read := write
	// Each connection to an in-memory database is a database of its own: share the writer.
	if !isSQLiteMemory(dsn) {
		if read, err = sql.Open("sqlite", dsn+sep+params+"&_query_only=1"); err != nil {
			write.Close()
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
		read.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	}
	db, err := newSQLStore(ctx, write, read, sqliteDialect, o.instance)
	if err != nil {
		write.Close()
		if read != write {
			read.Close()
		}
		return nil, err
	}
	if err := db.prepareWrites(ctx); err != nil {
		db.Close()
		return nil, err
	}
	group := newCommitter(write)
	if err := group.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.group = group
	return &SQLite{sqlStore: db}, nil
}

func isSQLiteMemory(dsn string) bool {
	return strings.Contains(dsn, ":memory:") || strings.Contains(dsn, "mode=memory")
}

// SQLiteFile returns the file a SQLite dsn (as [OpenSQLite] takes it) names, or "" for an
// in-memory database.
func SQLiteFile(dsn string) string {
	if isSQLiteMemory(dsn) {
		return ""
	}
	file, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	return file
}

// migrateSQLite brings the schema up to date in one IMMEDIATE transaction, so two processes
// opening a new file at once cannot both run the same migration.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback() // a no-op once committed
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if version > len(sqliteMigrations) {
		return fmt.Errorf("%w: version %d, this binary knows %d", ErrSchemaVersion, version, len(sqliteMigrations))
	}
	if version == len(sqliteMigrations) {
		return nil
	}
	for i, m := range sqliteMigrations[version:] {
		for _, stmt := range m {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("store: migration %d: %w", version+i+1, err)
			}
		}
	}
	// PRAGMA takes no placeholders; the value is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(sqliteMigrations))); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}
