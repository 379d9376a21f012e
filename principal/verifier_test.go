package principal

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// newTestVerifier returns a verifier for one static key source at the fixed clock t0.
func newTestVerifier(t *testing.T, cfg VerifierConfig) *Verifier {
	t.Helper()
	cfg.Issuer, cfg.Audience = testIssuer, testAudience
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return t0 }
	}
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatalf("NewVerifier() = %v", err)
	}
	return v
}

func TestVerifyAcceptsEachAlgorithm(t *testing.T) {
	k := keys()
	tests := []struct {
		name   string
		cfg    VerifierConfig
		method jwt.SigningMethod
		key    any
		claims jwt.MapClaims
		want   Principal
	}{
		{"HS256", VerifierConfig{HS256Secret: k.secret}, jwt.SigningMethodHS256, k.secret, validClaims(), "alice"},
		{"RS256", VerifierConfig{PublicKeyPEM: pkixPEM(t, &k.rsa.PublicKey)}, jwt.SigningMethodRS256, k.rsa, validClaims(), "alice"},
		{"ES256", VerifierConfig{PublicKeyPEM: pkixPEM(t, &k.ec.PublicKey)}, jwt.SigningMethodES256, k.ec, validClaims(), "alice"},
		{"EdDSA", VerifierConfig{PublicKeyPEM: pkixPEM(t, k.ed.Public())}, jwt.SigningMethodEdDSA, k.ed, validClaims(), "alice"},
		{"RS256 from PKCS#1 PEM", VerifierConfig{PublicKeyPEM: pem.EncodeToMemory(&pem.Block{
			Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.rsa.PublicKey),
		})}, jwt.SigningMethodRS256, k.rsa, validClaims(), "alice"},
		{"expired within leeway", VerifierConfig{HS256Secret: k.secret}, jwt.SigningMethodHS256, k.secret,
			with(map[string]any{"exp": t0.Add(-20 * time.Second).Unix()}), "alice"},
		{"nbf within leeway", VerifierConfig{HS256Secret: k.secret}, jwt.SigningMethodHS256, k.secret,
			with(map[string]any{"nbf": t0.Add(20 * time.Second).Unix()}), "alice"},
		{"aud list containing ours", VerifierConfig{HS256Secret: k.secret}, jwt.SigningMethodHS256, k.secret,
			with(map[string]any{"aud": []string{"other", testAudience}}), "alice"},
		{"no iat", VerifierConfig{HS256Secret: k.secret}, jwt.SigningMethodHS256, k.secret,
			with(map[string]any{"iat": nil}), "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newTestVerifier(t, tt.cfg)
			tok := sign(t, tt.method, tt.key, tt.claims, nil)
			p, err := v.Verify(t.Context(), tok)
			if diff := cmp.Diff(outcome{Principal: tt.want}, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	k := keys()
	otherEC, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaPEM := pkixPEM(t, &k.rsa.PublicKey)
	hs := VerifierConfig{HS256Secret: k.secret}
	rs := VerifierConfig{PublicKeyPEM: rsaPEM}
	es := VerifierConfig{PublicKeyPEM: pkixPEM(t, &k.ec.PublicKey)}
	ed := VerifierConfig{PublicKeyPEM: pkixPEM(t, k.ed.Public())}
	hsSign := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, k.secret, c, nil) }

	valid := hsSign(validClaims())
	parts := strings.Split(valid, ".")
	forged := strings.Split(hsSign(with(map[string]any{"sub": "mallory"})), ".")

	tests := []struct {
		name  string
		cfg   VerifierConfig
		token string
		want  string
	}{
		{"empty", hs, "", "ErrMissingToken"},
		{"garbage", hs, "not-a-token", "ErrMalformed"},
		{"three garbage segments", hs, "a.b.c", "ErrMalformed"},
		{"header not JSON", hs, "eyJub3Q.eyJ9.c2ln", "ErrMalformed"},
		{"oversized", hs, strings.Repeat("a", maxTokenLen+1), "ErrTooLong"},
		{"oversized by many claims", hs, hsSign(with(map[string]any{"groups": strings.Repeat("g", maxTokenLen)})), "ErrTooLong"},
		{"oversized by a 10 KB sub", hs, hsSign(with(map[string]any{"sub": strings.Repeat("a", 10<<10)})), "ErrSubject"},
		{"sub over the principal bound", hs, hsSign(with(map[string]any{"sub": strings.Repeat("a", maxSubjectLen+1)})), "ErrSubject"},
		{"alg none to HS256 verifier", hs, unsigned(t, map[string]any{"alg": "none", "typ": "JWT"}, validClaims()), "ErrAlgorithm"},
		{"alg none to RS256 verifier", rs, unsigned(t, map[string]any{"alg": "none"}, validClaims()), "ErrAlgorithm"},
		{"no alg", hs, unsigned(t, map[string]any{"typ": "JWT"}, validClaims()), "ErrAlgorithm"},
		{"unknown alg", hs, unsigned(t, map[string]any{"alg": "HS999"}, validClaims()), "ErrAlgorithm"},
		// Algorithm confusion: the public PEM is public, so an attacker can HMAC with it.
		{"HS256 keyed with the RSA public PEM", rs, sign(t, jwt.SigningMethodHS256, rsaPEM, validClaims(), nil), "ErrAlgorithm"},
		{"ES256 token to RS256 verifier", rs, sign(t, jwt.SigningMethodES256, k.ec, validClaims(), nil), "ErrAlgorithm"},
		{"RS512 token to RS256 verifier", rs, sign(t, jwt.SigningMethodRS512, k.rsa, validClaims(), nil), "ErrAlgorithm"},
		{"HS512 token to HS256 verifier", hs, sign(t, jwt.SigningMethodHS512, k.secret, validClaims(), nil), "ErrAlgorithm"},
		{"other HS256 secret", hs, sign(t, jwt.SigningMethodHS256, []byte("another secret of thirty-two b.."), validClaims(), nil), "ErrBadSignature"},
		{"other P-256 key", es, sign(t, jwt.SigningMethodES256, otherEC, validClaims(), nil), "ErrBadSignature"},
		{"tampered payload", hs, parts[0] + "." + forged[1] + "." + parts[2], "ErrBadSignature"},
		{"signature stripped", hs, parts[0] + "." + parts[1] + ".", "ErrBadSignature"},
		{"expired beyond leeway", hs, hsSign(with(map[string]any{"exp": t0.Add(-time.Minute).Unix()})), "ErrExpired"},
		{"nbf beyond leeway", hs, hsSign(with(map[string]any{"nbf": t0.Add(2 * time.Minute).Unix()})), "ErrNotYetValid"},
		{"iat in the future", hs, hsSign(with(map[string]any{"iat": t0.Add(2 * time.Minute).Unix()})), "ErrNotYetValid"},
		{"wrong iss", hs, hsSign(with(map[string]any{"iss": "https://evil.test"})), "ErrBadIssuer"},
		{"wrong aud", hs, hsSign(with(map[string]any{"aud": "other-service"})), "ErrBadAudience"},
		{"missing sub", hs, hsSign(with(map[string]any{"sub": nil})), "ErrMissingClaim"},
		{"empty sub", hs, hsSign(with(map[string]any{"sub": ""})), "ErrMissingClaim"},
		{"missing exp", hs, hsSign(with(map[string]any{"exp": nil})), "ErrMissingClaim"},
		{"missing iss", hs, hsSign(with(map[string]any{"iss": nil})), "ErrMissingClaim"},
		{"missing aud", hs, hsSign(with(map[string]any{"aud": nil})), "ErrMissingClaim"},
		{"exp of wrong type", hs, hsSign(with(map[string]any{"exp": "tomorrow"})), "ErrMalformed"},
		// RFC 7519 NumericDates are numbers; a string of digits is not one.
		{"exp a string of digits", hs, hsSign(with(map[string]any{"exp": strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)})), "ErrMalformed"},
		{"exp null", hs, hsSign(with(map[string]any{"exp": json.RawMessage("null")})), "ErrMalformed"},
		{"EXP a string beside exp", hs, hsSign(with(map[string]any{"EXP": strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)})), "ErrMalformed"},
		{"nbf a string of digits", hs, hsSign(with(map[string]any{"nbf": strconv.FormatInt(t0.Add(-time.Hour).Unix(), 10)})), "ErrMalformed"},
		{"iat a string of digits", hs, hsSign(with(map[string]any{"iat": strconv.FormatInt(t0.Add(-time.Minute).Unix(), 10)})), "ErrMalformed"},
		{"exp a string to an EdDSA verifier", ed, sign(t, jwt.SigningMethodEdDSA, k.ed, with(map[string]any{"exp": strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)}), nil), "ErrMalformed"},
		{"sub with control characters", hs, hsSign(with(map[string]any{"sub": "alice\r\nX-Principal: bob"})), "ErrSubject"},
		{"crit header", hs, sign(t, jwt.SigningMethodHS256, k.secret, validClaims(), map[string]any{"crit": []string{"exp"}}), "ErrMalformed"},
		// Several failures at once still yield one sentinel, time first.
		{"expired and wrong iss", hs, hsSign(with(map[string]any{"exp": t0.Add(-time.Hour).Unix(), "iss": "x"})), "ErrExpired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newTestVerifier(t, tt.cfg)
			p, err := v.Verify(t.Context(), tt.token)
			if diff := cmp.Diff(outcome{Err: tt.want}, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
			assertReasonSafe(t, err, tt.token)
		})
	}
}

// assertReasonSafe checks that the client-facing text of err holds no piece of token.
func assertReasonSafe(t *testing.T, err error, token string) {
	t.Helper()
	r := Reason(err)
	if r == "" {
		t.Fatalf("Reason(%v) = \"\", want a message", err)
	}
	for _, seg := range strings.Split(token, ".") {
		if len(seg) >= 4 && strings.Contains(r, seg) {
			t.Errorf("Reason() = %q, contains token segment %q", r, seg)
		}
	}
}

func TestNewVerifierRejectsMisconfiguration(t *testing.T) {
	k := keys()
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalECPrivateKey(k.ec)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER})
	base := func(c VerifierConfig) VerifierConfig {
		c.Issuer, c.Audience = testIssuer, testAudience
		return c
	}
	tests := []struct {
		name string
		cfg  VerifierConfig
		want string
	}{
		{"no key source", base(VerifierConfig{}), "ErrConfig"},
		{"two key sources", base(VerifierConfig{HS256Secret: k.secret, JWKSURL: "https://idp.test/jwks"}), "ErrConfig"},
		{"three key sources", base(VerifierConfig{HS256Secret: k.secret, PublicKeyPEM: pkixPEM(t, &k.rsa.PublicKey), JWKSURL: "https://idp.test/jwks"}), "ErrConfig"},
		{"no issuer", VerifierConfig{Audience: testAudience, HS256Secret: k.secret}, "ErrConfig"},
		{"no audience", VerifierConfig{Issuer: testIssuer, HS256Secret: k.secret}, "ErrConfig"},
		{"short secret", base(VerifierConfig{HS256Secret: []byte("short")}), "ErrConfig"},
		{"PEM garbage", base(VerifierConfig{PublicKeyPEM: []byte("not a pem")}), "ErrConfig"},
		{"PEM with bad DER", base(VerifierConfig{PublicKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1, 2, 3}})}), "ErrConfig"},
		{"private key PEM", base(VerifierConfig{PublicKeyPEM: privPEM}), "ErrConfig"},
		{"RSA 1024", base(VerifierConfig{PublicKeyPEM: pkixPEM(t, &small.PublicKey)}), "ErrConfig"},
		{"P-384", base(VerifierConfig{PublicKeyPEM: pkixPEM(t, &p384.PublicKey)}), "ErrConfig"},
		{"JWKS over http", base(VerifierConfig{JWKSURL: "http://idp.test/jwks"}), "ErrConfig"},
		{"JWKS relative URL", base(VerifierConfig{JWKSURL: "/jwks"}), "ErrConfig"},
		{"negative leeway", base(VerifierConfig{HS256Secret: k.secret, Leeway: -time.Second}), "ErrConfig"},
		{"huge leeway", base(VerifierConfig{HS256Secret: k.secret, Leeway: time.Hour}), "ErrConfig"},
		{"JWKS over https", base(VerifierConfig{JWKSURL: "https://idp.test/jwks"}), ""},
		{"JWKS over http on loopback", base(VerifierConfig{JWKSURL: "http://127.0.0.1:8080/jwks"}), ""},
		{"JWKS over http on localhost", base(VerifierConfig{JWKSURL: "http://localhost/jwks"}), ""},
		{"HS256", base(VerifierConfig{HS256Secret: k.secret}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewVerifier(tt.cfg)
			if diff := cmp.Diff(tt.want, sentinelName(err)); diff != "" {
				t.Errorf("NewVerifier() error mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
			if (err == nil) != (v != nil) {
				t.Errorf("NewVerifier() = %v, %v; want exactly one non-nil", v, err)
			}
		})
	}
}

func TestVerifierCopiesSecret(t *testing.T) {
	secret := append([]byte(nil), keys().secret...)
	v := newTestVerifier(t, VerifierConfig{HS256Secret: secret})
	tok := sign(t, jwt.SigningMethodHS256, keys().secret, validClaims(), nil)
	secret[0] ^= 0xff // the caller reusing its buffer must not change what the verifier accepts
	if _, err := v.Verify(t.Context(), tok); err != nil {
		t.Errorf("Verify() = %v, want nil", err)
	}
}
