// Package ccs is switchboard's side of the context service (CCS) contract: the request and the
// EnricherResponse envelope, an HTTP client that always carries the principal, a typing registry
// that turns a raw payload into the Go type registered for its (domain_type, enricher_id), and
// [Check], the single place that decides whether an envelope may reach a sub-agent's LLM.
//
// The decision is deliberately narrow. After the signature (when a key is configured), the
// principal and the payload's major version pass, the envelope's status alone decides: "ok" is
// used, "partial" is used with a caveat, anything else is unavailable. Partial[] and CacheMeta
// are for logs and spans; nothing here branches on them, because the producer already folded
// source criticality into the status.
//
// Goroutine model: a [Client] and a [Registry] are safe for concurrent use once built; the
// client starts no goroutines of its own and performs exactly one HTTP exchange per
// [Client.Enrich] (no retries). The transport returned by [NewInProcessTransport] runs each
// handler call on its own goroutine so that a caller's deadline is honoured even when the
// handler does not return.
package ccs
