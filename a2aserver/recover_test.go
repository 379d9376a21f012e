package a2aserver

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/principal"
)

// Mounted on its own, outside web's middleware, the handler still answers a panic with a plain
// 500 and keeps what panicked in the log.
func TestHandlerRecoversPanics(t *testing.T) {
	svc := surfacetest.New(t, offline.New())
	var logs bytes.Buffer
	h, err := New(Config{
		Service: svc.Service, Hub: svc.Hub, Orchestrator: svc.Definition, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Auth: principal.AuthenticatorFunc(func(*http.Request) (principal.Principal, error) { panic("session store secret s3cr3t") }),
	})
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
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(`{}`)))
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
