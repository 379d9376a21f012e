package principal

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	// DefaultTurnTTL is the lifetime of a turn-scoped token: long enough for a browser to open
	// and resume the turn's event stream, short enough that a leaked URL soon stops working.
	DefaultTurnTTL = 10 * time.Minute
	// turnIssuer marks turn-scoped tokens, so they can never pass as another kind of token.
	turnIssuer = "switchboard/turn"
	// turnLeeway covers clock skew between the replica that minted and the one that verifies.
	turnLeeway = 5 * time.Second
	// turnKeyLabel separates the MAC key from the configured key, so turn tokens and session
	// tokens stay distinct even when an operator reuses one secret for both.
	turnKeyLabel = "switchboard turn-scoped token v1"
)

// TurnTokens mints and verifies short-lived tokens bound to one turn and one principal, for
// GET /v1/turns/{id}/events from browsers, whose EventSource cannot send an Authorization
// header. A token is an HS256 JWT with aud "turn:<turn id>", sub the principal and exp. Every
// replica that verifies must share the key. Safe for concurrent use.
type TurnTokens struct {
	key    []byte
	ttl    time.Duration
	now    func() time.Time
	parser *jwt.Parser
}

// NewTurnTokens returns a minter/verifier keyed by key (at least 32 bytes, else an error
// wrapping [ErrConfig]); tokens live for ttl, or [DefaultTurnTTL] when ttl <= 0.
func NewTurnTokens(key []byte, ttl time.Duration, opts ...Option) (*TurnTokens, error) {
	if len(key) < minSecretLen {
		return nil, fmt.Errorf("%w: turn token key shorter than %d bytes", ErrConfig, minSecretLen)
	}
	if ttl <= 0 {
		ttl = DefaultTurnTTL
	}
	o := buildOptions(opts)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(turnKeyLabel))
	return &TurnTokens{
		key: mac.Sum(nil),
		ttl: ttl,
		now: o.now,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{algHS256}),
			jwt.WithIssuer(turnIssuer),
			jwt.WithExpirationRequired(),
			jwt.WithLeeway(turnLeeway),
			jwt.WithTimeFunc(o.now),
		),
	}, nil
}

func turnAudience(turnID string) string { return "turn:" + turnID }

// Mint returns a token for turnID and p, valid for the configured ttl. A token minted for an
// empty turn id or principal never verifies.
func (t *TurnTokens) Mint(turnID string, p Principal) string {
	now := t.now()
	claims := jwt.RegisteredClaims{
		Issuer:    turnIssuer,
		Subject:   string(p),
		Audience:  jwt.ClaimStrings{turnAudience(turnID)},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.key)
	if err != nil {
		// HS256 over a []byte key has no failure mode; reaching this is a library bug.
		panic(fmt.Sprintf("principal: sign turn token: %v", err))
	}
	return tok
}

// Verify checks token and returns the principal it was minted for. The token must have been
// minted by a TurnTokens with the same key, for turnID, and not have expired. A token for
// another turn wraps [ErrWrongTurn]; other failures wrap the same sentinels as
// [Verifier.Verify].
func (t *TurnTokens) Verify(token, turnID string) (Principal, error) {
	if token == "" {
		return "", ErrMissingToken
	}
	if turnID == "" {
		return "", fmt.Errorf("%w: empty turn id", ErrWrongTurn)
	}
	if len(token) > maxTokenLen {
		return "", oversized(token)
	}
	var claims sessionClaims
	tok, err := t.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) {
		return t.key, nil
	})
	if err != nil {
		return "", classify(err, tok, []string{algHS256})
	}
	// Checked after the signature so the answer never depends on unauthenticated content.
	if len(claims.Audience) != 1 || !hmac.Equal([]byte(claims.Audience[0]), []byte(turnAudience(turnID))) {
		return "", fmt.Errorf("%w: audience is not this turn", ErrWrongTurn)
	}
	return subjectPrincipal(claims.Subject)
}
