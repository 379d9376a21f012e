package ccs

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Without a signing key, the envelope's own JSON is all there is to trust: a key given twice
// (in any case) could show one user to a reader and another to the check.
func TestDecodeEnvelopeIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       error
	}{
		{"duplicate principal", `{"status":"ok","principal":"bob","principal":"alice","version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"duplicate equal principals", `{"status":"ok","principal":"alice","principal":"alice","version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"duplicate principal after another duplicate", `{"status":"ok","status":"ok","principal":"bob","principal":"alice","version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"case-variant principal", `{"status":"ok","principal":"bob","PRINCIPAL":"alice","version":"1.0.0"}`, ErrEnvelopePrincipal},
		{"duplicate status", `{"status":"error","principal":"alice","version":"1.0.0","status":"ok"}`, ErrMalformed},
		{"case-variant status", `{"Status":"error","status":"ok","principal":"alice","version":"1.0.0"}`, ErrMalformed},
		{"status again with a long s", `{"status":"error","principal":"alice","version":"1.0.0","\u017ftatus":"ok"}`, ErrMalformed},
		{"version again with a long s", `{"status":"ok","principal":"alice","version":"2.0.0","ver\u017fion":"1.0.0"}`, ErrMalformed},
		{"signature again with a long s", `{"status":"ok","principal":"alice","version":"1.0.0","signature":"a","\u017fignature":"b"}`, ErrMalformed},
		{"status only with a long s", `{"\u017ftatus":"ok","principal":"alice","version":"1.0.0"}`, nil},
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

// foldKey must put two keys together exactly when the decoder would match them to the same
// field, which it decides with strings.EqualFold.
func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if foldKey(string(r)) != foldKey(string(f)) {
				t.Fatalf("foldKey(%q) = %q, foldKey(%q) = %q, want equal: strings.EqualFold says they match", r, foldKey(string(r)), f, foldKey(string(f)))
			}
		}
	}
	for _, pair := range [][2]string{{"status", "statu"}, {"status", "ﬆatus"}, {"principal", "prıncipal"}, {"version", "versıon"}} {
		if got, want := foldKey(pair[0]) == foldKey(pair[1]), strings.EqualFold(pair[0], pair[1]); got != want {
			t.Errorf("foldKey(%q) == foldKey(%q) is %v, want %v as strings.EqualFold", pair[0], pair[1], got, want)
		}
	}
}
