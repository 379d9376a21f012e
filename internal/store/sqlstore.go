package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// sqlStore is what SQLite and Postgres share: both dialects accept the same statements once
// placeholders are rewritten, so the semantics live here once.
type sqlStore struct {
	write *sql.DB    // every write; for SQLite a single connection
	read  *sql.DB    // lookups; may be the same pool as write
	group *committer // SQLite's group committer, which alone uses write; nil on PostgreSQL

	q           statements
	dialect     dialect
	instance    string    // owner of the turns this store creates
	appendEvent *sql.Stmt // on write: a single streamed event
	events      *sql.Stmt // on read
	health      health    // whether writes reach the database, for Ready

	// On SQLite, the statements of every turn's writes prepared once on the writer's one
	// connection, by query (see prepareWrites); empty on PostgreSQL, whose driver keeps its own.
	prepared preparedStmts
	// On SQLite, insertRows[n] is the prepared insert of n events (insertEvents(n)), for n
	// from 2 to maxPreparedRows; nil on PostgreSQL.
	insertRows []*sql.Stmt
}

const turnColumns = `id, episode_id, principal, message, locale, location, idempotency_key,
	request_hash, state, outcome, reply, decision, created, completed`

const (
	qTurnByKey     = `SELECT ` + turnColumns + ` FROM turns WHERE principal = ? AND idempotency_key = ?`
	qTurn          = `SELECT ` + turnColumns + ` FROM turns WHERE id = ? AND principal = ?`
	qEpisode       = `SELECT ` + turnColumns + ` FROM turns WHERE episode_id = ? AND principal = ? ORDER BY seq`
	qRecentTurns   = `SELECT ` + turnColumns + ` FROM turns WHERE episode_id = ? AND principal = ? ORDER BY seq DESC LIMIT ?`
	qInsertEpisode = `INSERT INTO episodes (id, principal, created) VALUES (?, ?, ?) ON CONFLICT (principal, id) DO NOTHING`
	// The conflict target names the partial unique index, so a reused idempotency key is
	// skipped while any other constraint (a duplicate turn id) still fails loudly.
	qInsertTurn = `INSERT INTO turns (` + turnColumns + `, owner)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (principal, idempotency_key) WHERE idempotency_key <> '' DO NOTHING`
	// Only a turn still running: a late FinishTurn must not overwrite a sweep's outcome.
	qFinishTurn = `UPDATE turns SET state = ?, outcome = ?, reply = ?, decision = ?, completed = ?
		WHERE id = ? AND principal = ? AND state = 'running'`
	qAppendEvent = `INSERT INTO events (turn_id, id, name, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (turn_id, id) DO NOTHING`
	qEvents = `SELECT id, name, data FROM events WHERE turn_id = ? AND id > ? ORDER BY id`
	// The state literals match orchestrator.TurnRunning and TurnCompleted; 'running' is
	// written out so that the planner can use the partial indexes on running turns. Only rows
	// still running are touched, so a FinishTurn that commits first wins and is left alone.
	qAbandonOwned = `UPDATE turns SET state = 'completed', outcome = ?, completed = ?
		WHERE state = 'running' AND owner = ? RETURNING id`
	// An owner with a lapsed lease is dead (or cut off from the database, which for its turns
	// is the same); an owner that never held one is judged by its turns' age.
	qAbandonOrphans = `UPDATE turns SET state = 'completed', outcome = ?, completed = ?
		WHERE state = 'running' AND (
			owner IN (SELECT id FROM instances WHERE lease_until < ?)
			OR (created < ? AND owner NOT IN (SELECT id FROM instances)))
		RETURNING id`
	// Appends one event abandonIDGap (or, with 1, just) past the last of the turn's log, as
	// computed by the database. A record racing in from a writer still alive is kept (DO
	// NOTHING); that writer closes its own log.
	qAppendPastEnd = `INSERT INTO events (turn_id, id, name, data)
		SELECT ?, COALESCE(MAX(id), 0) + ?, ?, ? FROM events WHERE turn_id = ?
		ON CONFLICT (turn_id, id) DO NOTHING`
	qRenewLease = `INSERT INTO instances (id, lease_until) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`
	// Rows of instances gone for a day: their turns were swept long ago.
	qForgetInstances = `DELETE FROM instances WHERE lease_until < ?`
)

// dialect rewrites a statement written with ? placeholders for one database.
type dialect func(string) string

func sqliteDialect(q string) string { return q }

// postgresDialect numbers the placeholders: ? becomes $1, $2, ... None of our statements has
// a ? inside a literal.
func postgresDialect(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// statements are the rewritten queries; built once per store.
type statements struct {
	turnByKey, turn, episode, recentTurns, insertEpisode, insertTurn, finishTurn string
	abandonOwned, abandonOrphans, appendPastEnd, renewLease, forgetInstances     string
}

func newSQLStore(ctx context.Context, write, read *sql.DB, d dialect, instance string) (*sqlStore, error) {
	s := &sqlStore{write: write, read: read, dialect: d, instance: instance, q: statements{
		turnByKey: d(qTurnByKey), turn: d(qTurn), episode: d(qEpisode), recentTurns: d(qRecentTurns),
		insertEpisode: d(qInsertEpisode), insertTurn: d(qInsertTurn), finishTurn: d(qFinishTurn),
		abandonOwned: d(qAbandonOwned), abandonOrphans: d(qAbandonOrphans), appendPastEnd: d(qAppendPastEnd),
		renewLease: d(qRenewLease), forgetInstances: d(qForgetInstances),
	}}
	var err error
	if s.appendEvent, err = write.PrepareContext(ctx, d(qAppendEvent)); err != nil {
		return nil, fmt.Errorf("store: prepare append: %w", err)
	}
	if s.events, err = read.PrepareContext(ctx, d(qEvents)); err != nil {
		s.appendEvent.Close()
		return nil, fmt.Errorf("store: prepare events: %w", err)
	}
	return s, nil
}

// Close releases the statements and the pools (read is closed only when it is a pool of its
// own). Calls made after Close fail.
func (s *sqlStore) Close() error {
	var savepoints preparedStmts
	if s.group != nil {
		s.group.stop() // its writes use the statements closed below
		savepoints = s.group.savepoints
	}
	errs := []error{s.appendEvent.Close(), s.events.Close()}
	errs = append(errs, s.prepared.close()...)
	errs = append(errs, savepoints.close()...)
	errs = append(errs, s.write.Close())
	if s.read != s.write {
		errs = append(errs, s.read.Close())
	}
	return errors.Join(errs...)
}

// prepareWrites prepares the statements each turn writes (its episode, its row and end, its
// audit entries) on the writer (SQLite's single connection), before the committer takes it.
func (s *sqlStore) prepareWrites(ctx context.Context) (err error) {
	queries := []string{s.q.insertEpisode, s.q.insertTurn, s.q.finishTurn, s.dialect(qAppendAudit)}
	for n := 2; n <= maxPreparedRows; n++ {
		queries = append(queries, s.insertEvents(n))
	}
	if s.prepared, err = prepareStatements(ctx, s.write, queries...); err != nil {
		return err
	}
	s.insertRows = make([]*sql.Stmt, maxPreparedRows+1)
	for n := 2; n <= maxPreparedRows; n++ {
		s.insertRows[n] = s.prepared[s.insertEvents(n)]
	}
	return nil
}

// exec runs query in tx, through its prepared statement when there is one.
func (s *sqlStore) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	return s.prepared.exec(ctx, tx, query, args...)
}

// preparedStmts are prepared statements by their query: SQLite parses and plans a statement
// run by text on every call, which cost as much as running it.
type preparedStmts map[string]*sql.Stmt

// prepareStatements prepares queries on db, closing those it prepared when one fails.
func prepareStatements(ctx context.Context, db *sql.DB, queries ...string) (preparedStmts, error) {
	ss := preparedStmts{}
	for _, q := range queries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			ss.close()
			return nil, fmt.Errorf("store: prepare: %w", err)
		}
		ss[q] = st
	}
	return ss, nil
}

// exec runs query in tx, through its prepared statement when there is one and by text
// otherwise.
func (ss preparedStmts) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := ss[query]; st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// close closes every statement and returns their errors.
func (ss preparedStmts) close() []error {
	var errs []error
	for _, st := range ss {
		errs = append(errs, st.Close())
	}
	return errs
}

// inTx runs fn in a write transaction: on SQLite one shared with the writes of other turns
// (see committer), on PostgreSQL one of its own. fn's error rolls back fn's writes only.
func (s *sqlStore) inTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.writeTx(ctx, false, fn)
}

// writeTx is inTx; an urgent write goes ahead of the other writes queued (committer.do).
func (s *sqlStore) writeTx(ctx context.Context, urgent bool, fn func(ctx context.Context, tx *sql.Tx) error) (err error) {
	defer func() {
		markUnavailable(&err)
		s.health.wrote(err)
	}()
	if s.group != nil {
		return s.group.do(ctx, urgent, fn)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback() // a no-op once committed
	if err := fn(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// errNotInserted rolls back a CreateTurn whose idempotency key another turn took first.
var errNotInserted = errors.New("store: turn not inserted")

// CreateTurn implements orchestrator.Store, with [Memory.CreateTurn]'s semantics. The unique
// index on (principal, idempotency key) settles concurrent duplicates, across replicas too.
func (s *sqlStore) CreateTurn(ctx context.Context, t orchestrator.TurnRecord) (_ orchestrator.TurnRecord, _ bool, err error) {
	defer markUnavailable(&err)
	t = normalizeTurn(t)
	if t.IdempotencyKey != "" {
		// Most retries find their turn here, without taking the writer.
		got, err := s.turnByKey(ctx, t.Principal, t.IdempotencyKey)
		if err == nil {
			return got, true, nil
		}
		if !errors.Is(err, orchestrator.ErrNotFound) {
			return orchestrator.TurnRecord{}, false, err
		}
	}
	inserted, err := s.insertTurn(ctx, t)
	if err != nil {
		return orchestrator.TurnRecord{}, false, err
	}
	if !inserted {
		// A concurrent request with the same key committed first; its turn is the answer.
		got, err := s.turnByKey(ctx, t.Principal, t.IdempotencyKey)
		if err != nil {
			return orchestrator.TurnRecord{}, false, err
		}
		return got, true, nil
	}
	return t, false, nil
}

// insertTurn creates the principal's episode when needed and the turn, in one transaction. It
// reports false, and leaves nothing behind, when the unique index says the key is already taken.
// Episodes are keyed by (principal, id), so another principal's episode of the same id is
// neither joined nor refused: the turn starts or continues t.Principal's own.
func (s *sqlStore) insertTurn(ctx context.Context, t orchestrator.TurnRecord) (bool, error) {
	decision, err := encodeDecision(t.Decision)
	if err != nil {
		return false, err
	}
	// Urgent: the client waits on it for the turn's first event.
	err = s.writeTx(ctx, true, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q.insertEpisode, t.EpisodeID, string(t.Principal), t.Created); err != nil {
			return fmt.Errorf("store: create episode: %w", err)
		}
		res, err := s.exec(ctx, tx, s.q.insertTurn,
			t.ID, t.EpisodeID, string(t.Principal), t.Message, t.Locale, t.Location, t.IdempotencyKey,
			t.RequestHash, string(t.State), string(t.Outcome), t.Reply, decision, t.Created, nullTime(t.Completed), s.instance)
		if err != nil {
			return fmt.Errorf("store: create turn: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: create turn: %w", err)
		}
		if n == 0 {
			return errNotInserted // rolled back: an episode created for this attempt must not survive it
		}
		return nil
	})
	switch {
	case errors.Is(err, errNotInserted):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// FinishTurn implements orchestrator.Store, with [Memory.FinishTurn]'s semantics.
func (s *sqlStore) FinishTurn(ctx context.Context, t orchestrator.TurnRecord) error {
	t = normalizeTurn(t)
	decision, err := encodeDecision(t.Decision)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.finishTurn(ctx, tx, t, decision)
	})
}

// finishTurn stores a turn's end in tx; decision is the encoded t.Decision.
func (s *sqlStore) finishTurn(ctx context.Context, tx *sql.Tx, t orchestrator.TurnRecord, decision any) error {
	res, err := s.exec(ctx, tx, s.q.finishTurn, string(t.State), string(t.Outcome), t.Reply,
		decision, nullTime(t.Completed), t.ID, string(t.Principal))
	if err != nil {
		return fmt.Errorf("store: finish turn: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: finish turn: %w", err)
	}
	if n == 0 {
		// Not running, or not there at all: which one decides the error.
		if _, err := scanTurn(tx.QueryRowContext(ctx, s.q.turn, t.ID, string(t.Principal))); err != nil {
			return err
		}
		return fmt.Errorf("store: turn %s: %w", t.ID, orchestrator.ErrTurnFinished)
	}
	return nil
}

// Instance returns the owner id this store writes on the turns it creates.
func (s *sqlStore) Instance() string { return s.instance }

// RenewLease records that this store's instance is alive until until, as [Memory.RenewLease].
func (s *sqlStore) RenewLease(ctx context.Context, until time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q.renewLease, s.instance, storedTime(until)); err != nil {
			return fmt.Errorf("store: renew lease: %w", err)
		}
		return nil
	})
}

// ReleaseLease ends this instance's lease now, as [Memory.ReleaseLease].
func (s *sqlStore) ReleaseLease(ctx context.Context) error { return s.RenewLease(ctx, time.Now()) }

// AbandonOwned implements [Memory.AbandonOwned]'s semantics.
func (s *sqlStore) AbandonOwned(ctx context.Context) (int, error) {
	return s.abandon(ctx, s.q.abandonOwned, s.instance)
}

// AbandonOrphans implements [Memory.AbandonOrphans]'s semantics, and forgets instances whose
// lease ended a day before now.
func (s *sqlStore) AbandonOrphans(ctx context.Context, now, startedBefore time.Time) (int, error) {
	n, err := s.abandon(ctx, s.q.abandonOrphans, storedTime(now), storedTime(startedBefore))
	if err != nil {
		return n, err
	}
	return n, s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q.forgetInstances, storedTime(now.Add(-24*time.Hour))); err != nil {
			return fmt.Errorf("store: forget old instances: %w", err)
		}
		return nil
	})
}

// abandon runs an abandoning UPDATE (outcome and completion time, then args) and closes the
// log of each turn it changed with [abandonEvents], all in one transaction: a follower never
// sees a failed turn whose log stays open, nor the reverse.
func (s *sqlStore) abandon(ctx context.Context, q string, args ...any) (int, error) {
	args = append([]any{string(stream.OutcomeFailed), storedTime(time.Now())}, args...)
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ids, err := abandonedIDs(ctx, tx, q, args)
		if err != nil {
			return err
		}
		for _, id := range ids {
			for i, ev := range abandonEvents(id) {
				name, data, err := stream.Marshal(ev)
				if err != nil {
					return err
				}
				step := int64(abandonIDGap)
				if i > 0 {
					step = 1
				}
				if _, err := tx.ExecContext(ctx, s.q.appendPastEnd, id, step, name, string(data), id); err != nil {
					return fmt.Errorf("store: close log of abandoned turn %s: %w", id, err)
				}
			}
		}
		n = len(ids)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// abandonedIDs runs an abandoning UPDATE and returns the ids of the rows it changed.
func abandonedIDs(ctx context.Context, tx *sql.Tx, q string, args []any) ([]string, error) {
	// Both dialects compare times as stored: SQLite as text, which orders correctly because
	// every time is written in UTC in one format; PostgreSQL as timestamptz.
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: abandon turns: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: abandon turns: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: abandon turns: %w", err)
	}
	return ids, nil
}

// TurnByKey implements orchestrator.KeyedTurns.
func (s *sqlStore) TurnByKey(ctx context.Context, p principal.Principal, key string) (_ orchestrator.TurnRecord, err error) {
	if key == "" { // turns started without a key share it: none is found by it
		return orchestrator.TurnRecord{}, orchestrator.ErrNotFound
	}
	defer markUnavailable(&err)
	return s.turnByKey(ctx, p, key)
}

func (s *sqlStore) turnByKey(ctx context.Context, p principal.Principal, key string) (orchestrator.TurnRecord, error) {
	return scanTurn(s.read.QueryRowContext(ctx, s.q.turnByKey, string(p), key))
}

// Turn implements orchestrator.Store.
func (s *sqlStore) Turn(ctx context.Context, p principal.Principal, id string) (_ orchestrator.TurnRecord, err error) {
	defer markUnavailable(&err)
	return scanTurn(s.read.QueryRowContext(ctx, s.q.turn, id, string(p)))
}

// Episode implements orchestrator.Store.
func (s *sqlStore) Episode(ctx context.Context, p principal.Principal, id string) (_ orchestrator.Episode, err error) {
	defer markUnavailable(&err)
	rows, err := s.read.QueryContext(ctx, s.q.episode, id, string(p))
	if err != nil {
		return orchestrator.Episode{}, fmt.Errorf("store: episode: %w", err)
	}
	defer rows.Close()
	ep := orchestrator.Episode{ID: id, Principal: p}
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return orchestrator.Episode{}, err
		}
		ep.Turns = append(ep.Turns, t)
	}
	if err := rows.Err(); err != nil {
		return orchestrator.Episode{}, fmt.Errorf("store: episode: %w", err)
	}
	// Every turn of an episode has its owner's principal, so no rows means the episode does
	// not exist or is someone else's: the caller cannot tell which.
	if len(ep.Turns) == 0 {
		return orchestrator.Episode{}, orchestrator.ErrNotFound
	}
	return ep, nil
}

// RecentTurns reads the episode's last n turns newest first, which lets LIMIT keep the most
// recent and the index on (episode_id, seq) serve it, and returns them oldest first.
// It asks for at least one row even when n < 1: no rows is how it tells ErrNotFound, as
// Episode does. It implements orchestrator.Store.
func (s *sqlStore) RecentTurns(ctx context.Context, p principal.Principal, id string, n int) (_ []orchestrator.TurnRecord, err error) {
	defer markUnavailable(&err)
	rows, err := s.read.QueryContext(ctx, s.q.recentTurns, id, string(p), max(n, 1))
	if err != nil {
		return nil, fmt.Errorf("store: recent turns: %w", err)
	}
	defer rows.Close()
	var turns []orchestrator.TurnRecord
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: recent turns: %w", err)
	}
	if len(turns) == 0 {
		return nil, orchestrator.ErrNotFound
	}
	if n < 1 {
		return []orchestrator.TurnRecord{}, nil
	}
	slices.Reverse(turns)
	return turns, nil
}

// AppendEvent implements stream.LogStore.
func (s *sqlStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	if rec.ID > math.MaxInt64 {
		return fmt.Errorf("%w: %d", ErrEventID, rec.ID)
	}
	name, data, err := rec.Marshal()
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.appendEvent).ExecContext(ctx, turnID, int64(rec.ID), name, string(data))
		if err != nil {
			return fmt.Errorf("store: append event: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: append event: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("store: turn %s record %d: %w", turnID, rec.ID, stream.ErrRecordExists)
		}
		return nil
	})
}

// maxBatchRows caps the rows of one multi-row INSERT, keeping its placeholders (four a row)
// far below both databases' limits; a longer batch takes several statements in one transaction.
const maxBatchRows = 128

// maxPreparedRows caps the rows of one multi-row INSERT on SQLite, where one is prepared for
// each count up to it: a turn's end (about 18 records for a two-intent turn) then takes one
// statement, and a long reply's batches a few.
const maxPreparedRows = 32

// AppendEvents implements stream.BatchLogStore: it stores recs in one transaction, as
// multi-row INSERTs: one commit, and on PostgreSQL one round trip per maxBatchRows, however
// many events a burst holds. Any id already taken, or repeated in recs, rolls the whole batch
// back.
func (s *sqlStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	switch len(recs) {
	case 0:
		return nil
	case 1:
		return s.AppendEvent(ctx, turnID, recs[0])
	}
	args, err := eventArgs(turnID, recs)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.appendEvents(ctx, tx, turnID, recs, args)
	})
}

// FinishTurnWithEvents implements orchestrator.EndStore: FinishTurn and AppendEvents of the
// log's last records in one transaction, all of it or, on any error (ErrTurnFinished
// included), nothing.
func (s *sqlStore) FinishTurnWithEvents(ctx context.Context, t orchestrator.TurnRecord, recs []stream.Record) error {
	t = normalizeTurn(t)
	decision, err := encodeDecision(t.Decision)
	if err != nil {
		return err
	}
	args, err := eventArgs(t.ID, recs)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.finishTurn(ctx, tx, t, decision); err != nil {
			return err
		}
		return s.appendEvents(ctx, tx, t.ID, recs, args)
	})
}

// eventArgs encodes recs as the values of insertEvents, four a record. The records' data
// become one string, which each record's value is a part of: one copy for the batch rather
// than one a record.
func eventArgs(turnID string, recs []stream.Record) ([]any, error) {
	type encoded struct {
		name string
		data []byte
	}
	var room [maxPreparedRows]encoded
	encs := room[:0]
	size := 0
	for _, rec := range recs {
		if rec.ID > math.MaxInt64 {
			return nil, fmt.Errorf("%w: %d", ErrEventID, rec.ID)
		}
		name, data, err := rec.Marshal()
		if err != nil {
			return nil, err
		}
		encs = append(encs, encoded{name, data})
		size += len(data)
	}
	var all strings.Builder
	all.Grow(size)
	for _, e := range encs {
		all.Write(e.data)
	}
	joined := all.String()
	args := make([]any, 0, 4*len(recs))
	var turn any = turnID // boxed once, not once a record
	for i, rec := range recs {
		n := len(encs[i].data)
		args = append(args, turn, int64(rec.ID), encs[i].name, joined[:n])
		joined = joined[n:]
	}
	return args, nil
}

// appendEvents inserts recs (encoded as args) in tx as multi-row INSERTs, failing with
// ErrRecordExists when an id is taken. On SQLite each runs through the statement prepared
// for its row count: parsing a multi-row insert anew would cost more than the rows.
func (s *sqlStore) appendEvents(ctx context.Context, tx *sql.Tx, turnID string, recs []stream.Record, args []any) error {
	rows := maxBatchRows
	if s.insertRows != nil {
		rows = maxPreparedRows
	}
	for start := 0; start < len(recs); start += rows {
		n := min(rows, len(recs)-start)
		res, err := s.insertEventRows(ctx, tx, n, args[4*start:4*(start+n)])
		if err != nil {
			return fmt.Errorf("store: append events: %w", err)
		}
		inserted, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: append events: %w", err)
		}
		if inserted != int64(n) {
			return fmt.Errorf("store: turn %s records %d-%d: %w", turnID, recs[0].ID, recs[len(recs)-1].ID, stream.ErrRecordExists)
		}
	}
	return nil
}

// insertEventRows runs the insert of n events, through its prepared statement on SQLite.
func (s *sqlStore) insertEventRows(ctx context.Context, tx *sql.Tx, n int, args []any) (sql.Result, error) {
	switch {
	case s.insertRows == nil:
		return tx.ExecContext(ctx, s.insertEvents(n), args...)
	case n == 1:
		return tx.StmtContext(ctx, s.appendEvent).ExecContext(ctx, args...)
	default:
		return tx.StmtContext(ctx, s.insertRows[n]).ExecContext(ctx, args...)
	}
}

// insertEvents is qAppendEvent with rows sets of values. Conflicting rows are skipped, not
// fatal, so that appendEvents can tell a taken id (ErrRecordExists) from a failure by the count.
func (s *sqlStore) insertEvents(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO events (turn_id, id, name, data) VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?)")
	}
	b.WriteString(" ON CONFLICT (turn_id, id) DO NOTHING")
	return s.dialect(b.String())
}

// Events implements stream.LogStore.
func (s *sqlStore) Events(ctx context.Context, turnID string, after uint64) (_ []stream.Record, err error) {
	defer markUnavailable(&err)
	out := []stream.Record{}
	if after >= math.MaxInt64 {
		return out, nil // no stored id can be greater
	}
	rows, err := s.events.QueryContext(ctx, turnID, int64(after))
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			name string
			data []byte
		)
		if err := rows.Scan(&id, &name, &data); err != nil {
			return nil, fmt.Errorf("store: events: %w", err)
		}
		ev, err := stream.Decode(name, data)
		if err != nil {
			return nil, fmt.Errorf("store: turn %s record %d: %w", turnID, id, err)
		}
		out = append(out, stream.Record{ID: uint64(id), Event: ev})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanTurn(row scanner) (orchestrator.TurnRecord, error) {
	var (
		t         orchestrator.TurnRecord
		decision  sql.NullString
		completed sql.NullTime
	)
	err := row.Scan(&t.ID, &t.EpisodeID, &t.Principal, &t.Message, &t.Locale, &t.Location,
		&t.IdempotencyKey, &t.RequestHash, &t.State, &t.Outcome, &t.Reply, &decision, &t.Created, &completed)
	if errors.Is(err, sql.ErrNoRows) {
		return orchestrator.TurnRecord{}, orchestrator.ErrNotFound
	}
	if err != nil {
		return orchestrator.TurnRecord{}, fmt.Errorf("store: read turn: %w", err)
	}
	if decision.Valid {
		t.Decision = new(orchestrator.Decision)
		if err := json.Unmarshal([]byte(decision.String), t.Decision); err != nil {
			return orchestrator.TurnRecord{}, fmt.Errorf("store: turn %s decision: %w", t.ID, err)
		}
	}
	if completed.Valid {
		t.Completed = completed.Time
	}
	return normalizeTurn(t), nil
}

// encodeDecision gives the decision column's value: NULL for no decision, else its JSON.
func encodeDecision(d *orchestrator.Decision) (any, error) {
	if d == nil {
		return nil, nil
	}
	// What json.Marshal(d) gives: MarshalJSON's own json.Marshal output, compact and escaped
	// already, which Marshal would only check and copy once more.
	b, err := d.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("store: encode decision: %w", err)
	}
	return string(b), nil
}

// nullTime stores the zero time, "not yet", as NULL.
func nullTime(t time.Time) sql.NullTime { return sql.NullTime{Time: t, Valid: !t.IsZero()} }
