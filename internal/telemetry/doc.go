// Package telemetry owns switchboard's observability plumbing: the OpenTelemetry tracer and
// meter providers with their exporters (OTLP, pretty stdout, Prometheus at /metrics), the
// process-wide W3C propagator, the slog logger that stamps trace, span and turn ids on every
// record, and the redaction of secrets from log records and exported spans.
//
// Instrumentation lives with the code it measures: orchestrator and subagents receive the
// providers from cmd and create their own instruments. This package never reads environment
// variables; cmd resolves OTEL_EXPORTER_OTLP_* through [ConfigFromEnv] and passes the result
// to [Setup].
//
// Redaction is done before anything is written: [Handler] rewrites a record before its inner
// handler formats it, and [RedactingExporter] rewrites spans before the next exporter sees them.
// [SafeString] applies the same value rules for callers that build attribute values themselves.
//
// Goroutine model: [Setup] starts the SDK's batch span processor goroutine when an OTLP
// endpoint is configured; [Telemetry.Shutdown] flushes and stops it. [Handler], [Redactor]
// and [RedactingExporter] hold no mutable state and are safe for concurrent use.
package telemetry
