// Package ccsdemo is an embedded demo context service: it serves the demo verticals' twelve
// enrichers (shop, rewards, support, travel) from fixtures for the demo users [Alice] and [Bob]
// over the real CCS wire, so switchboard runs end to end with no external service. It owns the
// demo payload types, their registration in a [ccs.Registry], and fault injection (error and
// partial envelopes, a foreign principal, version skew, bad signatures, latency, hangs, HTTP
// failures) for tests and evals.
//
// Mount a [Server] behind [ccs.NewInProcessTransport] for the embedded mode, or on an
// http.Server for `switchboard ccs-demo`.
//
// Goroutine model: [Server.ServeHTTP] runs on the caller's goroutine, one per request, and may
// block for an injected latency or hang until the request's context ends. Faults, the call
// record and the cache bookkeeping sit behind one mutex, so injecting faults while requests run
// is safe.
package ccsdemo
