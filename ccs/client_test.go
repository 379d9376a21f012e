package ccs

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seen is one request as the fake CCS received it.
type seen struct {
	Method, Path, HeaderPrincipal, Authorization, ContentType string
	Body                                                      EnricherRequest
}

// fakeCCS answers every request with status and body, and records what it received.
type fakeCCS struct {
	mu     sync.Mutex
	seen   []seen
	status int
	body   string
	hang   bool
}

func (f *fakeCCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req EnricherRequest
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &req)
	f.mu.Lock()
	f.seen = append(f.seen, seen{
		Method: r.Method, Path: r.URL.EscapedPath(), HeaderPrincipal: r.Header.Get(HeaderPrincipal),
		Authorization: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"), Body: req,
	})
	status, body, hang := f.status, f.body, f.hang
	f.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (f *fakeCCS) calls() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

const okEnvelope = `{"status":"ok","principal":"alice","domain_type":"offer_list","enricher_id":"offers.search",` +
	`"version":"1.0.0","payload":{"offers":[]},"cache_meta":{"cached":false,"cacheable":true}}`

// transports runs a test once over a real socket and once through the in-process transport, so
// both paths are held to the same behaviour.
func transports(t *testing.T, h http.Handler, cfg ClientConfig, fn func(t *testing.T, c *Client)) {
	t.Run("http", func(t *testing.T) {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		cfg := cfg
		cfg.BaseURL = srv.URL + "/base/"
		c, err := NewClient(cfg)
		if err != nil {
			t.Fatalf("NewClient() = %v", err)
		}
		fn(t, c)
	})
	t.Run("in-process", func(t *testing.T) {
		cfg := cfg
		cfg.BaseURL = "http://ccs.embedded/base"
		cfg.HTTPClient = &http.Client{Transport: NewInProcessTransport(h)}
		c, err := NewClient(cfg)
		if err != nil {
			t.Fatalf("NewClient() = %v", err)
		}
		fn(t, c)
	})
}

func TestClientSendsPrincipalEveryCall(t *testing.T) {
	f := &fakeCCS{status: 200, body: okEnvelope}
	transports(t, f, ClientConfig{Credential: "svc-secret"}, func(t *testing.T, c *Client) {
		before := len(f.calls())
		for _, p := range []string{"alice", "bob", "alice"} {
			req := EnricherRequest{Principal: p, EnricherID: "offers.search", Params: map[string]any{"query": "shoes"}, TraceID: "t1"}
			got, err := c.Enrich(t.Context(), req)
			if err != nil {
				t.Fatalf("Enrich() error = %v", err)
			}
			if got.Status != StatusOK || string(got.Payload) != `{"offers":[]}` {
				t.Errorf("Enrich() = %+v, want the ok envelope", got)
			}
		}
		var want []seen
		for _, p := range []string{"alice", "bob", "alice"} {
			want = append(want, seen{
				Method: "POST", Path: "/base/v1/enrich/offers.search", HeaderPrincipal: p,
				Authorization: "Bearer svc-secret", ContentType: "application/json",
				Body: EnricherRequest{Principal: p, EnricherID: "offers.search", Params: map[string]any{"query": "shoes"}, TraceID: "t1"},
			})
		}
		if diff := cmp.Diff(want, f.calls()[before:]); diff != "" {
			t.Errorf("requests received mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestClientWithoutCredential(t *testing.T) {
	f := &fakeCCS{status: 200, body: okEnvelope}
	transports(t, f, ClientConfig{}, func(t *testing.T, c *Client) {
		if _, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: "offers.search"}); err != nil {
			t.Fatalf("Enrich() error = %v", err)
		}
		calls := f.calls()
		if got := calls[len(calls)-1].Authorization; got != "" {
			t.Errorf("Authorization = %q, want none", got)
		}
	})
}

func TestClientStatusMapping(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantErr  error
		wantHTTP *HTTPError
	}{
		{"missing principal", 400, `{"error":"missing_principal"}`, ErrMissingPrincipal, &HTTPError{400, "missing_principal"}},
		{"principal mismatch", 403, `{"error":"principal_mismatch"}`, ErrPrincipalRejected, &HTTPError{403, "principal_mismatch"}},
		{"unauthorized", 401, `{"error":"unauthorized"}`, ErrUnavailable, &HTTPError{401, "unauthorized"}},
		{"forbidden other", 403, `{"error":"forbidden"}`, ErrUnavailable, &HTTPError{403, "forbidden"}},
		{"unknown enricher", 404, `{"error":"unknown_enricher"}`, ErrUnavailable, &HTTPError{404, "unknown_enricher"}},
		{"bad params", 400, `{"error":"invalid_params"}`, ErrUnavailable, &HTTPError{400, "invalid_params"}},
		{"server error free text", 500, `panic: db password=hunter2`, ErrUnavailable, &HTTPError{500, ""}},
		{"code that is prose", 503, `{"error":"Connection refused to 10.0.0.3"}`, ErrUnavailable, &HTTPError{503, ""}},
		{"malformed json", 200, `{"status":`, ErrMalformed, nil},
		{"not an object", 200, `null`, ErrMalformed, nil},
		{"array", 200, `[]`, ErrMalformed, nil},
		{"trailing data", 200, okEnvelope + `{}`, ErrMalformed, nil},
		{"oversized", 200, `{"status":"ok","payload":"` + strings.Repeat("x", MaxEnvelopeBytes) + `"}`, ErrMalformed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCCS{status: tt.status, body: tt.body}
			transports(t, f, ClientConfig{}, func(t *testing.T, c *Client) {
				got, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: "offers.search"})
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("Enrich() = %v, %v; want nil, %v", got, err, tt.wantErr)
				}
				var he *HTTPError
				if errors.As(err, &he) != (tt.wantHTTP != nil) {
					t.Fatalf("Enrich() error %v: HTTPError present = %v, want %v", err, he != nil, tt.wantHTTP != nil)
				}
				if diff := cmp.Diff(tt.wantHTTP, he); diff != "" {
					t.Errorf("HTTPError mismatch (-want +got):\n%s", diff)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "10.0.0.3") {
					t.Errorf("Enrich() error %q carries the CCS body", err)
				}
			})
		})
	}
}

func TestClientRefusesBeforeSending(t *testing.T) {
	tests := []struct {
		name    string
		req     EnricherRequest
		wantErr error
	}{
		{"empty principal", EnricherRequest{EnricherID: "offers.search"}, ErrMissingPrincipal},
		{"empty enricher", EnricherRequest{Principal: "alice"}, ErrInvalidRequest},
		{"path traversal", EnricherRequest{Principal: "alice", EnricherID: ".."}, ErrInvalidRequest},
		{"slash in enricher", EnricherRequest{Principal: "alice", EnricherID: "a/b"}, ErrInvalidRequest},
		{"unencodable params", EnricherRequest{Principal: "alice", EnricherID: "x", Params: map[string]any{"f": func() {}}}, ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCCS{status: 200, body: okEnvelope}
			transports(t, f, ClientConfig{}, func(t *testing.T, c *Client) {
				if _, err := c.Enrich(t.Context(), tt.req); !errors.Is(err, tt.wantErr) {
					t.Errorf("Enrich() error = %v, want %v", err, tt.wantErr)
				}
			})
			if n := len(f.calls()); n != 0 {
				t.Errorf("CCS received %d requests, want 0", n)
			}
		})
	}
}

func TestClientTimeout(t *testing.T) {
	f := &fakeCCS{hang: true}
	transports(t, f, ClientConfig{Timeout: 50 * time.Millisecond}, func(t *testing.T, c *Client) {
		_, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: "offers.search"})
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Enrich() error = %v, want %v wrapping %v", err, ErrUnavailable, context.DeadlineExceeded)
		}
	})
}

func TestClientCallerCancel(t *testing.T) {
	f := &fakeCCS{hang: true}
	transports(t, f, ClientConfig{}, func(t *testing.T, c *Client) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := c.Enrich(ctx, EnricherRequest{Principal: "alice", EnricherID: "offers.search"})
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("Enrich() error = %v, want %v wrapping %v", err, ErrUnavailable, context.Canceled)
		}
	})
}

func TestClientTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := NewClient(ClientConfig{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: "x"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Enrich() error = %v, want %v", err, ErrUnavailable)
	}
}

func TestInProcessHandlerPanic(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	c, err := NewClient(ClientConfig{BaseURL: "http://embedded", HTTPClient: &http.Client{Transport: NewInProcessTransport(h)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: "x"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Enrich() error = %v, want %v", err, ErrUnavailable)
	}
}

func TestNewClientConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ClientConfig
		wantErr bool
	}{
		{"http", ClientConfig{BaseURL: "http://ccs:8081"}, false},
		{"https with path", ClientConfig{BaseURL: "https://ccs.internal/api/", Timeout: time.Second}, false},
		{"empty", ClientConfig{}, true},
		{"relative", ClientConfig{BaseURL: "/v1"}, true},
		{"scheme", ClientConfig{BaseURL: "ftp://ccs"}, true},
		{"no host", ClientConfig{BaseURL: "http://"}, true},
		{"query", ClientConfig{BaseURL: "http://ccs/?a=b"}, true},
		{"negative timeout", ClientConfig{BaseURL: "http://ccs", Timeout: -1}, true},
		{"credential with newline", ClientConfig{BaseURL: "http://ccs", Credential: "a\nb"}, true},
		{"unparseable", ClientConfig{BaseURL: "http://[::1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("NewClient() error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("NewClient() error = %v, want %v", err, ErrInvalidConfig)
			}
			if err == nil && c == nil {
				t.Error("NewClient() = nil client and nil error")
			}
		})
	}
}

// Requests do not wait for each other: while one request's handler hangs, others are served.
func TestInProcessServesWhileOneHangs(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/hang") {
			close(entered)
			<-release
		}
		io.WriteString(w, okEnvelope)
	})
	c, err := NewClient(ClientConfig{BaseURL: "http://embedded", HTTPClient: &http.Client{Transport: NewInProcessTransport(h)}})
	if err != nil {
		t.Fatal(err)
	}
	enrich := func(id string) error {
		_, err := c.Enrich(t.Context(), EnricherRequest{Principal: "alice", EnricherID: id})
		return err
	}
	hung := make(chan error, 1)
	go func() { hung <- enrich("hang") }()
	<-entered
	for range 3 {
		if err := enrich("offers.search"); err != nil {
			t.Errorf("Enrich() while another request hangs = %v", err)
		}
	}
	close(release)
	if err := <-hung; err != nil {
		t.Errorf("Enrich(hang) once released = %v", err)
	}
}
