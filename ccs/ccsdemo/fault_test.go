package ccsdemo

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/ccs"
)

var signingKey = []byte("demo-signing-key")

func TestInjectedFaults(t *testing.T) {
	tests := []struct {
		name    string
		fault   Fault
		want    ccs.Verdict
		wantErr error
		check   func(t *testing.T, resp *ccs.RawResponse)
	}{
		{name: "none", want: ccs.Verdict{Kind: ccs.Use, Reason: ccs.ReasonOK}},
		{name: "status error", fault: Fault{Status: "error"}, want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonStatusError},
			check: func(t *testing.T, resp *ccs.RawResponse) {
				if string(resp.Payload) != "null" {
					t.Errorf("payload = %s, want null", resp.Payload)
				}
				if len(resp.Partial) != 1 || !resp.Partial[0].Critical || resp.Partial[0].Source != "loyalty-ledger" {
					t.Errorf("partial = %+v, want one critical loyalty-ledger source", resp.Partial)
				}
			}},
		{name: "status partial", fault: Fault{Status: "partial"}, want: ccs.Verdict{Kind: ccs.UseWithCaveat, Reason: ccs.ReasonPartial},
			check: func(t *testing.T, resp *ccs.RawResponse) {
				if len(resp.Partial) != 1 || resp.Partial[0].Critical || !strings.Contains(resp.Partial[0].Reason, "upstream 503") {
					t.Errorf("partial = %+v, want one non-critical upstream 503", resp.Partial)
				}
				if !strings.Contains(string(resp.Payload), "12450") {
					t.Errorf("partial payload = %s, want alice's balance kept", resp.Payload)
				}
			}},
		{name: "unknown status passes through", fault: Fault{Status: "degraded"}, want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonUnknownStatus}},
		{name: "wrong principal leaks bob's data", fault: Fault{WrongPrincipal: true}, want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonPrincipalMismatch},
			check: func(t *testing.T, resp *ccs.RawResponse) {
				if resp.Principal != Bob || !strings.Contains(string(resp.Payload), "48900") {
					t.Errorf("envelope = %s %s, want bob's balance under principal bob", resp.Principal, resp.Payload)
				}
			}},
		{name: "major bump", fault: Fault{MajorBump: true}, want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonVersionMismatch}},
		{name: "bad signature", fault: Fault{BadSignature: true}, want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonBadSignature}},
		{name: "latency", fault: Fault{Latency: 20 * time.Millisecond}, want: ccs.Verdict{Kind: ccs.Use, Reason: ccs.ReasonOK}},
		{name: "latency past the client timeout", fault: Fault{Latency: time.Minute}, wantErr: ccs.ErrUnavailable},
		{name: "hang", fault: Fault{Hang: true}, wantErr: ccs.ErrUnavailable},
		{name: "http 503", fault: Fault{HTTPStatus: 503}, wantErr: ccs.ErrUnavailable},
		{name: "http 403", fault: Fault{HTTPStatus: 403}, wantErr: ccs.ErrPrincipalRejected},
		{name: "http 400", fault: Fault{HTTPStatus: 400}, wantErr: ccs.ErrMissingPrincipal},
		{name: "error with wrong principal is still a mismatch", fault: Fault{Status: "error", WrongPrincipal: true},
			want: ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonPrincipalMismatch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only the case that waits out the client's timeout gets a short one: on a loaded
			// machine a plain call may take longer than 300 ms.
			timeout := 10 * time.Second
			if tt.fault.Latency > time.Second || tt.fault.Hang {
				timeout = 300 * time.Millisecond
			}
			h := newHarness(t, Options{SigningKey: signingKey}, ccs.ClientConfig{Timeout: timeout})
			h.srv.Inject("points.balance", tt.fault)

			start := time.Now()
			resp, err := h.enrich(t, Alice, "points.balance", nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Enrich() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if elapsed := time.Since(start); elapsed < tt.fault.Latency {
				t.Errorf("Enrich() took %v, want at least the injected %v", elapsed, tt.fault.Latency)
			}
			got := ccs.Check(resp, principalOf(Alice), ccs.CheckOptions{SigningKey: signingKey})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, resp)
			}

			// The fault is scoped to its enricher.
			other, err := h.enrich(t, Alice, "rewards.tier", nil)
			if err != nil {
				t.Fatalf("Enrich(other enricher) error = %v", err)
			}
			if v := ccs.Check(other, principalOf(Alice), ccs.CheckOptions{SigningKey: signingKey}); v.Kind != ccs.Use {
				t.Errorf("Check(other enricher) = %+v, want Use", v)
			}
		})
	}
}

// verdicts calls id n times as alice and returns the reasons.
func verdicts(t *testing.T, h *harness, id string, n int) []ccs.Reason {
	t.Helper()
	var out []ccs.Reason
	for range n {
		resp, err := h.enrich(t, Alice, id, nil)
		if err != nil {
			t.Fatalf("Enrich() error = %v", err)
		}
		out = append(out, ccs.Check(resp, principalOf(Alice), ccs.CheckOptions{}).Reason)
	}
	return out
}

func TestFaultLifecycle(t *testing.T) {
	ok, se := ccs.ReasonOK, ccs.ReasonStatusError
	t.Run("times", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		h.srv.Inject("orders.recent", Fault{Status: "error", Times: 2})
		if diff := cmp.Diff([]ccs.Reason{se, se, ok, ok}, verdicts(t, h, "orders.recent", 4)); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("always until cleared", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		h.srv.Inject("orders.recent", Fault{Status: "error"})
		got := verdicts(t, h, "orders.recent", 3)
		h.srv.Clear()
		got = append(got, verdicts(t, h, "orders.recent", 1)...)
		if diff := cmp.Diff([]ccs.Reason{se, se, se, ok}, got); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("inject replaces", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		h.srv.Inject("orders.recent", Fault{Status: "error"})
		h.srv.Inject("orders.recent", Fault{Status: "partial"})
		if diff := cmp.Diff([]ccs.Reason{ccs.ReasonPartial}, verdicts(t, h, "orders.recent", 1)); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("any enricher yields to a specific fault", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		h.srv.Inject(AnyEnricher, Fault{Status: "error"})
		h.srv.Inject("orders.recent", Fault{MajorBump: true})
		got := append(verdicts(t, h, "rewards.tier", 1), verdicts(t, h, "orders.recent", 1)...)
		if diff := cmp.Diff([]ccs.Reason{se, ccs.ReasonVersionMismatch}, got); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("one principal's faults leave others alone", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		h.srv.InjectFor(Bob, AnyEnricher, Fault{Status: "error"})
		h.srv.Inject("orders.recent", Fault{Status: "partial"})
		if diff := cmp.Diff([]ccs.Reason{ok, ccs.ReasonPartial}, append(verdicts(t, h, "rewards.tier", 1), verdicts(t, h, "orders.recent", 1)...)); diff != "" {
			t.Errorf("alice's reasons with a fault for bob (-want +got):\n%s", diff)
		}
		resp, err := h.enrich(t, Bob, "orders.recent", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ccs.Check(resp, principalOf(Bob), ccs.CheckOptions{}).Reason; got != se {
			t.Errorf("bob's reason = %v, want %v: his own fault wins over everyone's", got, se)
		}
		h.srv.ClearFor(Bob)
		resp, err = h.enrich(t, Bob, "rewards.tier", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ccs.Check(resp, principalOf(Bob), ccs.CheckOptions{}).Reason; got != ok {
			t.Errorf("bob's reason after ClearFor = %v, want ok", got)
		}
		if diff := cmp.Diff([]ccs.Reason{ccs.ReasonPartial}, verdicts(t, h, "orders.recent", 1)); diff != "" {
			t.Errorf("ClearFor(bob) touched the fault for everyone (-want +got):\n%s", diff)
		}
	})
	t.Run("from options", func(t *testing.T) {
		h := newHarness(t, Options{Faults: map[string]Fault{"trips.upcoming": {Status: "error", Times: 1}}}, ccs.ClientConfig{})
		if diff := cmp.Diff([]ccs.Reason{se, ok}, verdicts(t, h, "trips.upcoming", 2)); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestHeaderFaults(t *testing.T) {
	send := func(t *testing.T, h *harness, fault string) (*ccs.RawResponse, error) {
		t.Helper()
		c, err := ccs.NewClient(ccs.ClientConfig{BaseURL: h.url, HTTPClient: headerClient(fault)})
		if err != nil {
			t.Fatal(err)
		}
		return c.Enrich(t.Context(), ccs.EnricherRequest{Principal: Bob, EnricherID: "account.profile"})
	}
	t.Run("honoured when allowed", func(t *testing.T) {
		h := newHarness(t, Options{AllowHeaderFaults: true}, ccs.ClientConfig{})
		h.srv.Inject("account.profile", Fault{Status: "partial", Times: 1})
		resp, err := send(t, h, `{"status":"error"}`)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != ccs.StatusError {
			t.Errorf("status = %q, want error from the header", resp.Status)
		}
		// The header fault did not use up the injected one.
		resp, err = h.enrich(t, Bob, "account.profile", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != ccs.StatusPartial {
			t.Errorf("status = %q, want the injected partial", resp.Status)
		}
	})
	t.Run("ignored when not allowed", func(t *testing.T) {
		h := newHarness(t, Options{}, ccs.ClientConfig{})
		resp, err := send(t, h, `{"status":"error"}`)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != ccs.StatusOK {
			t.Errorf("status = %q, want ok", resp.Status)
		}
	})
	t.Run("invalid is rejected", func(t *testing.T) {
		h := newHarness(t, Options{AllowHeaderFaults: true}, ccs.ClientConfig{})
		_, err := send(t, h, `{"stauts":"error"}`)
		var he *ccs.HTTPError
		if !errors.As(err, &he) || he.StatusCode != 400 || he.Code != "bad_fault" {
			t.Errorf("Enrich() error = %v, want 400 bad_fault", err)
		}
	})
}

func TestParseFault(t *testing.T) {
	tests := []struct {
		in      string
		want    Fault
		wantErr bool
	}{
		{"error", Fault{Status: "error"}, false},
		{" wrong_principal ", Fault{WrongPrincipal: true}, false},
		{"unavailable", Fault{HTTPStatus: 503}, false},
		{`{"latency":"2s","status":"partial"}`, Fault{Latency: 2 * time.Second, Status: "partial"}, false},
		{"boom", Fault{}, true},
		{"", Fault{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFault(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseFault(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseFault(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFaultJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Fault
		wantErr bool
	}{
		{`{"status":"partial","latency":"250ms","times":2}`, Fault{Status: "partial", Latency: 250 * time.Millisecond, Times: 2}, false},
		{`{"wrong_principal":true,"bad_signature":true,"major_bump":true,"hang":true,"http_status":503}`,
			Fault{WrongPrincipal: true, BadSignature: true, MajorBump: true, Hang: true, HTTPStatus: 503}, false},
		{`{"latency":1000000}`, Fault{Latency: time.Millisecond}, false},
		{`{}`, Fault{}, false},
		{`"partial"`, Fault{Status: "partial"}, false},
		{`"hang"`, Fault{Hang: true}, false},
		{`"explode"`, Fault{}, true},
		{`{"latency":"soon"}`, Fault{}, true},
		{`{"latency":"-1s"}`, Fault{}, true},
		{`{"http_status":1000}`, Fault{}, true},
		{`{"statu":"error"}`, Fault{}, true},
		{`[]`, Fault{}, true},
	}
	// A latency that is no duration is said in the words the config's reader uses, not in
	// time.ParseDuration's ("time: invalid duration").
	var f Fault
	if err := json.Unmarshal([]byte(`{"latency":"soon"}`), &f); err == nil || !strings.Contains(err.Error(), `latency "soon" is not a duration (like 250ms or 2s)`) {
		t.Errorf("Unmarshal of a latency of soon: error = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got Fault
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal() error = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal() mismatch (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back Fault
			if err := json.Unmarshal(data, &back); err != nil || back != got {
				t.Errorf("round trip of %s = %+v, %v; want %+v", data, back, err, got)
			}
		})
	}
}

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"error", `{"status":"partial","latency":"250ms","times":2}`, `{"latency":1e30}`, `{"hang":true,"http_status":503}`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFault(s)
		if err != nil {
			return
		}
		if got.Latency < 0 || got.HTTPStatus < 0 || got.HTTPStatus > 599 {
			t.Fatalf("ParseFault(%q) = %+v, out of range", s, got)
		}
		data, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("Marshal(%+v) = %v", got, err)
		}
		back, err := ParseFault(string(data))
		if err != nil || back != got {
			t.Fatalf("round trip of %s = %+v, %v; want %+v", data, back, err, got)
		}
	})
}

// Every error reading a fault wraps ErrFault and names what a fault may be.
func TestParseFaultErrors(t *testing.T) {
	for _, s := range []string{"slow", `{"delay":"1s"}`, `{"latency":"soon"}`, `{"latency":-1}`} {
		_, err := ParseFault(s)
		if !errors.Is(err, ErrFault) {
			t.Errorf("ParseFault(%q) = %v, want an error wrapping ErrFault", s, err)
		}
	}
	if _, err := ParseFault("slow"); err == nil || !strings.Contains(err.Error(), "hang") {
		t.Errorf("ParseFault(slow) = %v, want the fault words listed", err)
	}
}
