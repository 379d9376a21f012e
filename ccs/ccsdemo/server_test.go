package ccsdemo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/ccs"
)

func TestServerWire(t *testing.T) {
	srv := New(Options{Credential: "svc"})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	tests := []struct {
		name       string
		method     string
		path       string
		auth       string
		principal  string
		body       string
		wantStatus int
		wantCode   string
	}{
		{"ok", "POST", "/v1/enrich/points.balance", "Bearer svc", "alice", `{"principal":"alice","enricher_id":"points.balance"}`, 200, ""},
		{"ok under a prefix, id from path only", "POST", "/ccs/v1/enrich/points.balance", "Bearer svc", "alice", `{"principal":"alice"}`, 200, ""},
		{"no credential", "POST", "/v1/enrich/points.balance", "", "alice", `{"principal":"alice"}`, 401, "unauthorized"},
		{"wrong credential", "POST", "/v1/enrich/points.balance", "Bearer svc2", "alice", `{"principal":"alice"}`, 401, "unauthorized"},
		{"no header principal", "POST", "/v1/enrich/points.balance", "Bearer svc", "", `{"principal":"alice"}`, 400, "missing_principal"},
		{"no body principal", "POST", "/v1/enrich/points.balance", "Bearer svc", "alice", `{}`, 400, "missing_principal"},
		{"principals differ", "POST", "/v1/enrich/points.balance", "Bearer svc", "alice", `{"principal":"bob"}`, 403, "principal_mismatch"},
		{"enricher differs from path", "POST", "/v1/enrich/points.balance", "Bearer svc", "alice", `{"principal":"alice","enricher_id":"rewards.tier"}`, 400, "bad_request"},
		{"bad json", "POST", "/v1/enrich/points.balance", "Bearer svc", "alice", `{"principal":`, 400, "bad_request"},
		{"unknown enricher", "POST", "/v1/enrich/weather.now", "Bearer svc", "alice", `{"principal":"alice"}`, 404, "unknown_enricher"},
		{"other route", "POST", "/v1/other", "Bearer svc", "alice", `{}`, 404, "not_found"},
		{"get", "GET", "/v1/enrich/points.balance", "Bearer svc", "alice", ``, 405, "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, hs.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			if tt.principal != "" {
				req.Header.Set(ccs.HeaderPrincipal, tt.principal)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d (%s), want %d", resp.StatusCode, data, tt.wantStatus)
			}
			if tt.wantStatus == 200 {
				if _, err := ccs.DecodeEnvelope(data); err != nil {
					t.Errorf("DecodeEnvelope() = %v", err)
				}
				return
			}
			var eb ccs.ErrorBody
			if err := json.Unmarshal(data, &eb); err != nil || eb.Error != tt.wantCode {
				t.Errorf("body = %s, want {\"error\":%q}", data, tt.wantCode)
			}
		})
	}
}

func TestClientCredentialAccepted(t *testing.T) {
	h := newHarness(t, Options{Credential: "svc"}, ccs.ClientConfig{Credential: "svc"})
	if _, err := h.enrich(t, Alice, "points.balance", nil); err != nil {
		t.Errorf("Enrich(right credential) error = %v", err)
	}
	bad := newHarness(t, Options{Credential: "svc"}, ccs.ClientConfig{Credential: "nope"})
	var he *ccs.HTTPError
	if _, err := bad.enrich(t, Alice, "points.balance", nil); !errors.As(err, &he) || he.StatusCode != 401 {
		t.Errorf("Enrich(wrong credential) error = %v, want 401", err)
	}
}

func TestSignedEnvelopes(t *testing.T) {
	h := newHarness(t, Options{SigningKey: signingKey}, ccs.ClientConfig{})
	for _, e := range Enrichers() {
		t.Run(e.ID, func(t *testing.T) {
			resp, err := h.enrich(t, Bob, e.ID, map[string]any{"query": "tv", "product": "kindle", "city": "tokyo"})
			if err != nil {
				t.Fatal(err)
			}
			if err := ccs.VerifySignature(resp, signingKey); err != nil {
				t.Errorf("VerifySignature() = %v", err)
			}
		})
	}
}

func TestCallsRecordPrincipal(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	h.enrich(t, Alice, "orders.recent", nil)
	h.enrich(t, Bob, "hotels.search", map[string]any{"city": "Paris"})
	h.enrich(t, "", "orders.recent", nil) // refused by the client: never reaches the server
	want := []Call{
		{EnricherID: "orders.recent", Principal: Alice, HeaderPrincipal: Alice, At: clock},
		{EnricherID: "hotels.search", Principal: Bob, HeaderPrincipal: Bob, Params: map[string]any{"city": "Paris"}, At: clock},
	}
	if diff := cmp.Diff(want, h.srv.Calls()); diff != "" {
		t.Errorf("Calls() mismatch (-want +got):\n%s", diff)
	}
	h.srv.ResetCalls()
	if got := h.srv.Calls(); len(got) != 0 {
		t.Errorf("Calls() after ResetCalls = %v, want none", got)
	}
}

func TestEmbeddedHangHonoursDeadline(t *testing.T) {
	srv := New(Options{Faults: map[string]Fault{AnyEnricher: {Hang: true}}})
	c, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL:    "http://ccs.embedded",
		HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(srv)},
		Timeout:    50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Enrich(t.Context(), ccs.EnricherRequest{Principal: Alice, EnricherID: "orders.recent"})
	if !errors.Is(err, ccs.ErrUnavailable) {
		t.Errorf("Enrich() error = %v, want %v", err, ccs.ErrUnavailable)
	}
}

// TestConcurrentUse runs many calls for both users while faults change underneath; under -race
// it checks the locking, and it checks that no answer ever carries the other user's principal.
func TestConcurrentUse(t *testing.T) {
	h := newHarness(t, Options{SigningKey: signingKey}, ccs.ClientConfig{})
	const workers, perWorker = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := range workers {
		user := []string{Alice, Bob}[w%2]
		wg.Go(func() {
			for i := range perWorker {
				e := enrichers[(w+i)%len(enrichers)]
				resp, err := h.client.Enrich(t.Context(), ccs.EnricherRequest{
					Principal: user, EnricherID: e.ID, Params: map[string]any{"query": "x", "product": "x", "city": "Tokyo"},
				})
				if err != nil {
					errs <- fmt.Errorf("%s %s: %w", user, e.ID, err)
					continue
				}
				if resp.Principal != user {
					errs <- fmt.Errorf("%s %s: envelope principal %q", user, e.ID, resp.Principal)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			h.srv.Inject(enrichers[i%len(enrichers)].ID, Fault{Status: []string{"error", "partial"}[i%2], Times: 2})
			if i%10 == 0 {
				h.srv.Clear()
			}
			_ = h.srv.Calls()
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	calls := h.srv.Calls()
	if len(calls) != workers*perWorker {
		t.Errorf("len(Calls()) = %d, want %d", len(calls), workers*perWorker)
	}
	for _, c := range calls {
		if c.Principal == "" || c.Principal != c.HeaderPrincipal {
			t.Errorf("call %+v: want the same non-empty principal in body and header", c)
		}
	}
}

func TestSetTodayMovesTheCalendar(t *testing.T) {
	// clock is 2026-03-02 09:00 UTC; alice's points expire 21 days after the calendar's today.
	cases := []struct {
		name  string
		today time.Time
		want  string
	}{
		{"not set", time.Time{}, "2026-03-23"},
		{"the clock's own day", time.Date(2026, 3, 2, 23, 59, 0, 0, time.UTC), "2026-03-23"},
		{"a day written earlier", time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC), "2026-03-20"},
		{"a later day, across a year", time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC), "2027-01-22"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{Credential: "svc"}, ccs.ClientConfig{Credential: "svc"})
			if !tc.today.IsZero() {
				h.srv.SetToday(tc.today)
			}
			got := h.mustDecode(t, "alice", "points.balance", nil).(PointsBalance)
			if got.ExpiresOn != tc.want {
				t.Errorf("ExpiresOn = %s, want %s", got.ExpiresOn, tc.want)
			}
			if calls := h.srv.Calls(); len(calls) != 1 || !calls[0].At.Equal(clock) {
				t.Errorf("call recorded at %v, want the clock's %v: only the users' calendar moves", calls, clock)
			}
		})
	}
}
