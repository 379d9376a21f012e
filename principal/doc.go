// Package principal carries the on-behalf-of user of a turn from the session boundary to every
// CCS call, and verifies it: session tokens (JWT) on the way in, envelope principals on the way
// back.
//
// It owns:
//   - [Principal] and its context plumbing ([NewContext], [FromContext]);
//   - session-token verification ([Verifier]): a JWT whose algorithm is pinned by configuration
//     (HS256 secret, RS256/ES256/EdDSA public key, or a JWKS endpoint), with exp, iss, aud and sub
//     required;
//   - dev-mode minting ([DevSigner]) and short-lived turn-scoped tokens ([TurnTokens]) for
//     clients that cannot send headers (browser EventSource);
//   - the envelope principal check ([Check]) that sub-agent tool wrappers run on every CCS reply;
//   - client-safe error text ([Reason]) and log redaction ([Redact]).
//
// Every rejection wraps exactly one sentinel from errors.go; callers classify with [errors.Is]
// and show users only [Reason].
//
// Goroutine model: every exported type is safe for concurrent use once constructed and starts no
// goroutines of its own. A JWKS-backed [Verifier] fetches keys on the calling goroutine of
// [Verifier.Verify] (concurrent callers share one in-flight fetch), so there is nothing to stop
// or close.
package principal
