package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func openCommitter(t *testing.T) (*committer, *sql.DB) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "g.db")+"?"+sqliteParams+"&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	c := newCommitter(db)
	if err := c.prepare(t.Context()); err != nil { // the savepoints as OpenSQLite runs them
		t.Fatal(err)
	}
	return c, db
}

func insertKV(k string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (?, 'v')`, k)
		return err
	}
}

func keys(t *testing.T, db *sql.DB) map[string]bool {
	t.Helper()
	rows, err := db.Query(`SELECT k FROM kv`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out[k] = true
	}
	return out
}

// Writes queued while a transaction runs share the next ones (urgent writes a group of their
// own), and one that fails half-way rolls back to its own savepoint: its first row is gone,
// every other write's rows are stored.
func TestCommitterGroupsAndIsolatesFailures(t *testing.T) {
	c, db := openCommitter(t)
	const writers = 64
	boom := errors.New("boom")
	errs := make([]error, writers)
	entered, release := make(chan struct{}), make(chan struct{})
	write := func(i int) error {
		return c.do(t.Context(), i%2 == 1, func(ctx context.Context, tx *sql.Tx) error {
			if i == 0 { // the first leads, and holds its transaction until the rest are queued
				close(entered)
				<-release
			}
			if err := insertKV(fmt.Sprint("k", i))(ctx, tx); err != nil {
				return err
			}
			if i%8 == 2 {
				return boom // after its first write: that write must not survive
			}
			return insertKV(fmt.Sprint("k", i, "b"))(ctx, tx)
		})
	}
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = write(0) })
	<-entered
	for i := 1; i < writers; i++ {
		wg.Go(func() { errs[i] = write(i) })
	}
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		c.mu.Lock()
		queued := len(c.queue) + len(c.urgent)
		c.mu.Unlock()
		if queued == writers-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued behind the first, want %d", queued, writers-1)
		}
	}
	close(release)
	wg.Wait()
	got := keys(t, db)
	for i := range writers {
		failed := i%8 == 2
		if failed != errors.Is(errs[i], boom) || (!failed && errs[i] != nil) {
			t.Errorf("write %d = %v", i, errs[i])
		}
		if got[fmt.Sprint("k", i)] == failed || got[fmt.Sprint("k", i, "b")] == failed {
			t.Errorf("write %d (failed %v): rows k%d %v, k%db %v", i, failed, i, got[fmt.Sprint("k", i)], i, got[fmt.Sprint("k", i, "b")])
		}
	}
	// The first write's own, then one for the urgent writes and one for the others.
	if n := c.transactions.Load(); n != 3 {
		t.Errorf("%d transactions for %d writes, want 3", n, writers)
	}
}

// A write whose context has ended before its transaction reaches it stores nothing; writes
// after stop fail.
func TestCommitterCancelledAndClosed(t *testing.T) {
	c, db := openCommitter(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.do(ctx, false, insertKV("cancelled")); !errors.Is(err, context.Canceled) {
		t.Errorf("do(cancelled) = %v, want %v", err, context.Canceled)
	}
	if err := c.do(t.Context(), true, insertKV("kept")); err != nil {
		t.Errorf("do() = %v", err)
	}
	c.stop()
	if err := c.do(t.Context(), false, insertKV("late")); !errors.Is(err, errClosed) {
		t.Errorf("do() after stop = %v, want %v", err, errClosed)
	}
	if got := keys(t, db); len(got) != 1 || !got["kept"] {
		t.Errorf("rows = %v, want only kept", got)
	}
}
