package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// markUnavailable wraps *err with orchestrator.ErrUnavailable when it says the database cannot
// serve the call just now rather than that the call is wrong: callers then answer 503 and
// retry, instead of treating an outage as a bug. Deferred by every method that reaches the
// database.
func markUnavailable(err *error) {
	if *err != nil && !errors.Is(*err, orchestrator.ErrUnavailable) && unavailable(*err) {
		*err = fmt.Errorf("%w: %w", orchestrator.ErrUnavailable, *err)
	}
}

// SQLite's primary result codes (the low byte of an extended code) that mean the database is
// busy, locked or cannot write: sqlite3.h.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteNoMem    = 7
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteProtocol = 15
)

// unavailable reports whether err is the database being down, unreachable, locked, out of
// space or out of time, as opposed to a constraint, a missing row or a bad statement.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false // the caller gave up: its own business, not the store's state
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, errClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteBusy, sqliteLocked, sqliteNoMem, sqliteReadOnly, sqliteIOErr, sqliteFull, sqliteCantOpen, sqliteProtocol:
			return true
		}
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),       // insufficient resources: disk full, too many connections
			strings.HasPrefix(pe.Code, "57"),       // operator intervention: shutdown, cancelled by timeout
			strings.HasPrefix(pe.Code, "58"),       // system error: I/O
			pe.Code == "55P03",                     // lock not available
			pe.Code == "40001", pe.Code == "40P01", // serialization failure, deadlock
			pe.Code == "25006": // read-only transaction: a standby
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) || pgconn.SafeToRetry(err)
}

// cannotOpen reports whether err is SQLite failing to open its file at all (a missing folder,
// no permission), which the first statement on a new connection meets.
func cannotOpen(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteCantOpen
}

// health remembers whether the last write reached the database, for [sqlStore.Ready]: a store
// whose reads work but whose writes fail (a lock held elsewhere, a read-only directory, a full
// disk) cannot run turns either.
type health struct {
	mu      sync.Mutex
	failing error     // the last write's unavailability, nil once a write succeeds
	since   time.Time // when writes began failing
}

func (h *health) wrote(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.failing = nil
	case errors.Is(err, orchestrator.ErrUnavailable):
		if h.failing == nil {
			h.since = time.Now()
		}
		h.failing = err
	}
}

// writeErr returns since when writes have been failing, and the last failure (nil: they work).
func (h *health) writeErr() (time.Time, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.since, h.failing
}

// readyTimeout bounds the query of a readiness check: a probe must answer promptly even when
// the database does not.
const readyTimeout = 2 * time.Second

// Ready reports whether the store can serve turns now: nil, or an error wrapping
// orchestrator.ErrUnavailable that says why not. It runs one small query, and also fails while
// the last write failed for unavailability (writes recover at the next successful one, such as
// the lease renewed on every heartbeat).
func (s *sqlStore) Ready(ctx context.Context) (err error) {
	defer markUnavailable(&err)
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	var one int
	if err := s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: cannot reach the database: %w", err)
	}
	if since, werr := s.health.writeErr(); werr != nil {
		return fmt.Errorf("store: writes failing since %s: %w", since.UTC().Format(time.RFC3339), werr)
	}
	return nil
}
