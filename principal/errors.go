package principal

import "errors"

// Sentinels. Every error returned by this package wraps exactly one of them, so callers
// classify with [errors.Is]; the wrapped text is for logs, [Reason] is for clients.
var (
	// ErrMissingToken: no credential was presented.
	ErrMissingToken = errors.New("principal: missing token")
	// ErrMalformed: the credential cannot be parsed, has an unusable claim value, or uses an
	// unsupported header.
	ErrMalformed = errors.New("principal: malformed token")
	// ErrTooLong: the token is longer than a verifier reads (8 KiB), and its subject is not
	// the cause ([ErrSubject] is).
	ErrTooLong = errors.New("principal: token too long")
	// ErrSubject: the sub claim cannot serve as a principal: longer than 256 bytes, not UTF-8,
	// or holding control characters that could split a header or a log line.
	ErrSubject = errors.New("principal: unusable subject")
	// ErrExpired: exp (plus leeway) has passed.
	ErrExpired = errors.New("principal: token expired")
	// ErrNotYetValid: nbf or iat lies in the future beyond the leeway.
	ErrNotYetValid = errors.New("principal: token not yet valid")
	// ErrBadSignature: the signature does not verify with the configured key.
	ErrBadSignature = errors.New("principal: bad signature")
	// ErrBadIssuer: iss is present but not the configured issuer.
	ErrBadIssuer = errors.New("principal: bad issuer")
	// ErrBadAudience: aud is present but does not contain the configured audience.
	ErrBadAudience = errors.New("principal: bad audience")
	// ErrMissingClaim: one of exp, iss, aud or sub is absent.
	ErrMissingClaim = errors.New("principal: missing required claim")
	// ErrUnknownKey: the token names no key id, or one the verifier does not know (even after
	// a JWKS refetch).
	ErrUnknownKey = errors.New("principal: unknown signing key")
	// ErrAlgorithm: the token's alg is not the one pinned for the key (alg "none", algorithm
	// confusion, unknown alg).
	ErrAlgorithm = errors.New("principal: algorithm not allowed")
	// ErrKeysUnavailable: the JWKS endpoint has never answered with usable keys. A server-side
	// condition: web maps it to 503, not 401.
	ErrKeysUnavailable = errors.New("principal: signing keys unavailable")
	// ErrWrongTurn: a turn-scoped token was presented for another turn.
	ErrWrongTurn = errors.New("principal: token bound to another turn")
	// ErrMismatch: an envelope's principal is not the invoking principal, or one is empty.
	ErrMismatch = errors.New("principal: principal mismatch")
	// ErrConfig: a constructor was given an unusable configuration.
	ErrConfig = errors.New("principal: invalid configuration")
)

// reasons maps each sentinel to text that is safe to send to a client: fixed strings, so no
// token content or internal detail can reach the response. Order matters only for errors that
// wrap several sentinels, which this package never produces.
var reasons = []struct {
	err    error
	reason string
}{
	{ErrMissingToken, "missing bearer token"},
	{ErrMalformed, "malformed token"},
	{ErrTooLong, "token too long"},
	{ErrSubject, "token subject (sub) too long or not plain text"},
	{ErrExpired, "token expired"},
	{ErrNotYetValid, "token not yet valid"},
	{ErrBadSignature, "invalid token signature"},
	{ErrBadIssuer, "token issuer not accepted"},
	{ErrBadAudience, "token audience not accepted"},
	{ErrMissingClaim, "token lacks a required claim"},
	{ErrUnknownKey, "token signing key not recognized"},
	{ErrAlgorithm, "token algorithm not accepted"},
	{ErrKeysUnavailable, "authentication temporarily unavailable"},
	{ErrWrongTurn, "token not valid for this turn"},
	{ErrMismatch, "principal mismatch"},
}

// Reason returns a short, fixed, client-safe description of err ("token expired"). It never
// includes any part of the token or of err's text; unknown errors read "invalid token", and a
// nil error reads "".
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return "invalid token"
}
