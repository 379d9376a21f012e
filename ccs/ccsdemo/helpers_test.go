package ccsdemo

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ccs"
)

// clock is the fixed "now" of the tests: fixture dates are relative to it.
var clock = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

type harness struct {
	srv    *Server
	client *ccs.Client
	reg    *ccs.Registry
	url    string
}

// newHarness serves a demo CCS over a real socket and returns a ccs.Client pointed at it.
func newHarness(t *testing.T, opts Options, cfg ccs.ClientConfig) *harness {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return clock }
	}
	srv := New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg.BaseURL = hs.URL
	c, err := ccs.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient() = %v", err)
	}
	reg := ccs.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatalf("Register() = %v", err)
	}
	return &harness{srv: srv, client: c, reg: reg, url: hs.URL}
}

func (h *harness) enrich(t *testing.T, p, id string, params map[string]any) (*ccs.RawResponse, error) {
	t.Helper()
	return h.client.Enrich(t.Context(), ccs.EnricherRequest{Principal: p, EnricherID: id, Params: params})
}

// mustDecode enriches, requires a usable envelope for p and returns the typed payload.
func (h *harness) mustDecode(t *testing.T, p, id string, params map[string]any) any {
	t.Helper()
	resp, err := h.enrich(t, p, id, params)
	if err != nil {
		t.Fatalf("Enrich(%s, %s) error = %v", p, id, err)
	}
	if v := ccs.Check(resp, principalOf(p), ccs.CheckOptions{}); v.Kind != ccs.Use {
		t.Fatalf("Check(%s, %s) = %+v, want Use", p, id, v)
	}
	got, err := h.reg.Decode(resp)
	if err != nil {
		t.Fatalf("Decode(%s, %s) error = %v", p, id, err)
	}
	return got
}

// headerClient is an HTTP client that adds the fault header to every request.
func headerClient(fault string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set(HeaderFault, fault)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
