package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestDevHost(t *testing.T) {
	allowed := []string{"devbox.internal"}
	tests := []struct {
		host string
		want bool
	}{
		{"localhost:8080", true},
		{"LOCALHOST", true},
		{"app.localhost:8080", true},
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"[fe80::1%25eth0]:8080", true},
		{"192.168.1.20", true},
		{"devbox.internal:8080", true},
		{"devbox.internal.", true},
		{"rebind.attacker.example:8080", false},
		{"localhost.attacker.example", false},
		{"devbox.internal.attacker.example", false},
		{"", false},
		{":8080", false},
	}
	for _, tc := range tests {
		if got := devHost(tc.host, allowed); got != tc.want {
			t.Errorf("devHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

// A page that rebinds its own name to the developer's machine reaches a dev-mode server under
// that name: the server refuses it, before any route (sign-in included) runs. Outside dev mode
// nothing is checked.
func TestDevHostsRefuseOtherNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		devHosts []string
		host     string
		want     int
	}{
		{"dev mode, a rebound name", []string{}, "rebind.attacker.example", http.StatusForbidden},
		{"dev mode, localhost", []string{}, "localhost", http.StatusOK},
		{"dev mode, a listed name", []string{"devbox.internal"}, "devbox.internal", http.StatusOK},
		{"not dev mode", nil, "rebind.attacker.example", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newBoundedServer(t, func(c *Config) { c.DevHosts = tc.devHosts })
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/healthz", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tc.host
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("GET /healthz with Host %q = %d, want %d", tc.host, resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusForbidden {
				b, _ := io.ReadAll(resp.Body)
				if !strings.Contains(string(b), "http.dev_hosts") {
					t.Errorf("body = %s, want it to say how to allow the name", b)
				}
			}
		})
	}
}

// A dev_hosts entry that is no host name is refused at start, not silently never matched.
func TestDevHostsMustBeNames(t *testing.T) {
	for _, n := range []string{"devbox:8080", "http://devbox", ""} {
		if _, err := devHostsOnly([]string{n}); err == nil {
			t.Errorf("devHostsOnly(%q) = nil error, want one naming the entry", n)
		}
	}
}
