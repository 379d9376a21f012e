package telemetry

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP endpoint that keeps what it receives.
type collector struct {
	mu   sync.Mutex
	reqs []received
}

type received struct {
	path   string
	header http.Header
	body   []byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.reqs = append(c.reqs, received{path: r.URL.Path, header: r.Header.Clone(), body: body})
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (c *collector) received() []received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]received(nil), c.reqs...)
}

func TestOTLPHTTPUsesConfigNotEnv(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	decoy := &collector{}
	decoySrv := httptest.NewServer(decoy)
	defer decoySrv.Close()
	// What the exporter would pick up by itself; Setup must override all of it.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", decoySrv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", decoySrv.URL+"/v1/traces")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-from-env=1")

	const headerKey = "collector-header-secret"
	tel, err := Setup(t.Context(), Config{
		ServiceName: "switchboard",
		OTLP: OTLPConfig{
			Endpoint: srv.URL + "/v1/traces",
			Protocol: ProtocolHTTPProtobuf,
			Headers:  map[string]string{"api-key": headerKey},
		},
		Secrets: []string{testRegistered},
	})
	if err != nil {
		t.Fatalf("Setup() error = %v", err)
	}
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "turn")
	span.SetAttributes(
		attribute.String("leak.registered", testRegistered),
		attribute.String("leak.header", "echo "+headerKey),
		attribute.String("turn.id", "t-otlp"),
	)
	span.End()
	// Shutdown flushes the batcher.
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown() error = %v", err)
	}

	reqs := col.received()
	if len(reqs) != 1 {
		t.Fatalf("collector got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.path != "/v1/traces" {
		t.Errorf("path = %q, want /v1/traces", r.path)
	}
	if got := r.header.Get("api-key"); got != headerKey {
		t.Errorf("api-key header = %q, want %q", got, headerKey)
	}
	if got := r.header.Get("x-from-env"); got != "" {
		t.Errorf("x-from-env header = %q, want none: env headers must not leak in", got)
	}
	checkExportBody(t, r.body)
	if n := len(decoy.received()); n != 0 {
		t.Errorf("env endpoint got %d requests, want 0", n)
	}
}

func TestOTLPDisabledIgnoresEnv(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", srv.URL+"/v1/traces")

	tel, err := Setup(t.Context(), Config{ServiceName: "switchboard"})
	if err != nil {
		t.Fatalf("Setup() error = %v", err)
	}
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "turn")
	span.End()
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown() error = %v", err)
	}
	if n := len(col.received()); n != 0 {
		t.Errorf("collector got %d requests, want 0 when OTLPConfig.Endpoint is empty", n)
	}
}

// checkExportBody asserts on the raw protobuf: strings are stored verbatim in it, so a secret
// that reached the wire would be found by a byte search.
func checkExportBody(t *testing.T, body []byte) {
	t.Helper()
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatalf("decode export request: %v", err)
	}
	if !bytes.Contains(body, []byte("t-otlp")) || !bytes.Contains(body, []byte(Redacted)) {
		t.Errorf("export body lacks the span's attributes or the redaction marker")
	}
	for _, leak := range []string{testRegistered, "collector-header-secret"} {
		if bytes.Contains(body, []byte(leak)) {
			t.Errorf("export body contains %q", leak)
		}
	}
}
