package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
)

// scopeVersion is the schema version just before the episode-scope migration: what a database
// written by the previous release records.
func scopeVersion(t *testing.T, migrations [][]string, scope []string) int {
	t.Helper()
	for i, m := range migrations {
		if len(m) > 0 && &m[0] == &scope[0] {
			return i
		}
	}
	t.Fatal("the episode-scope migration is not in the list")
	return 0
}

// legacyTurn is a turn as the previous release stored it, with the instance that ran it.
type legacyTurn struct {
	rec   orchestrator.TurnRecord
	owner string
}

// legacyEpisodes and legacyTurns are what the previous release could leave in a database:
// alice's and bob's episodes, a finished turn with its decision, a running one, and one of
// carol's stored under alice's episode (refused by every release that checked the episode's
// owner, but a database may predate the check).
var (
	legacyEpisodes = []struct {
		id string
		p  principal.Principal
	}{{"e1", alice}, {"b1", bob}}
	legacyTurns = []legacyTurn{
		{finished(turnRec(alice, "t1", "e1", "k1")), "instance-old"},
		{finished(turnRec(bob, "tb1", "b1", "k1")), "instance-old"},
		{finished(turnRec(alice, "t2", "e1", "")), ""},
		{turnRec("carol", "tc", "e1", ""), ""},
		{turnRec(alice, "t3", "e1", "k3"), "instance-old"},
	}
)

// writeLegacyRows stores the legacy rows with the statements the previous release used.
func writeLegacyRows(t *testing.T, db *sql.DB, d dialect) {
	t.Helper()
	ctx := t.Context()
	for _, ep := range legacyEpisodes {
		if _, err := db.ExecContext(ctx, d(`INSERT INTO episodes (id, principal, created) VALUES (?, ?, ?)`),
			ep.id, string(ep.p), storedTime(created)); err != nil {
			t.Fatalf("insert legacy episode %s: %v", ep.id, err)
		}
	}
	for _, lt := range legacyTurns {
		r := normalizeTurn(lt.rec)
		decision, err := encodeDecision(r.Decision)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, d(qInsertTurn),
			r.ID, r.EpisodeID, string(r.Principal), r.Message, r.Locale, r.Location, r.IdempotencyKey,
			r.RequestHash, string(r.State), string(r.Outcome), r.Reply, decision, r.Created, nullTime(r.Completed), lt.owner); err != nil {
			t.Fatalf("insert legacy turn %s: %v", r.ID, err)
		}
	}
	for _, rec := range sampleRecords() {
		name, data, err := rec.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, d(qAppendEvent), "t1", int64(rec.ID), name, string(data)); err != nil {
			t.Fatalf("insert legacy event: %v", err)
		}
	}
}

// checkScopedLegacy checks a store opened on a database holding the legacy rows: every row is
// readable by its owner, and an id taken before the migration is free for another principal.
func checkScopedLegacy(t *testing.T, s testStore, owner func(turnID string) string) {
	ctx := t.Context()
	want := map[principal.Principal]map[string][]orchestrator.TurnRecord{}
	for _, lt := range legacyTurns {
		r := stored(lt.rec)
		if want[r.Principal] == nil {
			want[r.Principal] = map[string][]orchestrator.TurnRecord{}
		}
		want[r.Principal][r.EpisodeID] = append(want[r.Principal][r.EpisodeID], r)
	}
	for p, eps := range want {
		for id, turns := range eps {
			ep, err := s.Episode(ctx, p, id)
			if err != nil {
				t.Fatalf("Episode(%s, %s) after migration = %v", p, id, err)
			}
			if diff := cmp.Diff(orchestrator.Episode{ID: id, Principal: p, Turns: turns}, ep); diff != "" {
				t.Errorf("Episode(%s, %s) after migration mismatch (-want +got):\n%s", p, id, diff)
			}
		}
	}
	for _, lt := range legacyTurns {
		if got := owner(lt.rec.ID); got != lt.owner {
			t.Errorf("owner of %s after migration = %q, want %q", lt.rec.ID, got, lt.owner)
		}
	}
	events, err := s.Events(ctx, "t1", 0)
	if err != nil {
		t.Fatalf("Events(t1) after migration = %v", err)
	}
	if diff := cmp.Diff(sampleRecords(), events); diff != "" {
		t.Errorf("Events(t1) after migration mismatch (-want +got):\n%s", diff)
	}

	// alice's id e1 tells bob nothing, and he may take it for a conversation of his own.
	if _, err := s.Episode(ctx, bob, "e1"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Episode(bob, e1) after migration = %v, want ErrNotFound", err)
	}
	bobs := mustCreate(t, s, turnRec(bob, "tb2", "e1", "k9"))
	if ep, err := s.Episode(ctx, bob, "e1"); err != nil || !slices.Equal(turnIDs(ep.Turns), []string{bobs.ID}) {
		t.Errorf("Episode(bob, e1) = %v, %v; want [tb2]", turnIDs(ep.Turns), err)
	}
	// alice's episode goes on after its old turns, and her old idempotency keys still hold.
	if got, existing, err := s.CreateTurn(ctx, turnRec(alice, "t4", "e1", "k1")); err != nil || !existing || got.ID != "t1" {
		t.Errorf("CreateTurn(alice, old key k1) = %s, existing %v, %v; want t1, true", got.ID, existing, err)
	}
	mustCreate(t, s, turnRec(alice, "t5", "e1", ""))
	if ep, err := s.Episode(ctx, alice, "e1"); err != nil || !slices.Equal(turnIDs(ep.Turns), []string{"t1", "t2", "t3", "t5"}) {
		t.Errorf("Episode(alice, e1) = %v, %v; want [t1 t2 t3 t5]", turnIDs(ep.Turns), err)
	}
}

func turnIDs(turns []orchestrator.TurnRecord) []string {
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ID
	}
	return ids
}

// tableColumns lists a table's columns in order, as the database reports them.
func tableColumns(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

func splitColumns(list string) []string {
	var cols []string
	for c := range strings.SplitSeq(list, ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	return cols
}

// TestSQLiteEpisodeScopeMigration opens a database the previous release wrote, with rows in
// it, and checks that the migration keeps every row its owner's while freeing the ids for
// everyone else.
func TestSQLiteEpisodeScopeMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	raw, err := sql.Open("sqlite", path+"?"+sqliteParams)
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	defer raw.Close()
	version := scopeVersion(t, sqliteMigrations, sqliteEpisodeScope)
	for _, m := range sqliteMigrations[:version] {
		for _, stmt := range m {
			if _, err := raw.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("old schema: %v", err)
			}
		}
	}
	if _, err := raw.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		t.Fatalf("old schema version: %v", err)
	}
	// The rebuild copies turns column by column: it must know every column the table has.
	cols, err := tableColumns(ctx, raw, "SELECT name FROM pragma_table_info('turns')")
	if err != nil {
		t.Fatalf("columns of turns: %v", err)
	}
	if diff := cmp.Diff(splitColumns(scopedTurnColumns), cols); diff != "" {
		t.Errorf("columns the migration copies differ from the old turns table's (-copied +table):\n%s", diff)
	}
	writeLegacyRows(t, raw, sqliteDialect)

	s := openSQLite(t, path)
	checkScopedLegacy(t, s, func(id string) string {
		var owner string
		if err := raw.QueryRowContext(ctx, "SELECT owner FROM turns WHERE id = ?", id).Scan(&owner); err != nil {
			t.Errorf("owner of %s: %v", id, err)
		}
		return owner
	})
	// Nothing of the rebuild is left behind, and the schema the rebuild made is sound.
	var check string
	if err := raw.QueryRowContext(ctx, "PRAGMA foreign_key_check").Scan(new(string), new(int), new(string), new(int)); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("PRAGMA foreign_key_check = %v, want no violations", err)
	}
	if err := raw.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("PRAGMA integrity_check = %q, %v; want ok", check, err)
	}
	tables, err := tableColumns(ctx, raw, "SELECT name FROM sqlite_schema WHERE name LIKE '%unscoped%'")
	if err != nil || len(tables) > 0 {
		t.Errorf("leftovers of the rebuild = %v, %v; want none", tables, err)
	}
	indexes, err := tableColumns(ctx, raw, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'turns' AND sql IS NOT NULL ORDER BY name")
	if wantIdx := []string{"turns_episode", "turns_idempotency", "turns_running", "turns_running_owner"}; err != nil || !slices.Equal(indexes, wantIdx) {
		t.Errorf("indexes on turns = %v, %v; want %v", indexes, err, wantIdx)
	}
}

// TestPostgresEpisodeScopeMigration is TestSQLiteEpisodeScopeMigration on PostgreSQL.
func TestPostgresEpisodeScopeMigration(t *testing.T) {
	ctx := t.Context()
	dsn := postgresSchema(t)
	raw, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	defer raw.Close()
	version := scopeVersion(t, postgresMigrations, postgresEpisodeScope)
	stmts := slices.Concat(postgresMigrations[:version]...)
	stmts = append(stmts, "CREATE TABLE schema_version (version INTEGER NOT NULL)",
		fmt.Sprintf("INSERT INTO schema_version (version) VALUES (%d)", version))
	for _, stmt := range stmts {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("old schema: %v", err)
		}
	}
	writeLegacyRows(t, raw, postgresDialect)

	s := openPostgres(t, dsn)
	checkScopedLegacy(t, s, func(id string) string {
		var owner string
		if err := raw.QueryRowContext(ctx, "SELECT owner FROM turns WHERE id = $1", id).Scan(&owner); err != nil {
			t.Errorf("owner of %s: %v", id, err)
		}
		return owner
	})
}
