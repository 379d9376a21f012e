package principal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
)

const (
	// DefaultLeeway absorbs clock skew between issuer and verifier.
	DefaultLeeway = 30 * time.Second
	// maxLeeway keeps the leeway small: a large one quietly extends every token's life.
	maxLeeway = 5 * time.Minute
	// DefaultJWKSRefresh is how long fetched JWKS keys are used before a refetch.
	DefaultJWKSRefresh = 5 * time.Minute
	// DefaultJWKSMinInterval is the shortest gap between two JWKS fetches, whatever triggers them.
	DefaultJWKSMinInterval = 30 * time.Second
	// maxTokenLen bounds what we hand to the parser; real session tokens are well under 4 KiB.
	maxTokenLen = 8 << 10
	// maxBearerLen bounds the token [Bearer] extracts: the web server's default header cap.
	// Tokens between maxTokenLen and this are refused by Verify, which can say why.
	maxBearerLen = 64 << 10
)

// VerifierConfig configures a [Verifier]. Exactly one key source must be set: HS256Secret,
// PublicKeyPEM or JWKSURL.
type VerifierConfig struct {
	// Issuer is the required value of the iss claim.
	Issuer string
	// Audience must appear in the aud claim.
	Audience string

	// HS256Secret pins HS256. At least 32 bytes.
	HS256Secret []byte
	// PublicKeyPEM is a PKIX public key, PKCS#1 RSA public key or certificate. The algorithm is
	// pinned from the key: RSA (>= 2048 bits) -> RS256, EC P-256 -> ES256, Ed25519 -> EdDSA.
	PublicKeyPEM []byte
	// JWKSURL is fetched for RSA, EC P-256 and Ed25519 keys, each pinned to its one algorithm
	// and selected by the token's kid. It must be https, except on a loopback host. Key URLs
	// named inside tokens (jku, x5u) are never fetched.
	JWKSURL string

	// Leeway for exp, nbf and iat; default [DefaultLeeway], at most 5 minutes.
	Leeway time.Duration
	// HTTPClient fetches the JWKS; default a client with a 10s timeout.
	HTTPClient *http.Client
	// JWKSRefresh is the age after which JWKS keys are refetched; default [DefaultJWKSRefresh].
	JWKSRefresh time.Duration
	// JWKSMinInterval rate-limits JWKS fetches; default [DefaultJWKSMinInterval].
	JWKSMinInterval time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Verifier checks session tokens and yields the [Principal] they carry. It is safe for
// concurrent use.
type Verifier struct {
	issuer   string
	audience string
	parser   *jwt.Parser
	allowed  []string // algorithms the parser accepts
	secret   []byte   // HS256
	static   *publicKey
	jwks     *keySet
}

// NewVerifier validates cfg and returns a verifier. It fails, wrapping [ErrConfig], when no or
// several key sources are set, when the issuer or audience is empty, or when a key is unusable
// (bad PEM, short secret, small RSA key, unsupported curve). It does not contact the JWKS
// endpoint; see [Verifier.Refresh].
func NewVerifier(cfg VerifierConfig) (*Verifier, error) {
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, fmt.Errorf("%w: issuer and audience are required", ErrConfig)
	}
	sources := 0
	for _, set := range []bool{len(cfg.HS256Secret) > 0, len(cfg.PublicKeyPEM) > 0, cfg.JWKSURL != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return nil, fmt.Errorf("%w: want exactly one of HS256 secret, public key PEM or JWKS URL, got %d", ErrConfig, sources)
	}
	if cfg.Leeway < 0 || cfg.Leeway > maxLeeway {
		return nil, fmt.Errorf("%w: leeway must be within [0, %s]", ErrConfig, maxLeeway)
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}

	v := &Verifier{issuer: cfg.Issuer, audience: cfg.Audience}
	switch {
	case len(cfg.HS256Secret) > 0:
		if len(cfg.HS256Secret) < minSecretLen {
			return nil, fmt.Errorf("%w: HS256 secret shorter than %d bytes", ErrConfig, minSecretLen)
		}
		v.secret = append([]byte(nil), cfg.HS256Secret...)
		v.allowed = []string{algHS256}
	case len(cfg.PublicKeyPEM) > 0:
		pk, err := parsePublicKeyPEM(cfg.PublicKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("%w: public key: %w", ErrConfig, err)
		}
		v.static = &pk
		v.allowed = []string{pk.alg}
	default:
		ks, err := newKeySet(cfg)
		if err != nil {
			return nil, err
		}
		v.jwks = ks
		v.allowed = []string{algRS256, algES256, algEdDSA}
	}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(v.allowed),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
	)
	return v, nil
}

func newKeySet(cfg VerifierConfig) (*keySet, error) {
	u, err := url.Parse(cfg.JWKSURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: JWKS URL is not an absolute URL", ErrConfig)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !isLoopback(u.Hostname())) {
		// Over plain http anyone on the path could substitute their own keys.
		return nil, fmt.Errorf("%w: JWKS URL must use https (http only on loopback)", ErrConfig)
	}
	ks := &keySet{
		url:         cfg.JWKSURL,
		client:      cfg.HTTPClient,
		refresh:     cfg.JWKSRefresh,
		minInterval: cfg.JWKSMinInterval,
		now:         cfg.Now,
	}
	if ks.client == nil {
		ks.client = &http.Client{Timeout: jwksFetchTimeout}
	}
	if ks.refresh <= 0 {
		ks.refresh = DefaultJWKSRefresh
	}
	if ks.minInterval <= 0 {
		ks.minInterval = DefaultJWKSMinInterval
	}
	return ks, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Refresh fetches the JWKS now, ignoring the rate limit, and reports whether it yielded usable
// keys. Meant for startup and readiness checks, not per request. It is a no-op for verifiers
// with a static key.
func (v *Verifier) Refresh(ctx context.Context) error {
	if v.jwks == nil {
		return nil
	}
	if err := v.jwks.force(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	return nil
}

// sessionClaims are the claims a session token must carry. Validate runs inside the parser's
// claim validation, so a missing sub is classified together with the other claim errors.
type sessionClaims struct {
	jwt.RegisteredClaims
}

// UnmarshalJSON refuses exp, nbf and iat values that are not JSON numbers while decoding the
// claims. RFC 7519 makes them NumericDates, numbers; golang-jwt decodes them through
// json.Number, which also takes a string holding digits, so "exp":"1999999999" would pass for a
// number. The claims are read once: the three dates go to fields of their own (numberDate),
// which shadow RegisteredClaims' and which the decoder hands every value of a key it matches
// to them (strings.EqualFold, so "EXP" too), repeats included, so no value can slip a string in.
func (c *sessionClaims) UnmarshalJSON(data []byte) error {
	wire := struct {
		*jwt.RegisteredClaims
		ExpiresAt numberDate `json:"exp"`
		NotBefore numberDate `json:"nbf"`
		IssuedAt  numberDate `json:"iat"`
	}{
		RegisteredClaims: &c.RegisteredClaims,
		ExpiresAt:        numberDate{"exp", &c.ExpiresAt},
		NotBefore:        numberDate{"nbf", &c.NotBefore},
		IssuedAt:         numberDate{"iat", &c.IssuedAt},
	}
	return json.Unmarshal(data, &wire)
}

// numberDate decodes one of the dated claims into *to, refusing any value that is not a JSON
// number (null included).
type numberDate struct {
	name string
	to   **jwt.NumericDate
}

func (d numberDate) UnmarshalJSON(v []byte) error {
	if !isJSONNumber(v) {
		return fmt.Errorf("%w: %s claim is not a number", ErrMalformed, d.name)
	}
	date := new(jwt.NumericDate)
	if err := date.UnmarshalJSON(v); err != nil {
		return err
	}
	*d.to = date
	return nil
}

// isJSONNumber reports whether v, one valid JSON value, is a number.
func isJSONNumber(v []byte) bool {
	return len(v) > 0 && (v[0] == '-' || '0' <= v[0] && v[0] <= '9')
}

func (c sessionClaims) Validate() error {
	if c.Subject == "" {
		return fmt.Errorf("%w: sub claim is required", jwt.ErrTokenRequiredClaimMissing)
	}
	return nil
}

// Verify checks token's signature with the pinned key and algorithm, then exp (required), nbf,
// iat, iss, aud and sub (all required but nbf and iat), and returns the subject as the
// principal. exp, nbf and iat must be JSON numbers; anything else is [ErrMalformed]. Any failure wraps exactly one sentinel of this package; ctx bounds a JWKS fetch
// that the call may trigger.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return "", ErrMissingToken
	}
	if len(token) > maxTokenLen {
		return "", oversized(token)
	}
	var claims sessionClaims
	tok, err := v.parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		return v.key(ctx, t)
	})
	if err != nil {
		return "", classify(err, tok, v.allowed)
	}
	p, err := subjectPrincipal(claims.Subject)
	if err != nil {
		return "", err
	}
	return p, nil
}

// key is the parser's key function. The parser has already checked that the alg is in
// v.allowed; key checks that it is the one alg pinned for the selected key.
func (v *Verifier) key(ctx context.Context, t *jwt.Token) (any, error) {
	if _, ok := t.Header["crit"]; ok {
		// RFC 7515 §4.1.11: extensions we do not implement must make the token invalid.
		return nil, fmt.Errorf("%w: unsupported crit header", ErrMalformed)
	}
	alg := t.Method.Alg()
	switch {
	case v.secret != nil:
		return v.secret, nil
	case v.static != nil:
		if alg != v.static.alg {
			return nil, ErrAlgorithm
		}
		return v.static.key, nil
	}
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		return nil, fmt.Errorf("%w: token has no kid", ErrUnknownKey)
	}
	pk, err := v.jwks.lookup(ctx, kid)
	if err != nil {
		return nil, err
	}
	if alg != pk.alg {
		return nil, fmt.Errorf("%w: alg does not match the key's type", ErrAlgorithm)
	}
	return pk.key, nil
}

// claimErrors maps golang-jwt's claim errors to ours, in the order used when a token fails
// several checks at once (the library reports them all): time first, since a client fixes it
// by fetching a fresh token.
var claimErrors = []struct{ lib, ours error }{
	{jwt.ErrTokenExpired, ErrExpired},
	{jwt.ErrTokenNotValidYet, ErrNotYetValid},
	{jwt.ErrTokenUsedBeforeIssued, ErrNotYetValid},
	{jwt.ErrTokenInvalidIssuer, ErrBadIssuer},
	{jwt.ErrTokenInvalidAudience, ErrBadAudience},
	{jwt.ErrTokenRequiredClaimMissing, ErrMissingClaim},
}

// classify turns a golang-jwt error into one of our sentinels, keeping the library error as
// the cause for logs.
func classify(err error, tok *jwt.Token, allowed []string) error {
	// Errors from our key function already wrap one of our sentinels.
	for _, ours := range []error{ErrMalformed, ErrAlgorithm, ErrUnknownKey, ErrKeysUnavailable} {
		if errors.Is(err, ours) {
			return err
		}
	}
	var ours error
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		ours = ErrMalformed
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		// Only a missing or unknown alg gets here: key function errors are handled above.
		ours = ErrAlgorithm
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		ours = ErrBadSignature
		if tok == nil || tok.Method == nil || !slices.Contains(allowed, tok.Method.Alg()) {
			ours = ErrAlgorithm // refused by WithValidMethods before any key was touched
		}
	default:
		ours = ErrMalformed // e.g. a claim of the wrong JSON type
		for _, m := range claimErrors {
			if errors.Is(err, m.lib) {
				ours = m.ours
				break
			}
		}
	}
	return fmt.Errorf("%w: %w", ours, err)
}

// maxSubjectLen bounds the principal: it travels in headers (X-Principal) and logs.
const maxSubjectLen = 256

// oversized classifies a token longer than maxTokenLen. The usual cause is a sub claim far
// over maxSubjectLen (an identity provider putting a document in it), so a client is told that
// when the payload, read without verifying anything, shows one: "too long" alone would not say
// what to fix. Either way the error is a fixed reason that repeats no token content, and
// nothing else is ever read from an unverified payload.
func oversized(token string) error {
	if len(token) <= maxBearerLen {
		if parts := strings.Split(token, "."); len(parts) == 3 {
			if payload, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
				var c struct {
					Subject string `json:"sub"`
				}
				if json.Unmarshal(payload, &c) == nil && len(c.Subject) > maxSubjectLen {
					return fmt.Errorf("%w: sub claim longer than %d bytes", ErrSubject, maxSubjectLen)
				}
			}
		}
	}
	return fmt.Errorf("%w: token longer than %d bytes", ErrTooLong, maxTokenLen)
}

// subjectPrincipal accepts a sub claim as a principal only if it is safe to forward: valid
// UTF-8, bounded, and free of control characters that could split a header or a log line.
func subjectPrincipal(sub string) (Principal, error) {
	if len(sub) > maxSubjectLen {
		return "", fmt.Errorf("%w: sub claim longer than %d bytes", ErrSubject, maxSubjectLen)
	}
	if !utf8.ValidString(sub) {
		return "", fmt.Errorf("%w: sub claim is not UTF-8", ErrSubject)
	}
	for _, r := range sub {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%w: sub claim has control characters", ErrSubject)
		}
	}
	return Principal(sub), nil
}
