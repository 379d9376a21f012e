package principal

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// FuzzVerify feeds arbitrary token strings to an HS256 and an EdDSA verifier. Neither may
// panic, every rejection must wrap exactly one sentinel with a safe Reason, and an accepted
// token must carry a signature that independently verifies over its first two segments with
// the configured key: a fuzzer without the key can never get a token accepted.
func FuzzVerify(f *testing.F) {
	k := keys()
	now := func() time.Time { return t0 }
	hs, err := NewVerifier(VerifierConfig{Issuer: testIssuer, Audience: testAudience, HS256Secret: k.secret, Now: now})
	if err != nil {
		f.Fatal(err)
	}
	edPub := k.ed.Public().(ed25519.PublicKey)
	ed, err := NewVerifier(VerifierConfig{Issuer: testIssuer, Audience: testAudience, PublicKeyPEM: pkixPEM(f, edPub), Now: now})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sign(f, jwt.SigningMethodHS256, k.secret, validClaims(), nil))
	f.Add(sign(f, jwt.SigningMethodEdDSA, k.ed, validClaims(), nil))
	f.Add(sign(f, jwt.SigningMethodHS256, k.secret, with(map[string]any{"sub": nil}), nil))
	f.Add(unsigned(f, map[string]any{"alg": "none"}, validClaims()))
	// Dates as strings of digits, which json.Number would take for numbers.
	for _, claim := range []string{"exp", "nbf", "iat", "EXP"} {
		date := strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)
		if claim != "exp" && claim != "EXP" {
			date = strconv.FormatInt(t0.Add(-time.Hour).Unix(), 10)
		}
		f.Add(sign(f, jwt.SigningMethodHS256, k.secret, with(map[string]any{claim: date}), nil))
		f.Add(sign(f, jwt.SigningMethodEdDSA, k.ed, with(map[string]any{claim: date}), nil))
	}
	f.Add("eyJhbGciOiJIUzI1NiJ9.e30.")
	f.Add("a.b.c")
	f.Add("")

	f.Fuzz(func(t *testing.T, token string) {
		check := func(v *Verifier, valid func(signed, sig []byte) bool) {
			p, err := v.Verify(context.Background(), token)
			if err != nil {
				if name := sentinelName(err); name == "none" || name == "several" {
					t.Fatalf("Verify() error %v wraps %s of our sentinels, want exactly one", err, name)
				}
				if r := Reason(err); len(token) >= 8 && strings.Contains(r, token) {
					t.Fatalf("Reason() = %q contains the token", r)
				}
				return
			}
			if p == "" {
				t.Fatal("Verify() accepted a token with an empty principal")
			}
			parts := strings.Split(token, ".")
			if len(parts) != 3 {
				t.Fatalf("Verify() accepted a token with %d segments", len(parts))
			}
			sig, err := base64.RawURLEncoding.DecodeString(parts[2])
			if err != nil || !valid([]byte(parts[0]+"."+parts[1]), sig) {
				t.Fatalf("Verify() accepted a token whose signature does not verify: %q", token)
			}
			// RFC 7519: exp, nbf and iat are NumericDates, JSON numbers, in whatever case
			// the decoder would match them.
			payload, err := base64.RawURLEncoding.DecodeString(parts[1])
			if err != nil {
				t.Fatalf("Verify() accepted a token whose payload is not base64url: %q", token)
			}
			var claims map[string]json.RawMessage
			if err := json.Unmarshal(payload, &claims); err != nil {
				t.Fatalf("Verify() accepted a token whose payload is not a JSON object: %q", payload)
			}
			for name, v := range claims {
				for _, dated := range []string{"exp", "nbf", "iat"} {
					var n float64
					if strings.EqualFold(name, dated) && json.Unmarshal(v, &n) != nil {
						t.Fatalf("Verify() accepted a token whose %s is %s, not a number", name, v)
					}
				}
			}
		}
		check(hs, func(signed, sig []byte) bool {
			mac := hmac.New(sha256.New, k.secret)
			mac.Write(signed)
			return hmac.Equal(sig, mac.Sum(nil))
		})
		check(ed, func(signed, sig []byte) bool { return ed25519.Verify(edPub, signed, sig) })
	})
}

// FuzzBearer checks that Bearer never panics, classifies every failure with one of its two
// sentinels, and that what it returns is a single token68 that round-trips.
func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  eyJ.e30.c2ln", "Basic abc", "Bearer", "", "Bearer a b", "Bearer ==", " Bearer x= "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, err := Bearer(header)
		if err != nil {
			if !errors.Is(err, ErrMissingToken) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("Bearer(%q) = %v, want ErrMissingToken or ErrMalformed", header, err)
			}
			if tok != "" {
				t.Fatalf("Bearer(%q) = %q with error %v, want no token", header, tok, err)
			}
			return
		}
		if tok == "" || !isToken68(tok) || !strings.Contains(header, tok) {
			t.Fatalf("Bearer(%q) = %q, want a token68 taken from the header", header, tok)
		}
		again, err := Bearer("Bearer " + tok)
		if err != nil || again != tok {
			t.Fatalf("Bearer(\"Bearer \"+%q) = %q, %v, want the same token", tok, again, err)
		}
	})
}
