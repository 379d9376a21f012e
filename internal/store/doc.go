// Package store keeps episodes, turns and each turn's event log: in memory ([Memory]) for
// tests, in SQLite ([SQLite], pure Go) by default, and in PostgreSQL ([Postgres]) when several
// replicas share one database, so that any replica can replay a turn another one ran. Every
// store implements orchestrator.Store and stream.LogStore with the same semantics, which a
// shared conformance suite checks against each:
//
//   - Every lookup is scoped to a principal: another principal's turn or episode is
//     orchestrator.ErrNotFound, exactly like one that does not exist.
//   - Episodes are keyed by (principal, episode id): a principal's turn goes to its own
//     episode of that id, which two principals may each have, and no call tells one of them
//     whether the other has. An episode's turns come back in creation order; RecentTurns gives
//     only the last n of them, in the same order.
//   - CreateTurn is idempotent per (principal, idempotency key): a repeat stores nothing and
//     returns the first turn with existing=true, also when the two calls race.
//   - FinishTurn writes only what a turn's end sets: state, outcome, reply, decision, completed,
//     and only while the turn is running: a late one fails with orchestrator.ErrTurnFinished.
//     FinishTurnWithEvents (orchestrator.EndStore) does it and appends the log's last records
//     in one transaction, all or nothing.
//   - Times come back in UTC to the microsecond; records share no memory with the caller.
//   - Each store writes its instance id (WithInstance) as the owner of the turns it creates,
//     and RenewLease keeps that id's lease. AbandonOwned finishes, as failed, the running turns
//     of its own id (a previous run's, at start-up); AbandonOrphans those of owners whose lease
//     ran out, and those of owners that never held one created before a cutoff. Both close
//     each turn's event log with a plain-words error and turn.completed, 2^32 ids past its
//     last stored record so that no id a live follower saw is reused, and change only rows
//     still running, so they neither undo a FinishTurn nor abandon a turn twice.
//   - An event log accepts each record id once (stream.ErrRecordExists otherwise) and returns
//     the records after a given id in id order, an empty slice when there are none.
//     AppendEvents stores a burst of records in one transaction, all of them or none.
//
// Goroutine model: stores are safe for concurrent use and start no goroutines, but for one:
// Postgres listens for appends (LISTEN/NOTIFY) on a goroutine of its own, from the first
// WatchAppends until Close. Memory holds
// one mutex per call. SQLite funnels every write through a single connection (SQLite admits
// one writer at a time) and group-commits: concurrent writes, each in a savepoint of its own,
// share one transaction, run by the caller that found none in progress (see committer). It
// serves lookups from a pool of read-only connections, which WAL mode lets run alongside the
// writer. Postgres uses one connection pool and leaves
// concurrency to the database; the unique index on (principal, idempotency key) settles racing
// duplicates in both SQL stores.
package store
