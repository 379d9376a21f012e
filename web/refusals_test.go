package web

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRefusalsDoNotWaitForTheBody: a request refused before any handler reads its body (a
// wrong Host in dev mode, an origin CORS refuses, no such route or method, a bad path, headers
// too large) is answered while its body is still arriving, and its connection closed, though
// the server would wait an hour for the body.
func TestRefusalsDoNotWaitForTheBody(t *testing.T) {
	const app = "https://app.example.com"
	api := func(h *Handler) http.Handler { return h.API() }
	tests := []struct {
		name   string
		edit   func(*Config)
		serve  func(*Handler) http.Handler
		method string
		path   string
		host   string
		header string // more header lines, each ending in \r\n
		want   int
	}{
		{"dev mode, a name not allowed", func(c *Config) { c.DevHosts = []string{} }, nil,
			http.MethodPost, "/v1/turns", "rebind.attacker.example", "", http.StatusForbidden},
		{"an origin CORS refuses", func(c *Config) { c.CORSOrigins = []string{app} }, nil,
			http.MethodPost, "/v1/turns", "switchboard", "Origin: https://evil.example\r\n", http.StatusForbidden},
		{"a preflight with a body", func(c *Config) { c.CORSOrigins = []string{app} }, nil,
			http.MethodOptions, "/v1/turns", "switchboard", "Origin: " + app + "\r\nAccess-Control-Request-Method: POST\r\n", http.StatusNoContent},
		{"no such route", nil, nil, http.MethodPost, "/v1/nowhere", "switchboard", "", http.StatusNotFound},
		{"a trailing slash", nil, nil, http.MethodPost, "/v1/turns/", "switchboard", "", http.StatusNotFound},
		{"no such method", nil, nil, http.MethodPut, "/v1/turns", "switchboard", "", http.StatusMethodNotAllowed},
		{"a NUL byte in the path", nil, nil, http.MethodPost, "/v1/turns/%00", "switchboard", "", http.StatusBadRequest},
		{"headers too large", nil, nil, http.MethodPost, "/v1/turns", "switchboard", "X-Pad: " + strings.Repeat("a", 70<<10) + "\r\n", http.StatusRequestHeaderFieldsTooLarge},
		{"outside the API", nil, api, http.MethodPost, "/static/x", "switchboard", "", http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			serve := tc.serve
			if serve == nil {
				serve = func(h *Handler) http.Handler { return h }
			}
			srv := newBoundedServerOf(t, func(c *Config) {
				c.BodyReadTimeout = time.Hour
				if tc.edit != nil {
					tc.edit(c)
				}
			}, serve)
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			head := tc.method + " " + tc.path + " HTTP/1.1\r\nHost: " + tc.host + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n" + tc.header
			if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
				t.Fatal(err)
			}
			resp, body, closed := answer(t, conn)
			switch {
			case resp == nil:
				t.Fatalf("no answer within %s", answerWait)
			case resp.StatusCode != tc.want:
				t.Errorf("status = %d %s, want %d", resp.StatusCode, body, tc.want)
			case !resp.Close || !closed:
				t.Errorf("Connection: close said %v, connection closed %v; want both", resp.Close, closed)
			}
		})
	}
}

// A refused request without a body has nothing to wait for: its connection stays open for
// the next request.
func TestRefusalsWithoutABodyKeepTheConnection(t *testing.T) {
	srv := newBoundedServer(t, func(c *Config) { c.DevHosts = []string{} })
	for _, tc := range []struct {
		path, host string
		want       int
	}{
		{"/v1/turns/t1", "localhost", http.StatusUnauthorized},
		{"/healthz", "rebind.attacker.example", http.StatusForbidden},
		{"/v1/nowhere", "localhost", http.StatusNotFound},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tc.host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want || resp.Close {
			t.Errorf("GET %s (Host %s) = %d, Connection: close %v; want %d and the connection kept", tc.path, tc.host, resp.StatusCode, resp.Close, tc.want)
		}
	}
}
