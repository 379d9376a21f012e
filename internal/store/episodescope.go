package store

// The episode-scope migration keys episodes by (principal, id) instead of id alone. Episode ids
// are chosen by clients (POST /v1/turns episode_id, an AG-UI threadId, an A2A contextId), so
// one namespace for everyone let the first user to take an id lock its owner out of it, and
// let anyone probe which ids others use. Afterwards two principals may hold the same episode
// id, each with a conversation of their own.
//
// Existing rows keep their owner: each episode keeps the principal stored with it, and each
// turn the one stored with it. A turn whose principal differs from its episode's (CreateTurn
// has always refused such a turn, but a database may predate that check) gets an episode of
// its own principal under the same id, rather than being lost or moved.
//
// turns.episode_id now refers to episodes by (principal, episode_id), and turns_episode leads
// with principal, so that reading one principal's episode never walks another's turns.

// postgresEpisodeScope rekeys in place: PostgreSQL can swap a primary key and a foreign key.
// The two constraint names are the ones PostgreSQL gave the first migration's constraints.
var postgresEpisodeScope = []string{
	`ALTER TABLE turns DROP CONSTRAINT turns_episode_id_fkey`,
	`ALTER TABLE episodes DROP CONSTRAINT episodes_pkey`,
	`ALTER TABLE episodes ADD PRIMARY KEY (principal, id)`,
	`INSERT INTO episodes (principal, id, created)
		SELECT principal, episode_id, MIN(created) FROM turns GROUP BY principal, episode_id
		ON CONFLICT DO NOTHING`,
	`ALTER TABLE turns ADD FOREIGN KEY (principal, episode_id) REFERENCES episodes (principal, id)`,
	`DROP INDEX turns_episode`,
	`CREATE INDEX turns_episode ON turns(principal, episode_id, seq)`,
}

// scopedTurnColumns are the columns of turns that sqliteEpisodeScope copies: every column the
// table has when the migration runs (a test checks so). A migration that adds a column to
// turns and runs before this one must add it here too.
const scopedTurnColumns = `seq, id, episode_id, principal, message, locale, location,
	idempotency_key, request_hash, state, outcome, reply, decision, created, completed, owner`

// sqliteEpisodeScope rebuilds both tables, since SQLite cannot change a primary or foreign key
// in place. The old tables are renamed first, which carries the foreign key from the old turns
// over to the old episodes and frees the names; the old tables go, with their indexes, once
// their rows are copied, and the indexes are made again on the new turns. seq values are
// copied, so every episode keeps its order and new turns number on after the last.
var sqliteEpisodeScope = []string{
	`ALTER TABLE turns RENAME TO turns_unscoped`,
	`ALTER TABLE episodes RENAME TO episodes_unscoped`,
	`CREATE TABLE episodes (
		principal TEXT NOT NULL,
		id        TEXT NOT NULL,
		created   TIMESTAMP NOT NULL,
		PRIMARY KEY (principal, id)
	)`,
	`CREATE TABLE turns (
		seq             INTEGER PRIMARY KEY,
		id              TEXT NOT NULL UNIQUE,
		episode_id      TEXT NOT NULL,
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
		completed       TIMESTAMP,
		owner           TEXT NOT NULL DEFAULT '',
		FOREIGN KEY (principal, episode_id) REFERENCES episodes (principal, id)
	)`,
	`INSERT INTO episodes (principal, id, created) SELECT principal, id, created FROM episodes_unscoped`,
	// SQLite needs the WHERE to parse an upsert's SELECT.
	`INSERT INTO episodes (principal, id, created)
		SELECT principal, episode_id, MIN(created) FROM turns_unscoped WHERE true GROUP BY principal, episode_id
		ON CONFLICT DO NOTHING`,
	`INSERT INTO turns (` + scopedTurnColumns + `) SELECT ` + scopedTurnColumns + ` FROM turns_unscoped`,
	`DROP TABLE turns_unscoped`,
	`DROP TABLE episodes_unscoped`,
	`CREATE INDEX turns_episode ON turns(principal, episode_id, seq)`,
	`CREATE UNIQUE INDEX turns_idempotency ON turns(principal, idempotency_key) WHERE idempotency_key <> ''`,
	runningIndex,
	`CREATE INDEX turns_running_owner ON turns(owner) WHERE state = 'running'`,
}
