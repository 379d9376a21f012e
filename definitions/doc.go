// Package definitions owns the Agent Definition schema: it reads one YAML file per agent from a
// directory, decodes it strictly, fills defaults, validates each definition and the set as a
// whole, and returns an immutable [Set] that the orchestrator factory binds at start-up.
//
// Every problem found while loading is reported at once, each with the file and line it comes
// from, so that `switchboard validate` can print them all in one run. Nothing here talks to the
// network or reads the environment; feature flags named in `enabled` are resolved by the caller.
//
// Goroutine model: loading is synchronous and starts no goroutines. A [Set] and the definitions
// it returns are never modified after [Load] returns, so they are safe for concurrent readers;
// callers must treat them as read-only.
package definitions
