package principal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Authenticator tells whom an HTTP request speaks for. Every surface of the service (the REST
// API, A2A, AG-UI) asks one before it serves a request, so a program that embeds switchboard
// can put its own sign-in in front: a session cookie, mTLS, or a principal its own middleware
// already placed in the request's context.
//
// An error refuses the request with 401; one wrapping [ErrKeysUnavailable] says the check
// itself is down and answers 503. [Reason] of the error is what the client is told, so wrap
// this package's sentinels to choose the words.
type Authenticator interface {
	Authenticate(r *http.Request) (Principal, error)
}

// AuthenticatorFunc adapts a function to [Authenticator].
type AuthenticatorFunc func(r *http.Request) (Principal, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(r *http.Request) (Principal, error) { return f(r) }

var _ Authenticator = AuthenticatorFunc(nil)

// TokenVerifier turns a bearer token into the principal it speaks for; [Verifier] is one.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (Principal, error)
}

var _ TokenVerifier = (*Verifier)(nil)

// BearerAuth authenticates requests by their Authorization: Bearer token, checked by v. A
// header that carries no usable Bearer token (none, another scheme such as Basic, or more than
// one token) is [ErrMissingToken], so the client is asked to send one; only a token that was
// sent and failed v's checks is refused as invalid.
func BearerAuth(v TokenVerifier) AuthenticatorFunc {
	return func(r *http.Request) (Principal, error) {
		tok, err := Bearer(r.Header.Get("Authorization"))
		if err != nil {
			if !errors.Is(err, ErrMissingToken) {
				err = fmt.Errorf("%w: %v", ErrMissingToken, err)
			}
			return "", err
		}
		return v.Verify(r.Context(), tok)
	}
}
