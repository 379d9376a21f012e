// Package audit keeps the append-only record of who acted for whom: a turn accepted, how it
// was routed, an envelope suppressed, a cancellation, a trusted service acting for a user,
// the agent definitions reloaded, a dev token minted, and limit refusals, counted per
// principal per minute. An [Entry] holds identifiers, counts and outcomes only, never a
// message, a reply, a token or a secret.
//
// Entries go to a [Recorder] (the store, which keeps them in the audit_log table beside the
// turns) through a [Log], which writes off the request's path: recording never blocks and
// never fails the caller. Every entry is written (nothing is sampled); one that cannot be
// (the database is down, or the queue is full) is logged whole at ERROR and counted in
// switchboard_audit_write_failures_total instead.
//
// Goroutine model: [New] starts one goroutine that writes queued entries in batches (those
// recorded within a few milliseconds of each other go in one write) and, as
// each minute ends, the refusals counted in it; [Log.Close] writes what is left and stops it.
// Every method is safe for concurrent use.
package audit
