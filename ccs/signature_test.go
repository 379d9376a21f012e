package ccs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonical(t *testing.T) {
	r := envelope(func(r *RawResponse) {
		r.Payload = json.RawMessage("{ \"q\" : \"a<b & c\",\n \"n\": [1, 2] }")
		r.Signature = "ignored"
		r.CacheMeta = CacheMeta{Cached: true, TTL: "5m"}
	})
	got, err := Canonical(r)
	if err != nil {
		t.Fatalf("Canonical() error = %v", err)
	}
	want := `{"status":"ok","principal":"alice","domain_type":"offer_list","enricher_id":"offers.search","version":"1.2.0",` +
		`"payload":{"q":"a<b & c","n":[1,2]},"cache_meta":{"cached":true,"cacheable":false,"ttl":"5m"}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Canonical() mismatch (-want +got):\n%s", diff)
	}

	empty := envelope(func(r *RawResponse) { r.Payload = nil })
	got, err = Canonical(empty)
	if err != nil {
		t.Fatalf("Canonical(no payload) error = %v", err)
	}
	if want := `"payload":null`; !strings.Contains(string(got), want) {
		t.Errorf("Canonical(no payload) = %s, want it to contain %s", got, want)
	}
}

func TestSignatureRoundTrip(t *testing.T) {
	key := []byte("k1")
	r := signed(key, func(r *RawResponse) {
		r.Partial = []FailedSource{{Source: "s", Reason: "r"}}
	})
	if err := VerifySignature(r, key); err != nil {
		t.Fatalf("VerifySignature(signed) = %v, want nil", err)
	}

	// Through the wire and back, with the payload re-indented: still valid.
	wire, err := json.MarshalIndent(r, "", "   ")
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeEnvelope(wire)
	if err != nil {
		t.Fatalf("DecodeEnvelope() error = %v", err)
	}
	back.Payload = json.RawMessage("\n{ \"offers\" : [ ] }\n")
	if err := VerifySignature(back, key); err != nil {
		t.Errorf("VerifySignature(after wire) = %v, want nil", err)
	}
}

func TestSignatureTamper(t *testing.T) {
	key := []byte("k1")
	tests := []struct {
		name   string
		tamper func(*RawResponse)
	}{
		{"status", func(r *RawResponse) { r.Status = StatusOK + "x" }},
		{"principal", func(r *RawResponse) { r.Principal = "bob" }},
		{"domain type", func(r *RawResponse) { r.DomainType = "coupon_list" }},
		{"enricher", func(r *RawResponse) { r.EnricherID = "coupons.list" }},
		{"version", func(r *RawResponse) { r.Version = "1.2.1" }},
		{"payload", func(r *RawResponse) { r.Payload = json.RawMessage(`{"offers":[1]}`) }},
		{"payload key order", func(r *RawResponse) { r.Payload = json.RawMessage(`{"b":1,"a":2}`) }},
		{"partial", func(r *RawResponse) { r.Partial = []FailedSource{{Source: "x"}} }},
		{"cache meta", func(r *RawResponse) { r.CacheMeta.Cached = true }},
		{"signature flipped", func(r *RawResponse) { r.Signature = flipHex(r.Signature) }},
		{"signature not hex", func(r *RawResponse) { r.Signature = "zz" }},
		{"signature missing", func(r *RawResponse) { r.Signature = "" }},
		{"payload invalid json", func(r *RawResponse) { r.Payload = json.RawMessage(`{`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := signed(key, func(r *RawResponse) { r.Payload = json.RawMessage(`{"a":2,"b":1}`) })
			tt.tamper(r)
			if err := VerifySignature(r, key); !errors.Is(err, ErrBadSignature) {
				t.Errorf("VerifySignature(tampered) = %v, want %v", err, ErrBadSignature)
			}
		})
	}
}

func TestSignEmptyKey(t *testing.T) {
	if _, err := Sign(envelope(nil), nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Sign(nil key) error = %v, want %v", err, ErrInvalidConfig)
	}
	if err := VerifySignature(envelope(nil), nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("VerifySignature(nil key) error = %v, want %v", err, ErrInvalidConfig)
	}
}

func flipHex(s string) string {
	b := []byte(s)
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	return string(b)
}
