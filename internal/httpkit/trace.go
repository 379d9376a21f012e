package httpkit

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ContinueTrace continues the caller's W3C trace (traceparent, tracestate) in r's context, so
// that a turn started by r joins the trace of whoever sent it: another switchboard delegating
// to this one as a remote sub-agent sends its own. A span already in the context (a program's
// tracing middleware in front, or web's) is kept as it is.
func ContinueTrace(r *http.Request) *http.Request {
	if trace.SpanContextFromContext(r.Context()).IsValid() {
		return r
	}
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	return r.WithContext(ctx)
}
