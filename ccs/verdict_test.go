package ccs

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/principal"
)

func envelope(mod func(*RawResponse)) *RawResponse {
	r := &RawResponse{
		Status:     StatusOK,
		Principal:  "alice",
		DomainType: "offer_list",
		EnricherID: "offers.search",
		Version:    "1.2.0",
		Payload:    json.RawMessage(`{"offers":[]}`),
	}
	if mod != nil {
		mod(r)
	}
	return r
}

func signed(key []byte, mod func(*RawResponse)) *RawResponse {
	r := envelope(mod)
	sig, err := Sign(r, key)
	if err != nil {
		panic(err)
	}
	r.Signature = sig
	return r
}

func TestCheck(t *testing.T) {
	key := []byte("test-key")
	tests := []struct {
		name     string
		resp     *RawResponse
		invoking principal.Principal
		opts     CheckOptions
		want     Verdict
	}{
		{"ok", envelope(nil), "alice", CheckOptions{}, Verdict{Use, ReasonOK}},
		{"partial ignores partial entries", envelope(func(r *RawResponse) {
			r.Status = StatusPartial
			r.Partial = []FailedSource{{Source: "pricing", Critical: true, Reason: "x"}}
		}), "alice", CheckOptions{}, Verdict{UseWithCaveat, ReasonPartial}},
		{"ok ignores critical partial entries", envelope(func(r *RawResponse) {
			r.Partial = []FailedSource{{Source: "pricing", Critical: true}}
		}), "alice", CheckOptions{}, Verdict{Use, ReasonOK}},
		{"error", envelope(func(r *RawResponse) { r.Status = StatusError }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonStatusError}},
		{"unknown status", envelope(func(r *RawResponse) { r.Status = "OK" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonUnknownStatus}},
		{"empty status", envelope(func(r *RawResponse) { r.Status = "" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonUnknownStatus}},
		{"principal mismatch", envelope(nil), "bob", CheckOptions{}, Verdict{Unavailable, ReasonPrincipalMismatch}},
		{"principal differs by case", envelope(func(r *RawResponse) { r.Principal = "Alice" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonPrincipalMismatch}},
		{"empty invoking principal", envelope(func(r *RawResponse) { r.Principal = "" }), "", CheckOptions{}, Verdict{Unavailable, ReasonPrincipalMismatch}},
		{"mismatch wins over error status", envelope(func(r *RawResponse) { r.Status = StatusError }), "bob", CheckOptions{}, Verdict{Unavailable, ReasonPrincipalMismatch}},
		{"major mismatch", envelope(func(r *RawResponse) { r.Version = "2.0.0" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonVersionMismatch}},
		{"minor skew tolerated", envelope(func(r *RawResponse) { r.Version = "1.99.3-rc.1+build.5" }), "alice", CheckOptions{}, Verdict{Use, ReasonOK}},
		{"supported major per domain type", envelope(func(r *RawResponse) { r.Version = "2.1.0" }), "alice",
			CheckOptions{SupportedMajor: map[string]int{"offer_list": 2}}, Verdict{Use, ReasonOK}},
		{"other domain type keeps default", envelope(func(r *RawResponse) { r.Version = "2.1.0" }), "alice",
			CheckOptions{SupportedMajor: map[string]int{"coupon_list": 2}}, Verdict{Unavailable, ReasonVersionMismatch}},
		{"unparseable version", envelope(func(r *RawResponse) { r.Version = "v1.2" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonMalformed}},
		{"empty version", envelope(func(r *RawResponse) { r.Version = "" }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonMalformed}},
		{"version before status", envelope(func(r *RawResponse) { r.Version = "3.0.0"; r.Status = StatusError }), "alice", CheckOptions{}, Verdict{Unavailable, ReasonVersionMismatch}},
		{"nil envelope", nil, "alice", CheckOptions{}, Verdict{Unavailable, ReasonMalformed}},
		{"signed ok", signed(key, nil), "alice", CheckOptions{SigningKey: key}, Verdict{Use, ReasonOK}},
		{"missing signature", envelope(nil), "alice", CheckOptions{SigningKey: key}, Verdict{Unavailable, ReasonBadSignature}},
		{"signature under other key", signed([]byte("other"), nil), "alice", CheckOptions{SigningKey: key}, Verdict{Unavailable, ReasonBadSignature}},
		{"signature checked before principal", signed([]byte("other"), nil), "bob", CheckOptions{SigningKey: key}, Verdict{Unavailable, ReasonBadSignature}},
		{"signature ignored without key", signed([]byte("other"), nil), "alice", CheckOptions{}, Verdict{Use, ReasonOK}},
		{"signed mismatch still mismatch", signed(key, nil), "bob", CheckOptions{SigningKey: key}, Verdict{Unavailable, ReasonPrincipalMismatch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.resp, tt.invoking, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
			if got.Usable() != (got.Kind == Use || got.Kind == UseWithCaveat) {
				t.Errorf("Usable() = %v for %v", got.Usable(), got.Kind)
			}
		})
	}
}

func TestParseMajor(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"1.0.0", 1, false},
		{"0.3.12", 0, false},
		{"12.0.1-alpha.1", 12, false},
		{"1.2.3+sha.abc-1", 1, false},
		{"1.2.3-rc-1+b", 1, false},
		{"1.2", 0, true},
		{"1.2.3.4", 0, true},
		{"01.2.3", 0, true},
		{"v1.2.3", 0, true},
		{"1.2.3-", 0, true},
		{"1.2.3+", 0, true},
		{"1..3", 0, true},
		{"1.2.3-a..b", 0, true},
		{"-1.2.3", 0, true},
		{"1.2.x", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseMajor(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseMajor(%q) = %d, %v; want %d, err=%v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
