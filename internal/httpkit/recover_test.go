package httpkit

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	const secret = "db password hunter2"
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
		wantBody   string // "" when the response is aborted
		wantAbort  bool
	}{
		{
			name:       "panic before the response",
			handler:    func(http.ResponseWriter, *http.Request) { panic(secret) },
			wantStatus: http.StatusInternalServerError,
			wantBody:   `{"error":{"code":"internal","message":"` + Internal + `"}}` + "\n",
		},
		{
			name:       "panic with an error",
			handler:    func(http.ResponseWriter, *http.Request) { panic(fmt.Errorf("boom: %s", secret)) },
			wantStatus: http.StatusInternalServerError,
			wantBody:   `{"error":{"code":"internal","message":"` + Internal + `"}}` + "\n",
		},
		{
			name: "panic mid-stream",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte("data: {}\n\n"))
				panic(secret)
			},
			wantAbort: true,
		},
		{
			name:      "abort passes on",
			handler:   func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
			wantAbort: true,
		},
		{
			name:       "no panic",
			handler:    func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) },
			wantStatus: http.StatusTeapot,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := Recover(slog.New(slog.NewTextHandler(&logs, nil)), tt.handler)
			w := httptest.NewRecorder()
			aborted := func() (aborted bool) {
				defer func() {
					p := recover()
					err, _ := p.(error)
					aborted = errors.Is(err, http.ErrAbortHandler)
					if p != nil && !aborted {
						t.Errorf("Recover() let through panic %v", p)
					}
				}()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/a2a", nil))
				return false
			}()
			if aborted != tt.wantAbort {
				t.Fatalf("aborted = %v, want %v", aborted, tt.wantAbort)
			}
			if tt.wantAbort {
				return
			}
			if w.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", w.Code, tt.wantStatus)
			}
			if got := w.Body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if tt.wantBody != "" && !strings.Contains(logs.String(), "handler panic") {
				t.Errorf("log = %q, want the panic logged", logs.String())
			}
		})
	}
}

// The writer Recover hands on still reaches what lies beneath it: streams flush and set
// deadlines through http.ResponseController.
func TestRecoverKeepsTheWriterReachable(t *testing.T) {
	h := Recover(slog.New(slog.DiscardHandler), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush() = %v, want nil", err)
		}
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if !w.Flushed {
		t.Error("Flushed = false, want true")
	}
}
