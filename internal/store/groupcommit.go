package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// errClosed is what a write gets once its store is closed.
var errClosed = errors.New("store: closed")

// maxGroup bounds how many writes share one transaction, so that one commit never waits on an
// unbounded queue.
const maxGroup = 256

// committer is SQLite's one writer. A write joins a queue; when no transaction is in progress
// its caller leads: it runs every write queued (up to maxGroup), each in a SAVEPOINT of its own,
// in one transaction, commits them together and answers each, then hands the lead to the next
// write queued, if any. SQLite admits one writer at a time and a commit costs more than the
// rows in it, so concurrent turns share commits instead of queueing for one each; a write that
// fails rolls back to its savepoint and leaves the others in the transaction untouched. A write
// with nobody else waiting runs in its caller's goroutine, in a transaction of its own.
type committer struct {
	db *sql.DB

	mu      sync.Mutex
	urgent  []*writeOp // run before queue, in groups of their own
	queue   []*writeOp
	leading bool // a caller is running transactions
	closed  bool
	leaders sync.WaitGroup // the caller leading, if any; Add only under mu while !closed

	transactions atomic.Int64 // begun, for benchmarks

	// savepoints are the statements run puts around each write of a group, by text, prepared
	// once by prepare: parsed anew, two a write cost about what a small write costs.
	savepoints preparedStmts
}

// The statements around each write of a group.
const (
	qSavepoint  = "SAVEPOINT write_op"
	qRollbackTo = "ROLLBACK TO write_op"
	qRelease    = "RELEASE write_op"
)

type writeOp struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *sql.Tx) error
	err  chan error    // capacity 1: the answer
	lead chan struct{} // capacity 1: this op's caller is to lead next
}

func newCommitter(db *sql.DB) *committer { return &committer{db: db} }

// prepare prepares the savepoint statements on db, before any write: until then, or if it
// fails, they run by text.
func (c *committer) prepare(ctx context.Context) (err error) {
	c.savepoints, err = prepareStatements(ctx, c.db, qSavepoint, qRollbackTo, qRelease)
	return err
}

// exec runs one of the savepoint statements in tx.
func (c *committer) exec(ctx context.Context, tx *sql.Tx, q string) error {
	_, err := c.savepoints.exec(ctx, tx, q)
	return err
}

// do runs fn in a transaction shared with other writes and returns once that transaction has
// committed (fn's error, or the commit's). fn sees a context that is not cancelled mid-write
// (interrupting SQLite rolls back the whole transaction, the other writes' too): ctx is checked
// when the transaction reaches fn, and fn must not block.
//
// An urgent write (one a user waits on before anything else can happen, such as creating a
// turn) goes ahead of the others queued, in a group of urgent writes only: a commit of many
// event batches must not delay a turn's start.
func (c *committer) do(ctx context.Context, urgent bool, fn func(ctx context.Context, tx *sql.Tx) error) error {
	op := &writeOp{ctx: ctx, fn: fn, err: make(chan error, 1), lead: make(chan struct{}, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	if urgent {
		c.urgent = append(c.urgent, op)
	} else {
		c.queue = append(c.queue, op)
	}
	if c.leading {
		c.mu.Unlock()
		select {
		case err := <-op.err: // a leader ran it
			return err
		case <-op.lead: // the leader handed over: op is next
		}
		c.mu.Lock()
	}
	c.leading = true
	c.leaders.Add(1)
	defer c.leaders.Done()
	for {
		group := c.next()
		c.mu.Unlock()
		c.commit(group)
		mine := slices.Contains(group, op)
		c.mu.Lock()
		switch {
		case len(c.urgent)+len(c.queue) == 0:
			c.leading = false
			c.mu.Unlock()
			return <-op.err
		case mine:
			// Done here: the next write queued leads on, so no caller serves others for long.
			next := c.queue
			if len(c.urgent) > 0 {
				next = c.urgent
			}
			next[0].lead <- struct{}{}
			c.mu.Unlock()
			return <-op.err
		}
	}
}

// next takes the next group off the queues: urgent writes if any wait, else the others, up to
// maxGroup. c.mu must be held.
func (c *committer) next() []*writeOp {
	q := &c.queue
	if len(c.urgent) > 0 {
		q = &c.urgent
	}
	n := min(len(*q), maxGroup)
	group := (*q)[:n:n]
	*q = (*q)[n:]
	return group
}

// stop waits for the transaction in progress, if any. Writes after it fail.
func (c *committer) stop() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.leaders.Wait()
}

// commit runs group in one transaction and answers each op.
func (c *committer) commit(group []*writeOp) {
	errs := make([]error, len(group))
	answer := func(commitErr error) {
		for i, op := range group {
			err := errs[i]
			if err == nil {
				err = commitErr
			}
			op.err <- err
		}
	}
	ctx := context.Background() // each write's own context is checked before its turn
	c.transactions.Add(1)
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		answer(fmt.Errorf("store: begin: %w", err))
		return
	}
	defer tx.Rollback() // a no-op once committed
	if len(group) == 1 {
		// Alone in its transaction: no savepoint needed, a failure rolls back the transaction.
		if errs[0] = group[0].ctx.Err(); errs[0] == nil {
			errs[0] = group[0].fn(context.WithoutCancel(group[0].ctx), tx)
		}
		if errs[0] != nil {
			answer(nil)
			return
		}
	} else {
		for i, op := range group {
			if err := op.ctx.Err(); err != nil {
				errs[i] = context.Cause(op.ctx)
				continue
			}
			var fatal error
			if errs[i], fatal = c.run(ctx, tx, op); fatal != nil {
				// The transaction may hold part of a failed write: none of the group is stored.
				clear(errs)
				answer(fatal)
				return
			}
		}
	}
	if err := tx.Commit(); err != nil {
		answer(fmt.Errorf("store: commit: %w", err))
		return
	}
	answer(nil)
}

// run applies one op inside its savepoint, rolling back to it when the op fails, and returns
// the op's error. fatal means the savepoint itself failed: the transaction can no longer be
// trusted.
func (c *committer) run(ctx context.Context, tx *sql.Tx, op *writeOp) (err, fatal error) {
	if err := c.exec(ctx, tx, qSavepoint); err != nil {
		return nil, fmt.Errorf("store: savepoint: %w", err)
	}
	if err = op.fn(context.WithoutCancel(op.ctx), tx); err != nil {
		if rbErr := c.exec(ctx, tx, qRollbackTo); rbErr != nil {
			return err, fmt.Errorf("store: rollback to savepoint: %w", rbErr)
		}
	}
	if relErr := c.exec(ctx, tx, qRelease); relErr != nil {
		return err, fmt.Errorf("store: release savepoint: %w", relErr)
	}
	return err, nil
}
