// Package streamtest holds the conformance suite for [stream.LogStore] implementations: every
// store (memory, SQLite, PostgreSQL) runs the same [LogStoreSuite] from its own tests.
package streamtest
