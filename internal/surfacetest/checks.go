package surfacetest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/principal"
)

// Mount builds a surface's handler, mounted alone, around the authenticator and logger a check
// gives it.
type Mount func(auth principal.Authenticator, logger *slog.Logger) (http.Handler, error)

// CheckContinuesTrace checks that a request to path, mounted without web's middleware, still
// continues its caller's trace, as a delegating switchboard sends it.
func CheckContinuesTrace(t *testing.T, mount Mount, path string) {
	t.Helper()
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{}) // as the binary's telemetry sets it
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })

	var got trace.TraceID
	h, err := mount(principal.AuthenticatorFunc(func(r *http.Request) (principal.Principal, error) {
		got = trace.SpanContextFromContext(r.Context()).TraceID()
		return "alice", nil
	}), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`))
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if want := "4bf92f3577b34da6a3ce929d0e0e4736"; got.String() != want {
		t.Errorf("trace id in the request = %s, want %s", got, want)
	}
}

// CheckRecoversPanics checks that a handler mounted on its own, outside web's middleware,
// answers a panic with a plain 500 and keeps what panicked in the log.
func CheckRecoversPanics(t *testing.T, mount Mount, path string) {
	t.Helper()
	var logs bytes.Buffer
	h, err := mount(principal.AuthenticatorFunc(func(*http.Request) (principal.Principal, error) {
		panic("session store secret s3cr3t")
	}), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("ServeHTTP() panicked: %v", p)
			}
		}()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`)))
	}()
	if w.Code != http.StatusInternalServerError {
		t.Errorf("status = %d, want %d", w.Code, http.StatusInternalServerError)
	}
	if body := w.Body.String(); !strings.Contains(body, `"code":"internal"`) || strings.Contains(body, "s3cr3t") {
		t.Errorf("body = %q, want the internal error without the panic", body)
	}
	if !strings.Contains(logs.String(), "s3cr3t") {
		t.Errorf("log = %q, want the panic in it", logs.String())
	}
}

// MethodCase is a request a surface answers with an error: its status, the error code in
// the JSON error shape and the Allow header ("" for none).
type MethodCase struct {
	Method, Path string
	WantStatus   int
	WantCode     string
	WantAllow    string
}

// CheckMethods sends each case to srv and checks the answer.
func CheckMethods(t *testing.T, srv *httptest.Server, cases []MethodCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Method+" "+tt.Path, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.Method, srv.URL+tt.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body httpkit.ErrorResponse
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tt.WantStatus || body.Error.Code != tt.WantCode {
				t.Errorf("%s %s = %d %q, want %d %q", tt.Method, tt.Path, resp.StatusCode, body.Error.Code, tt.WantStatus, tt.WantCode)
			}
			if got := resp.Header.Get("Allow"); got != tt.WantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.WantAllow)
			}
		})
	}
}
