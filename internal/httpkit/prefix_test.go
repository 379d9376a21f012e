package httpkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMountPrefix(t *testing.T) {
	tests := []struct {
		name, target, strip, want string
	}{
		{"at the root", "/v1/turns", "", ""},
		{"stripped", "/assistant/v1/turns", "/assistant", "/assistant"},
		{"two levels", "/a/b/.well-known/agent-card.json", "/a/b", "/a/b"},
		{"escaped", "/my%20app/a2a", "/my app", "/my app"},
		{"with a query", "/agents/a2a?x=/a2a", "/agents", "/agents"},
		{"absolute form", "http://example.com/agents/a2a", "/agents", "/agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			h := http.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = MountPrefix(r) }))
			if tt.strip != "" {
				h = http.StripPrefix(tt.strip, h)
			}
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tt.target, nil))
			if got != tt.want {
				t.Errorf("MountPrefix(%s) = %q, want %q", tt.target, got, tt.want)
			}
		})
	}
	// A handler that rewrote the path some other way adds nothing.
	r := httptest.NewRequest(http.MethodGet, "/v1/turns", nil)
	r.URL.Path = "/elsewhere"
	if got := MountPrefix(r); got != "" {
		t.Errorf("MountPrefix(rewritten) = %q, want \"\"", got)
	}
}
