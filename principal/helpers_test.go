package principal

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	testIssuer   = "https://issuer.test"
	testAudience = "switchboard"
)

// t0 is the fixed "now" of every test; clocks move explicitly, never by sleeping.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is a manually advanced clock, safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testKeys are generated once per test binary: RSA generation is slow.
type testKeys struct {
	secret []byte
	rsa    *rsa.PrivateKey
	ec     *ecdsa.PrivateKey
	ed     ed25519.PrivateKey
}

var keys = sync.OnceValue(func() testKeys {
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	e, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	_, d, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return testKeys{secret: []byte("0123456789abcdef0123456789abcdef"), rsa: r, ec: e, ed: d}
})

func pkixPEM(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatalf("MarshalPKIXPublicKey: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// validClaims returns claims that pass every check at t0.
func validClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": testIssuer,
		"aud": testAudience,
		"sub": "alice",
		"iat": t0.Add(-time.Minute).Unix(),
		"exp": t0.Add(time.Hour).Unix(),
	}
}

// with returns a copy of validClaims with changes applied; a nil value deletes the claim.
func with(changes map[string]any) jwt.MapClaims {
	c := validClaims()
	for k, v := range changes {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

// sign signs claims with method and key, adding header fields (e.g. kid).
func sign(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("SignedString(%s): %v", method.Alg(), err)
	}
	return s
}

// unsigned builds a token with an arbitrary header and an empty signature, as an attacker
// would for alg "none".
func unsigned(t testing.TB, header map[string]any, claims jwt.MapClaims) string {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc(h) + "." + enc(c) + "."
}

// sentinels names every sentinel of the package, to report which one an error wraps.
var sentinels = map[error]string{
	ErrMissingToken:    "ErrMissingToken",
	ErrMalformed:       "ErrMalformed",
	ErrTooLong:         "ErrTooLong",
	ErrSubject:         "ErrSubject",
	ErrExpired:         "ErrExpired",
	ErrNotYetValid:     "ErrNotYetValid",
	ErrBadSignature:    "ErrBadSignature",
	ErrBadIssuer:       "ErrBadIssuer",
	ErrBadAudience:     "ErrBadAudience",
	ErrMissingClaim:    "ErrMissingClaim",
	ErrUnknownKey:      "ErrUnknownKey",
	ErrAlgorithm:       "ErrAlgorithm",
	ErrKeysUnavailable: "ErrKeysUnavailable",
	ErrWrongTurn:       "ErrWrongTurn",
	ErrMismatch:        "ErrMismatch",
	ErrConfig:          "ErrConfig",
}

// sentinelName returns the name of the one sentinel err wraps: "" for nil, "none" when it
// wraps none, and "several" when it wraps more than one (the package promises exactly one).
func sentinelName(err error) string {
	if err == nil {
		return ""
	}
	name := "none"
	n := 0
	for s, sName := range sentinels {
		if errors.Is(err, s) {
			name = sName
			n++
		}
	}
	if n > 1 {
		return "several"
	}
	return name
}

// outcome is what a verification produced, in a form cmp.Diff can report.
type outcome struct {
	Principal Principal
	Err       string // sentinel name
}

func outcomeOf(p Principal, err error) outcome { return outcome{Principal: p, Err: sentinelName(err)} }
