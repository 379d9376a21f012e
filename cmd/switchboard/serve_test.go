package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeMetricsOnItsOwnListener: with --metrics-addr, /metrics is served there and only
// there; the API listener answers 404 for it.
func TestServeMetricsOnItsOwnListener(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	metricsAddr := freeAddr(t)
	environ := envMap(map[string]string{devSecretEnv: testSecret, "SWITCHBOARD_STORE_DRIVER": "memory"})
	ready := make(chan string, 1)
	served := make(chan error, 1)
	var serveErr bytes.Buffer
	go func() {
		served <- serve(ctx, serveFlags{addr: "127.0.0.1:0", metricsAddr: metricsAddr, agents: "../../demo"}, &bytes.Buffer{}, &serveErr, environ, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-served:
		t.Fatalf("serve ended: %v\n%s", err, serveErr.String())
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := get("http://" + metricsAddr + "/metrics")
	if status != http.StatusOK || !strings.Contains(body, "switchboard_fanout_cap_exceeded_total") {
		t.Errorf("GET /metrics on --metrics-addr = %d %.200q, want 200 with switchboard's metrics", status, body)
	}
	if status, _ := get("http://" + addr + "/metrics"); status != http.StatusNotFound {
		t.Errorf("GET /metrics on --addr = %d, want 404: metrics are on their own listener", status)
	}
	if status, _ := get("http://" + metricsAddr + "/healthz"); status != http.StatusNotFound {
		t.Errorf("GET /healthz on --metrics-addr = %d, want 404: that listener serves metrics only", status)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if _, err := http.Get("http://" + metricsAddr + "/metrics"); err == nil {
		t.Error("the metrics listener still answers after shutdown")
	}
}

// TestServePprofBehindFlag: the runtime profiles are served on the metrics listener only with
// --pprof, never on the API listener, and --pprof without --metrics-addr is refused.
func TestServePprofBehindFlag(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pprof     bool
		wantIndex int
	}{
		{name: "off by default", pprof: false, wantIndex: http.StatusNotFound},
		{name: "on with --pprof", pprof: true, wantIndex: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			metricsAddr := freeAddr(t)
			environ := envMap(map[string]string{devSecretEnv: testSecret, "SWITCHBOARD_STORE_DRIVER": "memory"})
			ready := make(chan string, 1)
			served := make(chan error, 1)
			var serveErr bytes.Buffer
			go func() {
				served <- serve(ctx, serveFlags{addr: "127.0.0.1:0", metricsAddr: metricsAddr, agents: "../../demo", pprof: tc.pprof}, &bytes.Buffer{}, &serveErr, environ, ready)
			}()
			var addr string
			select {
			case addr = <-ready:
			case err := <-served:
				t.Fatalf("serve ended: %v\n%s", err, serveErr.String())
			}
			get := func(url string) (int, string) {
				t.Helper()
				resp, err := http.Get(url)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			status, body := get("http://" + metricsAddr + "/debug/pprof/")
			if status != tc.wantIndex {
				t.Errorf("GET /debug/pprof/ on --metrics-addr = %d, want %d", status, tc.wantIndex)
			}
			if tc.pprof && !strings.Contains(body, "goroutine") {
				t.Errorf("GET /debug/pprof/ = %.200q, want the profile index", body)
			}
			wantHeap := http.StatusNotFound
			if tc.pprof {
				wantHeap = http.StatusOK
			}
			if status, _ := get("http://" + metricsAddr + "/debug/pprof/heap?debug=1"); status != wantHeap {
				t.Errorf("GET /debug/pprof/heap = %d, want %d", status, wantHeap)
			}
			if status, _ := get("http://" + addr + "/debug/pprof/"); status == http.StatusOK {
				t.Errorf("GET /debug/pprof/ on --addr = %d, want no profiles on the API listener", status)
			}
			cancel()
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("serve returned %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not shut down")
			}
		})
	}
	t.Run("needs --metrics-addr", func(t *testing.T) {
		var stderr bytes.Buffer
		err := serveCmd(t.Context(), []string{"--pprof"}, &bytes.Buffer{}, &stderr, envMap(nil))
		if err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
			t.Errorf("serve --pprof = %v, want a usage error naming --metrics-addr", err)
		}
	})
}

// TestServeLogsSayWhatIsServed: run from a folder without ./agents, the start line names the
// embedded demo as what is served (not the folder "."), and with jwt auth the issuer and
// audience a token must carry (in dev mode, none); in JSON logs the shutdown's grace period
// reads as a duration ("15s"), not as nanoseconds.
func TestServeLogsSayWhatIsServed(t *testing.T) {
	if _, err := os.Stat(defaultAgentsDir); err == nil {
		t.Skipf("%s exists here: serve would not use the embedded demo", defaultAgentsDir)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "issuer.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		env              map[string]string
		issuer, audience any // nil: not logged
	}{
		{name: "dev", env: map[string]string{devSecretEnv: testSecret}},
		{name: "jwt", env: map[string]string{
			"SWITCHBOARD_AUTH_MODE": "jwt", "SWITCHBOARD_AUTH_ISSUER": "https://id.example.com/",
			"SWITCHBOARD_AUTH_AUDIENCE": "chat-api", "SWITCHBOARD_AUTH_PUBLIC_KEY_FILE": keyFile,
		}, issuer: "https://id.example.com/", audience: "chat-api"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["SWITCHBOARD_STORE_DRIVER"] = "memory"
			lines := serveLogLines(t, envMap(tc.env))
			listening := lines["switchboard listening"]
			if got := listening["agents"]; got != "embedded demo" {
				t.Errorf(`"switchboard listening" agents = %#v, want "embedded demo"; log: %v`, got, listening)
			}
			if got := listening["auth_issuer"]; got != tc.issuer {
				t.Errorf(`"switchboard listening" auth_issuer = %#v, want %#v`, got, tc.issuer)
			}
			if got := listening["auth_audience"]; got != tc.audience {
				t.Errorf(`"switchboard listening" auth_audience = %#v, want %#v`, got, tc.audience)
			}
			if got := lines["shutting down: finishing running turns (a second Ctrl-C stops at once)"]["grace"]; got != shutdownGrace.String() {
				t.Errorf(`"shutting down" grace = %#v, want %q`, got, shutdownGrace.String())
			}
		})
	}
}

// serveLogLines serves with JSON logs until it is ready, stops it and returns its log lines
// by message.
func serveLogLines(t *testing.T, environ env) map[string]map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	var serveErr bytes.Buffer
	go func() {
		served <- serve(ctx, serveFlags{addr: "127.0.0.1:0", agents: defaultAgentsDir, logFormat: "json"}, &bytes.Buffer{}, &serveErr, environ, ready)
	}()
	select {
	case <-ready:
	case err := <-served:
		t.Fatalf("serve ended: %v\n%s", err, serveErr.String())
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not shut down")
	}
	lines := map[string]map[string]any{}
	for l := range strings.Lines(serveErr.String()) {
		var line map[string]any
		if json.Unmarshal([]byte(l), &line) == nil {
			lines[fmt.Sprint(line["msg"])] = line
		}
	}
	return lines
}

// Dev mode listens on this machine alone unless told otherwise: anyone reaching its port can
// sign in as any user.
func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		dev  bool
		want string
	}{
		{"", true, "127.0.0.1:8080"},
		{"", false, ":8080"},
		{":9090", true, ":9090"},
		{"0.0.0.0:8080", false, "0.0.0.0:8080"},
	} {
		if got := listenAddr(tc.addr, tc.dev); got != tc.want {
			t.Errorf("listenAddr(%q, dev %v) = %q, want %q", tc.addr, tc.dev, got, tc.want)
		}
	}
}

// fakeTelemetry fails its Shutdown with err.
type fakeTelemetry struct{ err error }

func (f fakeTelemetry) Shutdown(context.Context) error { return f.err }

// serve dropped the error of the last telemetry flush: spans and metrics lost at exit went
// unreported. It is logged now; a flush that succeeds logs nothing.
func TestShutdownTelemetryLogsFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // in the log; "" for an empty log
	}{
		{"flushed", nil, ""},
		{"exporter unreachable", errors.New("telemetry: shutdown: dial tcp 127.0.0.1:4318: connection refused"), "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			shutdownTelemetry(t.Context(), fakeTelemetry{tc.err}, slog.New(slog.NewTextHandler(&buf, nil)))
			got := buf.String()
			if tc.want == "" && got != "" {
				t.Errorf("shutdownTelemetry logged %q, want nothing", got)
			}
			if tc.want != "" && (!strings.Contains(got, tc.want) || !strings.Contains(got, "level=ERROR")) {
				t.Errorf("shutdownTelemetry logged %q, want an error naming %q", got, tc.want)
			}
		})
	}
}

// serve dropped the error of an HTTP shutdown that outlived its grace period and left the
// late requests' connections open while it closed the service under them; they are closed.
func TestStopHTTPClosesLateConnections(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusOK)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	got := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("status %s", resp.Status)
		}
		got <- err
	}()
	<-entered
	expired, cancel := context.WithCancel(t.Context())
	cancel() // the grace period is over
	var buf bytes.Buffer
	stopHTTP(expired, srv, slog.New(slog.NewTextHandler(&buf, nil)))
	close(release) // a request still served would now be answered
	if err := <-got; err == nil || strings.HasPrefix(err.Error(), "status ") {
		t.Errorf("late request = %v, want its connection closed", err)
	}
	if !strings.Contains(buf.String(), "closing the connections still open") {
		t.Errorf("stopHTTP logged %q, want the late connections reported", buf.String())
	}
}
