package principal

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// jwksServer serves a JWK Set that a test can swap, and counts fetches.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int32

	mu     sync.Mutex
	status int
	body   []byte
}

func newJWKSServer(t *testing.T, keys ...map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.set(http.StatusOK, keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		status, body := s.status, s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(status int, keys ...map[string]any) {
	if keys == nil {
		keys = []map[string]any{}
	}
	body, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// publicJWK renders pub as a JWK with kid.
func publicJWK(kid string, pub crypto.PublicKey) map[string]any {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		raw, err := k.Bytes()
		if err != nil {
			panic(err)
		}
		return map[string]any{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])}
	case ed25519.PublicKey:
		return map[string]any{"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64(k)}
	}
	panic(fmt.Sprintf("unsupported key %T", pub))
}

func newJWKSVerifier(t *testing.T, url string, now func() time.Time) *Verifier {
	t.Helper()
	v, err := NewVerifier(VerifierConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: url, Now: now})
	if err != nil {
		t.Fatalf("NewVerifier() = %v", err)
	}
	return v
}

func TestJWKSVerify(t *testing.T) {
	k := keys()
	rs384 := publicJWK("rs384", &k.rsa.PublicKey)
	rs384["alg"] = "RS384" // pinned to RS256 for RSA keys: this key must be skipped
	enc := publicJWK("enc", &k.rsa.PublicKey)
	enc["use"] = "enc"
	srv := newJWKSServer(t,
		publicJWK("rsa", &k.rsa.PublicKey),
		publicJWK("ec", &k.ec.PublicKey),
		publicJWK("ed", k.ed.Public()),
		rs384, enc,
		map[string]any{"kty": "oct", "kid": "sym", "k": b64(k.secret)},
	)
	tests := []struct {
		name  string
		token string
		want  outcome
	}{
		{"RS256 by kid", sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "rsa"}), outcome{Principal: "alice"}},
		{"ES256 by kid", sign(t, jwt.SigningMethodES256, k.ec, validClaims(), map[string]any{"kid": "ec"}), outcome{Principal: "alice"}},
		{"EdDSA by kid", sign(t, jwt.SigningMethodEdDSA, k.ed, validClaims(), map[string]any{"kid": "ed"}), outcome{Principal: "alice"}},
		{"no kid", sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), nil), outcome{Err: "ErrUnknownKey"}},
		{"unknown kid", sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "nope"}), outcome{Err: "ErrUnknownKey"}},
		{"kid of a key declared for RS384", sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "rs384"}), outcome{Err: "ErrUnknownKey"}},
		{"kid of an encryption key", sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "enc"}), outcome{Err: "ErrUnknownKey"}},
		{"kid of a symmetric key", sign(t, jwt.SigningMethodHS256, k.secret, validClaims(), map[string]any{"kid": "sym"}), outcome{Err: "ErrAlgorithm"}},
		{"ES256 token naming the RSA key", sign(t, jwt.SigningMethodES256, k.ec, validClaims(), map[string]any{"kid": "rsa"}), outcome{Err: "ErrAlgorithm"}},
		{"EdDSA token naming the EC key", sign(t, jwt.SigningMethodEdDSA, k.ed, validClaims(), map[string]any{"kid": "ec"}), outcome{Err: "ErrAlgorithm"}},
		{"alg none", unsigned(t, map[string]any{"alg": "none", "kid": "rsa"}, validClaims()), outcome{Err: "ErrAlgorithm"}},
		{"expired", sign(t, jwt.SigningMethodRS256, k.rsa, with(map[string]any{"exp": t0.Add(-time.Hour).Unix()}), map[string]any{"kid": "rsa"}), outcome{Err: "ErrExpired"}},
		{"exp a string of digits", sign(t, jwt.SigningMethodRS256, k.rsa, with(map[string]any{"exp": strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)}), map[string]any{"kid": "rsa"}), outcome{Err: "ErrMalformed"}},
	}
	v := newJWKSVerifier(t, srv.URL, func() time.Time { return t0 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.Verify(t.Context(), tt.token)
			if diff := cmp.Diff(tt.want, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
	// Every unknown kid above fell inside one rate-limit window: one fetch in all.
	if got := srv.fetches.Load(); got != 1 {
		t.Errorf("JWKS fetches = %d, want 1", got)
	}
}

func TestJWKSRotation(t *testing.T) {
	k := keys()
	newKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	oldTok := sign(t, jwt.SigningMethodES256, k.ec, validClaims(), map[string]any{"kid": "old"})
	newTok := sign(t, jwt.SigningMethodES256, newKey, validClaims(), map[string]any{"kid": "new"})

	srv := newJWKSServer(t, publicJWK("old", &k.ec.PublicKey))
	clk := newClock()
	// exp is far enough ahead for every step below.
	v := newJWKSVerifier(t, srv.URL, clk.Now)

	steps := []struct {
		name        string
		advance     time.Duration
		rotate      bool // the issuer now publishes only the new key
		token       string
		want        outcome
		wantFetches int32
	}{
		{"old key, first fetch", 0, false, oldTok, outcome{Principal: "alice"}, 1},
		{"old key, cached", 10 * time.Second, false, oldTok, outcome{Principal: "alice"}, 1},
		{"new kid right after a fetch is rate-limited", 0, true, newTok, outcome{Err: "ErrUnknownKey"}, 1},
		{"new kid still within the interval", 10 * time.Second, false, newTok, outcome{Err: "ErrUnknownKey"}, 1},
		{"new kid after the interval triggers a refetch", 15 * time.Second, false, newTok, outcome{Principal: "alice"}, 2},
		{"old kid is gone and the refetch is rate-limited", 0, false, oldTok, outcome{Err: "ErrUnknownKey"}, 2},
		{"new key served from cache", 20 * time.Second, false, newTok, outcome{Principal: "alice"}, 2},
		{"cache older than JWKSRefresh is refetched", DefaultJWKSRefresh, false, newTok, outcome{Principal: "alice"}, 3},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			clk.Advance(s.advance)
			if s.rotate {
				srv.set(http.StatusOK, publicJWK("new", &newKey.PublicKey))
			}
			p, err := v.Verify(t.Context(), s.token)
			if diff := cmp.Diff(s.want, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
			if got := srv.fetches.Load(); got != s.wantFetches {
				t.Errorf("JWKS fetches = %d, want %d", got, s.wantFetches)
			}
		})
	}
}

func TestJWKSRandomKidFloodIsRateLimited(t *testing.T) {
	k := keys()
	srv := newJWKSServer(t, publicJWK("rsa", &k.rsa.PublicKey))
	clk := newClock()
	v := newJWKSVerifier(t, srv.URL, clk.Now)
	for i := range 50 {
		tok := sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": fmt.Sprintf("random-%d", i)})
		if _, err := v.Verify(t.Context(), tok); sentinelName(err) != "ErrUnknownKey" {
			t.Fatalf("Verify(kid random-%d) = %v, want ErrUnknownKey", i, err)
		}
		clk.Advance(time.Second)
	}
	// 50 seconds of unknown kids: the first fetch, and one more after 30s.
	if got := srv.fetches.Load(); got != 2 {
		t.Errorf("JWKS fetches = %d, want 2", got)
	}
}

func TestJWKSFailingFetchKeepsKeys(t *testing.T) {
	k := keys()
	tok := sign(t, jwt.SigningMethodEdDSA, k.ed, validClaims(), map[string]any{"kid": "ed"})
	tests := []struct {
		name string
		fail func(*jwksServer)
	}{
		{"server error", func(s *jwksServer) { s.set(http.StatusInternalServerError) }},
		{"no usable keys", func(s *jwksServer) { s.set(http.StatusOK) }},
		{"not JSON", func(s *jwksServer) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.body = []byte("<html>maintenance</html>")
		}},
		{"server gone", func(s *jwksServer) { s.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newJWKSServer(t, publicJWK("ed", k.ed.Public()))
			clk := newClock()
			v := newJWKSVerifier(t, srv.URL, clk.Now)
			if _, err := v.Verify(t.Context(), tok); err != nil {
				t.Fatalf("Verify() before the failure = %v, want nil", err)
			}
			tt.fail(srv)
			clk.Advance(DefaultJWKSRefresh) // stale: the next Verify refetches, and fails
			p, err := v.Verify(t.Context(), tok)
			if diff := cmp.Diff(outcome{Principal: "alice"}, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() after a failed refetch mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
			if err := v.Refresh(t.Context()); sentinelName(err) != "ErrKeysUnavailable" {
				t.Errorf("Refresh() = %v, want ErrKeysUnavailable", err)
			}
		})
	}
}

func TestJWKSNeverLoaded(t *testing.T) {
	k := keys()
	srv := newJWKSServer(t)
	srv.set(http.StatusServiceUnavailable)
	clk := newClock()
	v := newJWKSVerifier(t, srv.URL, clk.Now)
	tok := sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "rsa"})

	if _, err := v.Verify(t.Context(), tok); sentinelName(err) != "ErrKeysUnavailable" {
		t.Errorf("Verify() = %v, want ErrKeysUnavailable", err)
	}
	if err := v.Refresh(t.Context()); sentinelName(err) != "ErrKeysUnavailable" {
		t.Errorf("Refresh() = %v, want ErrKeysUnavailable", err)
	}
	// The issuer recovers; Refresh (startup, readiness) bypasses the rate limit.
	srv.set(http.StatusOK, publicJWK("rsa", &k.rsa.PublicKey))
	if err := v.Refresh(t.Context()); err != nil {
		t.Errorf("Refresh() = %v, want nil", err)
	}
	if p, err := v.Verify(t.Context(), tok); err != nil || p != "alice" {
		t.Errorf("Verify() = %q, %v, want alice, nil", p, err)
	}
}

func TestJWKSConcurrentColdStartFetchesOnce(t *testing.T) {
	k := keys()
	srv := newJWKSServer(t, publicJWK("ec", &k.ec.PublicKey))
	v := newJWKSVerifier(t, srv.URL, func() time.Time { return t0 })
	tok := sign(t, jwt.SigningMethodES256, k.ec, validClaims(), map[string]any{"kid": "ec"})

	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = v.Verify(context.Background(), tok) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Verify() #%d = %v, want nil", i, err)
		}
	}
	if got := srv.fetches.Load(); got != 1 {
		t.Errorf("JWKS fetches = %d, want 1", got)
	}
}

func TestJWKSCallerCancellationDoesNotWait(t *testing.T) {
	k := keys()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // a hung issuer
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close: lets the handler return
	v := newJWKSVerifier(t, srv.URL, func() time.Time { return t0 })
	tok := sign(t, jwt.SigningMethodRS256, k.rsa, validClaims(), map[string]any{"kid": "rsa"})

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := v.Verify(ctx, tok); sentinelName(err) != "ErrKeysUnavailable" {
		t.Errorf("Verify(cancelled ctx) = %v, want ErrKeysUnavailable", err)
	}
}

func TestParseJWKS(t *testing.T) {
	k := keys()
	rsaJWK := publicJWK("rsa", &k.rsa.PublicKey)
	offCurve := publicJWK("ec", &k.ec.PublicKey)
	offCurve["y"] = offCurve["x"]
	smallRSA := publicJWK("small", &rsa.PublicKey{N: new(big.Int).Lsh(big.NewInt(1), 1023), E: 65537})
	evenE := publicJWK("even", &rsa.PublicKey{N: k.rsa.N, E: 65536})
	doc := func(keys ...map[string]any) []byte {
		b, err := json.Marshal(map[string]any{"keys": keys})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name     string
		data     []byte
		wantKids []string
		wantErr  bool
	}{
		{"one RSA key", doc(rsaJWK), []string{"rsa"}, false},
		{"duplicate kid keeps the first", doc(rsaJWK, publicJWK("rsa", &k.ec.PublicKey)), []string{"rsa"}, false},
		{"point off the curve skipped", doc(rsaJWK, offCurve), []string{"rsa"}, false},
		{"small RSA skipped", doc(rsaJWK, smallRSA), []string{"rsa"}, false},
		{"even exponent skipped", doc(rsaJWK, evenE), []string{"rsa"}, false},
		{"no kid skipped", doc(rsaJWK, publicJWK("", k.ed.Public())), []string{"rsa"}, false},
		{"only unusable keys", doc(offCurve, smallRSA), nil, true},
		{"empty set", doc(), nil, true},
		{"not JSON", []byte("nope"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJWKS(tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseJWKS() error = %v, want error %v", err, tt.wantErr)
			}
			var kids []string
			for kid := range got {
				kids = append(kids, kid)
			}
			if diff := cmp.Diff(tt.wantKids, kids); diff != "" {
				t.Errorf("parseJWKS() kids mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
