package web

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// A browser client on another site (an AG-UI page, say) may call the API only from an origin
// the config lists; without the setting no CORS header is sent and a preflight is refused
// with the setting's name, and the chat page, served from the API's own origin, works either
// way.
func TestCORS(t *testing.T) {
	const app = "https://app.example.com"
	tests := []struct {
		name       string
		origins    []string
		method     string
		path       string
		origin     string
		forwarded  string // X-Forwarded-Host a proxy in front sets
		wantStatus int
		wantAllow  string // Access-Control-Allow-Origin
	}{
		{"preflight of an allowed origin", []string{app}, http.MethodOptions, "/v1/turns", app, "", http.StatusNoContent, app},
		{"request of an allowed origin", []string{app}, http.MethodPost, "/v1/turns", app, "", http.StatusUnauthorized, app},
		{"preflight of another origin", []string{app}, http.MethodOptions, "/v1/turns", "https://evil.example", "", http.StatusForbidden, ""},
		{"any origin", []string{"*"}, http.MethodOptions, "/v1/turns", "https://evil.example", "", http.StatusNoContent, "*"},
		{"no origins configured", nil, http.MethodOptions, "/v1/turns", app, "", http.StatusForbidden, ""},
		{"same origin, not configured", []string{app}, http.MethodPost, "/v1/turns", "http://{host}", "", http.StatusUnauthorized, ""},
		{"same origin behind a proxy that rewrites Host", []string{app}, http.MethodPost, "/v1/turns", "http://chat.example.com", "chat.example.com", http.StatusUnauthorized, "http://chat.example.com"},
		{"another origin behind the same proxy", []string{app}, http.MethodPost, "/v1/turns", "https://evil.example", "chat.example.com", http.StatusForbidden, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newBoundedServer(t, func(c *Config) { c.CORSOrigins = tt.origins })
			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+tt.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", strings.ReplaceAll(tt.origin, "{host}", strings.TrimPrefix(srv.URL, "http://")))
			if tt.forwarded != "" {
				req.Header.Set("X-Forwarded-Host", tt.forwarded)
			}
			req.Header.Set("Access-Control-Request-Method", http.MethodPost)
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusForbidden {
				// A refused page is told why in the usual error shape, not which origins pass.
				var e httpkit.ErrorResponse
				if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != "origin_not_allowed" ||
					!strings.Contains(e.Error.Message, "http.cors_origins") || strings.Contains(string(body), app) {
					t.Errorf("body = %q, want the JSON error origin_not_allowed naming http.cors_origins and no origin", body)
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type = %q, want application/json", ct)
				}
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.wantAllow {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantAllow)
			}
			if tt.method == http.MethodOptions && tt.wantAllow != "" {
				if got := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")); !strings.Contains(got, "authorization") {
					t.Errorf("Access-Control-Allow-Headers = %q, want Authorization among them", got)
				}
			}
		})
	}
}
