package principal

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultDevTTL is the lifetime [DevSigner.Mint] uses when given a non-positive ttl.
const DefaultDevTTL = 24 * time.Hour

// RandomSecret returns 32 bytes from crypto/rand: a fresh HS256 secret for dev mode, which
// invalidates every dev token at restart.
func RandomSecret() []byte {
	b := make([]byte, minSecretLen)
	_, _ = rand.Read(b) // crypto/rand.Read never returns an error; it crashes on failure
	return b
}

// DevSigner mints HS256 session tokens for dev mode and the `switchboard token` command, and
// verifies them with the same rules as production ([Verifier]). Safe for concurrent use.
type DevSigner struct {
	secret   []byte
	issuer   string
	audience string
	now      func() time.Time
	verifier *Verifier
}

// NewDevSigner returns a signer for secret, issuer and audience. It fails, wrapping
// [ErrConfig], when the secret is shorter than 32 bytes or issuer or audience is empty.
// [WithClock] sets the clock for both minting and [DevSigner.Verifier].
func NewDevSigner(secret []byte, issuer, audience string, opts ...Option) (*DevSigner, error) {
	o := buildOptions(opts)
	v, err := NewVerifier(VerifierConfig{
		Issuer:      issuer,
		Audience:    audience,
		HS256Secret: secret,
		Now:         o.now,
	})
	if err != nil {
		return nil, err
	}
	return &DevSigner{
		secret:   append([]byte(nil), secret...),
		issuer:   issuer,
		audience: audience,
		now:      o.now,
		verifier: v,
	}, nil
}

// Mint returns a signed token for sub, valid for ttl from now ([DefaultDevTTL] if ttl <= 0).
func (s *DevSigner) Mint(sub string, ttl time.Duration) (string, error) {
	if sub == "" {
		return "", errors.New("principal: mint: empty subject")
	}
	if _, err := subjectPrincipal(sub); err != nil {
		return "", fmt.Errorf("principal: mint: %w", err)
	}
	if ttl <= 0 {
		ttl = DefaultDevTTL
	}
	now := s.now()
	claims := jwt.RegisteredClaims{
		Issuer:    s.issuer,
		Subject:   sub,
		Audience:  jwt.ClaimStrings{s.audience},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.secret)
	if err != nil {
		return "", fmt.Errorf("principal: mint: %w", err)
	}
	return tok, nil
}

// Verifier returns the verifier for the tokens this signer mints (HS256, same issuer and
// audience). It is created once and shared.
func (s *DevSigner) Verifier() *Verifier { return s.verifier }
