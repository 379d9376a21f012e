package telemetry

import (
	"compress/gzip"
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// oneSpan is the smallest export a collector can check.
var oneSpan = []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "turn"}}}}}}

// answering is a collector that answers each request with the next status of its script (the
// last one repeats) and records the decoded span names.
type answering struct {
	statuses []int
	calls    atomic.Int32
	gzipped  atomic.Bool
	names    atomic.Value
}

func (a *answering) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(a.calls.Add(1)) - 1
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		a.gzipped.Store(true)
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, _ := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(raw, &req) != nil {
		http.Error(w, "not an OTLP protobuf export", http.StatusBadRequest)
		return
	}
	var names []string
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				names = append(names, s.Name)
			}
		}
	}
	a.names.Store(names)
	w.WriteHeader(a.statuses[min(n, len(a.statuses)-1)])
}

func testClient(t *testing.T, c OTLPConfig) *httpClient {
	t.Helper()
	h, err := newHTTPClient(c)
	if err != nil {
		t.Fatalf("newHTTPClient() error = %v", err)
	}
	h.backoff, h.maxDelay = time.Millisecond, 5*time.Millisecond
	return h
}

func TestOTLPHTTPClientStatuses(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int
		wantCalls int32
		wantErr   bool
	}{
		{"accepted at once", []int{http.StatusOK}, 1, false},
		{"busy, then accepted", []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusOK}, 3, false},
		{"gateway errors are retried", []int{http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusOK}, 3, false},
		{"a refusal is final", []int{http.StatusBadRequest, http.StatusOK}, 1, true},
		{"unauthorized is final", []int{http.StatusUnauthorized, http.StatusOK}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			col := &answering{statuses: tt.statuses}
			srv := httptest.NewServer(col)
			defer srv.Close()
			h := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces"})
			err := h.UploadTraces(t.Context(), oneSpan)
			if (err != nil) != tt.wantErr {
				t.Fatalf("UploadTraces() error = %v, want error %v", err, tt.wantErr)
			}
			if got := col.calls.Load(); got != tt.wantCalls {
				t.Errorf("collector got %d requests, want %d", got, tt.wantCalls)
			}
			if err == nil {
				if names, _ := col.names.Load().([]string); len(names) != 1 || names[0] != "turn" {
					t.Errorf("collector decoded spans %v, want [turn]", names)
				}
			}
			if err != nil && strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %q names the endpoint, which may carry credentials", err)
			}
		})
	}
}

func TestOTLPHTTPClientStopsRetryingWithContext(t *testing.T) {
	col := &answering{statuses: []int{http.StatusServiceUnavailable}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	h := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces"})
	ctx, cancel := context.WithCancel(t.Context())
	h.client.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if col.calls.Load() == 2 {
			cancel()
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	err := h.UploadTraces(ctx, oneSpan)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("UploadTraces() error = %v, want context.Canceled", err)
	}
	if got := col.calls.Load(); got > 3 {
		t.Errorf("collector got %d requests after the export was cancelled", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOTLPHTTPClientUnreachableIsRetried(t *testing.T) {
	h := testClient(t, OTLPConfig{Endpoint: "http://collector.invalid:4318/v1/traces"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var tries int
	refused := errors.New("connect: connection refused")
	h.client.Transport = roundTripFunc(func(*http.Request) (*http.Response, error) {
		if tries++; tries == 3 {
			cancel()
		}
		return nil, refused
	})
	err := h.UploadTraces(ctx, oneSpan)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, refused) {
		t.Fatalf("UploadTraces() error = %v, want the cancellation and the last attempt's cause", err)
	}
	if tries != 3 {
		t.Errorf("an unreachable collector was tried %d times, want 3 (until cancelled)", tries)
	}
	if strings.Contains(err.Error(), "collector.invalid") {
		t.Errorf("error %q names the endpoint", err)
	}
}

func TestOTLPHTTPClientGzip(t *testing.T) {
	col := &answering{statuses: []int{http.StatusOK}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	h := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces", Compression: "gzip"})
	if err := h.UploadTraces(t.Context(), oneSpan); err != nil {
		t.Fatalf("UploadTraces() error = %v", err)
	}
	if !col.gzipped.Load() {
		t.Error("request was not gzip-encoded")
	}
}

func TestOTLPHTTPClientInsecureUsesPlaintext(t *testing.T) {
	col := &answering{statuses: []int{http.StatusOK}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	h := testClient(t, OTLPConfig{Endpoint: strings.Replace(srv.URL, "http://", "https://", 1) + "/v1/traces", Insecure: true})
	if err := h.UploadTraces(t.Context(), oneSpan); err != nil {
		t.Fatalf("UploadTraces() with Insecure to a plaintext collector: %v", err)
	}
}

func TestOTLPHTTPClientCertificate(t *testing.T) {
	col := &answering{statuses: []int{http.StatusOK}}
	srv := httptest.NewTLSServer(col)
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	h := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces", Certificate: ca})
	if err := h.UploadTraces(t.Context(), oneSpan); err != nil {
		t.Fatalf("UploadTraces() with the collector's CA: %v", err)
	}

	// Without the CA the export fails at once, saying why: no retry mends a certificate.
	untrusting := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces"})
	var tries int
	tr := untrusting.client.Transport
	untrusting.client.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		tries++
		return tr.RoundTrip(r)
	})
	err := untrusting.UploadTraces(t.Context(), oneSpan)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("UploadTraces() without the collector's CA: error = %v, want one about its certificate", err)
	}
	if tries != 1 {
		t.Errorf("an untrusted collector was tried %d times, want 1", tries)
	}
}

func TestNewHTTPClientRefuses(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]OTLPConfig{
		"missing certificate": {Endpoint: "https://c:4318/v1/traces", Certificate: filepath.Join(t.TempDir(), "none.pem")},
		"no PEM in the file":  {Endpoint: "https://c:4318/v1/traces", Certificate: bad},
	} {
		if _, err := newHTTPClient(c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: newHTTPClient() error = %v, want ErrInvalidConfig", name, err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0":                             0,
		"-4":                            0,
		"Wed, 21 Oct 2015 07:28:00 GMT": 0,
	} {
		if got := retryAfter(v); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestOTLPHTTPClientHungCollector(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select { // never answers on its own
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	h := testClient(t, OTLPConfig{Endpoint: srv.URL + "/v1/traces", Timeout: 10 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if err := h.UploadTraces(ctx, oneSpan); err == nil {
		t.Fatal("UploadTraces() to a collector that never answers succeeded")
	}
	if calls.Load() < 2 {
		t.Errorf("a hung request was tried %d times, want it cut by the timeout and tried again", calls.Load())
	}
}
