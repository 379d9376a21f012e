package store

// Migrations are applied in order, each once and in one transaction. A database records how
// many it has run: SQLite in PRAGMA user_version, PostgreSQL in the schema_version table. A
// migration is a list of statements, run one at a time because drivers disagree on whether
// Exec takes several. Never edit a migration that has shipped: append a new one.
//
// Both dialects keep the same tables. turns.seq orders an episode's turns by insertion, which
// created cannot do on its own (two turns may share a timestamp). The partial unique index on
// (principal, idempotency_key) is what makes CreateTurn idempotent across connections and
// replicas. events has no foreign key to turns: the log store, like stream.MemoryLogStore,
// accepts a turn's events whether or not the turn row exists yet.

// runningIndex serves the periodic sweep for abandoned turns (AbandonOrphans): it holds only
// the turns still running, so the sweep stays cheap however many turns have finished.
const runningIndex = `CREATE INDEX turns_running ON turns(created) WHERE state = 'running'`

// leaseMigration gives each turn the instance (process) that runs it, and each instance a lease
// it renews while alive: a sweep ends the running turns of an instance whose lease has run out
// (AbandonOrphans), and a process restarting under its instance id ends its own at once
// (AbandonOwned). Turns from before it have no owner and end by age, as before. timestamp is
// the dialect's time type.
func leaseMigration(timestamp string) []string {
	return []string{
		`ALTER TABLE turns ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
		`CREATE TABLE instances (
			id          TEXT PRIMARY KEY,
			lease_until ` + timestamp + ` NOT NULL
		)`,
		`CREATE INDEX turns_running_owner ON turns(owner) WHERE state = 'running'`,
	}
}

var sqliteMigrations = [][]string{{
	`CREATE TABLE episodes (
		id        TEXT PRIMARY KEY,
		principal TEXT NOT NULL,
		created   TIMESTAMP NOT NULL
	)`,
	`CREATE TABLE turns (
		seq             INTEGER PRIMARY KEY,
		id              TEXT NOT NULL UNIQUE,
		episode_id      TEXT NOT NULL REFERENCES episodes(id),
		principal       TEXT NOT NULL,
		message         TEXT NOT NULL,
		locale          TEXT NOT NULL,
		location        TEXT NOT NULL,
		idempotency_key TEXT NOT NULL,
		request_hash    TEXT NOT NULL,
		state           TEXT NOT NULL,
		outcome         TEXT NOT NULL,
		reply           TEXT NOT NULL,
		decision        TEXT,
		created         TIMESTAMP NOT NULL,
		completed       TIMESTAMP
	)`,
	`CREATE INDEX turns_episode ON turns(episode_id, seq)`,
	`CREATE UNIQUE INDEX turns_idempotency ON turns(principal, idempotency_key) WHERE idempotency_key <> ''`,
	`CREATE TABLE events (
		turn_id TEXT NOT NULL,
		id      INTEGER NOT NULL,
		name    TEXT NOT NULL,
		data    TEXT NOT NULL,
		PRIMARY KEY (turn_id, id)
	) WITHOUT ROWID`,
}, {
	runningIndex,
}, leaseMigration("TIMESTAMP"), sqliteEpisodeScope, sqliteAuditMigration}

var postgresMigrations = [][]string{{
	`CREATE TABLE episodes (
		id        TEXT PRIMARY KEY,
		principal TEXT NOT NULL,
		created   TIMESTAMPTZ NOT NULL
	)`,
	`CREATE TABLE turns (
		seq             BIGINT GENERATED ALWAYS AS IDENTITY,
		id              TEXT PRIMARY KEY,
		episode_id      TEXT NOT NULL REFERENCES episodes(id),
		principal       TEXT NOT NULL,
		message         TEXT NOT NULL,
		locale          TEXT NOT NULL,
		location        TEXT NOT NULL,
		idempotency_key TEXT NOT NULL,
		request_hash    TEXT NOT NULL,
		state           TEXT NOT NULL,
		outcome         TEXT NOT NULL,
		reply           TEXT NOT NULL,
		decision        JSONB,
		created         TIMESTAMPTZ NOT NULL,
		completed       TIMESTAMPTZ
	)`,
	`CREATE INDEX turns_episode ON turns(episode_id, seq)`,
	`CREATE UNIQUE INDEX turns_idempotency ON turns(principal, idempotency_key) WHERE idempotency_key <> ''`,
	`CREATE TABLE events (
		turn_id TEXT NOT NULL,
		id      BIGINT NOT NULL,
		name    TEXT NOT NULL,
		data    TEXT NOT NULL,
		PRIMARY KEY (turn_id, id)
	)`,
}, {
	runningIndex,
}, leaseMigration("TIMESTAMPTZ"), notifyMigration, postgresEpisodeScope, postgresAuditMigration}
