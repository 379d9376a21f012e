// Package breaker keeps a turn from waiting on a dependency that keeps failing: one circuit
// breaker per target (a CCS enricher, a remote A2A sub-agent, a model alias), built on
// sony/gobreaker. A breaker opens after [Config].ErrorThreshold failures within
// [Config].Window; while open every call fails at once with [ErrOpen]; after
// [Config].HalfOpenAfter one probe call goes through, and its result closes or reopens it.
//
// A [Set] owns the breakers of one service, reports them as the metrics
// switchboard_breaker_state{target} and switchboard_breaker_transitions_total{target,to}, and
// lists the ones that are not closed ([Set.Open]) for readiness reports. [Enricher] and [Agent]
// put a breaker in front of a CCS client and a remote sub-agent.
//
// # Time
//
// The library reads the system clock, so tests that need time to pass run in a
// testing/synctest bubble, whose clock is fake and moves only when every goroutine in it waits.
//
// # Goroutines
//
// A Set is safe for concurrent use. Calls run on the caller's goroutine; state changes are
// recorded and logged on the goroutine whose call (or state read) caused them.
package breaker
