package ccs

import (
	"errors"
	"testing"
)

// Without a signing key, the envelope's own JSON is all there is to trust: a key given twice
// (in any case) could show one user to a reader and another to the check.
func TestDecodeEnvelopeIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       error
	}{
		{"duplicate principal", `{"status":"ok","principal":"bob","principal":"alice","version":"1.0.0"}`, ErrMalformed},
		{"case-variant principal", `{"status":"ok","principal":"bob","PRINCIPAL":"alice","version":"1.0.0"}`, ErrMalformed},
		{"duplicate status", `{"status":"error","principal":"alice","version":"1.0.0","status":"ok"}`, ErrMalformed},
		{"case-variant status", `{"Status":"error","status":"ok","principal":"alice","version":"1.0.0"}`, ErrMalformed},
		{"principal only in another case", `{"status":"ok","PRINCIPAL":"alice","version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"principal a number", `{"status":"ok","principal":7,"version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"principal an array", `{"status":"ok","principal":["alice"],"version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"principal an object", `{"status":"ok","principal":{"sub":"alice"},"version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"principal a bool", `{"status":"ok","principal":true,"version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"principal null", `{"status":"ok","principal":null,"version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"nested duplicates are the payload's business", `{"status":"ok","principal":"alice","version":"1.0.0","payload":{"a":1,"a":2}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeEnvelope([]byte(tc.body))
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("DecodeEnvelope() = %v, want %v", err, tc.want)
			}
		})
	}
}
