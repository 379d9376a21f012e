package store

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

func openSQLite(t *testing.T, dsn string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(t.Context(), dsn)
	if err != nil {
		t.Fatalf("OpenSQLite(%q) = %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
	})
	return s
}

func TestSQLite(t *testing.T) {
	runStoreSuite(t, func(t *testing.T) testStore {
		return openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
	})
}

func TestSQLiteInMemory(t *testing.T) {
	runStoreSuite(t, func(t *testing.T) testStore { return openSQLite(t, ":memory:") })
}

// TestSQLiteShared opens one file twice, as two processes would: SQLite's lock and the unique
// index, not the in-process writer, must keep the semantics.
func TestSQLiteShared(t *testing.T) {
	runSharedSuite(t, func(t *testing.T) (testStore, testStore) {
		path := filepath.Join(t.TempDir(), "switchboard.db")
		return openSQLite(t, path), openSQLite(t, "file:"+path)
	})
}

func TestSQLiteReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenSQLite() = %v", err)
	}
	want := mustCreate(t, s, finished(turnRec(alice, "t1", "e1", "k1")))
	recs := sampleRecords()
	for _, r := range recs {
		if err := s.AppendEvent(t.Context(), "t1", r); err != nil {
			t.Fatalf("AppendEvent() = %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}

	s = openSQLite(t, path) // migrations already applied: this must be a no-op
	got, err := s.Turn(t.Context(), alice, "t1")
	if err != nil {
		t.Fatalf("Turn() after reopen = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Turn() after reopen mismatch (-want +got):\n%s", diff)
	}
	gotRecs, err := s.Events(t.Context(), "t1", 0)
	if err != nil {
		t.Fatalf("Events() after reopen = %v", err)
	}
	if diff := cmp.Diff(recs, gotRecs); diff != "" {
		t.Errorf("Events() after reopen mismatch (-want +got):\n%s", diff)
	}
}

func TestSQLiteNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	if _, err := raw.ExecContext(t.Context(), "PRAGMA user_version = 99"); err != nil {
		t.Fatalf("set user_version: %v", err)
	}
	raw.Close()
	if s, err := OpenSQLite(t.Context(), path); !errors.Is(err, ErrSchemaVersion) {
		if s != nil {
			s.Close()
		}
		t.Errorf("OpenSQLite(version 99) = %v, want %v", err, ErrSchemaVersion)
	}
}

// A file in a folder that does not exist failed with "store: migrate: unable to open database
// file (14)", which named neither the file nor the cause a person can fix.
func TestSQLiteFileThatCannotBeOpened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-folder", "switchboard.db")
	s, err := OpenSQLite(t.Context(), path)
	if s != nil {
		s.Close()
	}
	want := "store: cannot open the SQLite file " + path + ": does its folder exist, and may this user write there?"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("OpenSQLite(%s) = %v, want an error starting %q", path, err, want)
	}
}

func TestSQLiteEventIDRange(t *testing.T) {
	s := openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
	err := s.AppendEvent(t.Context(), "t1", sampleRecords()[0])
	if err != nil {
		t.Fatalf("AppendEvent() = %v", err)
	}
	rec := sampleRecords()[1]
	rec.ID = 1 << 63
	if err := s.AppendEvent(t.Context(), "t1", rec); !errors.Is(err, ErrEventID) {
		t.Errorf("AppendEvent(id 2^63) = %v, want %v", err, ErrEventID)
	}
	if err := s.AppendEvents(t.Context(), "t1", []stream.Record{sampleRecords()[1], rec}); !errors.Is(err, ErrEventID) {
		t.Errorf("AppendEvents(ids 2 and 2^63) = %v, want %v", err, ErrEventID)
	}
	if got, err := s.Events(t.Context(), "t1", 0); err != nil || len(got) != 1 {
		t.Errorf("Events() after refused appends = %d records, %v; want 1, nil", len(got), err)
	}
}

func TestSQLiteLosingInsert(t *testing.T) {
	testLosingInsert(t, openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db")).sqlStore)
}

// TestSQLiteBatchSizes appends batches of each size around the prepared inserts' bound: every
// record of a batch split into several statements is stored, and an id taken in the batch's
// last statement leaves none of it stored.
func TestSQLiteBatchSizes(t *testing.T) {
	for _, n := range []int{2, maxPreparedRows - 1, maxPreparedRows, maxPreparedRows + 1, 2*maxPreparedRows + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
			batch := make([]stream.Record, n)
			for i := range batch {
				batch[i] = stream.Record{ID: uint64(i + 1), Event: stream.ReplyDelta{Text: fmt.Sprint(i)}}
			}
			if err := s.AppendEvents(t.Context(), "ok", batch); err != nil {
				t.Fatalf("AppendEvents(%d records) = %v", n, err)
			}
			got, err := s.Events(t.Context(), "ok", 0)
			if err != nil {
				t.Fatalf("Events() = %v", err)
			}
			if diff := cmp.Diff(batch, got); diff != "" {
				t.Errorf("Events() after AppendEvents (-want +got):\n%s", diff)
			}
			// The last record repeats the first one's id.
			taken := slices.Clone(batch)
			taken[n-1].ID = 1
			if err := s.AppendEvents(t.Context(), "taken", taken); !errors.Is(err, stream.ErrRecordExists) {
				t.Errorf("AppendEvents(id 1 twice) = %v, want %v", err, stream.ErrRecordExists)
			}
			if got, err := s.Events(t.Context(), "taken", 0); err != nil || len(got) != 0 {
				t.Errorf("Events() after a refused batch = %d records, %v; want none", len(got), err)
			}
		})
	}
}
