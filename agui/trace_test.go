package agui

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/principal"
)

// Mounted alone, without web's middleware, a request still continues its caller's trace, as a
// delegating switchboard sends it: the turn it starts joins that trace.
func TestHandlerContinuesTheCallersTrace(t *testing.T) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{}) // as the binary's telemetry sets it
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })

	svc := surfacetest.New(t, offline.New())
	var got trace.TraceID
	h, err := New(Config{
		Service: svc.Service, Hub: svc.Hub, Logger: slog.New(slog.DiscardHandler),
		Auth: principal.AuthenticatorFunc(func(r *http.Request) (principal.Principal, error) {
			got = trace.SpanContextFromContext(r.Context()).TraceID()
			return "alice", nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, Route, strings.NewReader(`{}`))
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if want := "4bf92f3577b34da6a3ce929d0e0e4736"; got.String() != want {
		t.Errorf("trace id in the request = %s, want %s", got, want)
	}
}
