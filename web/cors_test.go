package web

import (
	"net/http"
	"strings"
	"testing"
)

// A browser client on another site (an AG-UI page, say) may call the API only from an origin
// the config lists; without the setting no CORS header is sent, and the chat page, served
// from the API's own origin, works either way.
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
		{"no origins configured", nil, http.MethodOptions, "/v1/turns", app, "", http.StatusMethodNotAllowed, ""},
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
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
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
