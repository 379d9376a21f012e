// Package store keeps episodes, turns and each turn's event log: in memory for tests, in
// SQLite (pure Go) by default, and in PostgreSQL for several replicas. Every implementation
// satisfies both orchestrator.Store and stream.LogStore and is safe for concurrent use.
package store
