package httpkit

import (
	"errors"
	"net/http"

	"github.com/switchboard-ai/switchboard/principal"
)

// Authenticate asks auth whom r speaks for. On success it returns r with the principal in its
// context ([principal.FromContext]); otherwise it has answered (401, or 503 when the check
// itself is down) and returns nil. Answers never echo the credential.
func Authenticate(w http.ResponseWriter, r *http.Request, auth principal.Authenticator) *http.Request {
	p, err := auth.Authenticate(r)
	if err == nil && p == "" {
		err = principal.ErrMissingToken
	}
	if err == nil {
		// An embedding program's authenticator is held to what a token's subject must be.
		p, err = principal.Parse(string(p))
	}
	if err != nil {
		// Never wait for the body of a request that will not be served.
		DropBody(w, r)
		Unauthenticated(w, err)
		return nil
	}
	return r.WithContext(principal.NewContext(r.Context(), p))
}

// Unauthenticated answers a request whose credential err refused.
func Unauthenticated(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, principal.ErrKeysUnavailable):
		// Our side cannot check any token right now: the client's token may be fine.
		w.Header().Set("Retry-After", "5")
		WriteError(w, http.StatusServiceUnavailable, "auth_unavailable", "Sign-in cannot be checked right now. Please retry shortly.")
	case errors.Is(err, principal.ErrMissingToken):
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		WriteError(w, http.StatusUnauthorized, "unauthenticated", "Send Authorization: Bearer <token>.")
	default:
		msg := "Invalid token."
		if reason := principal.Reason(err); reason != unknownReason {
			msg = "Invalid token: " + reason + "."
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		WriteError(w, http.StatusUnauthorized, "invalid_token", msg)
	}
}

// unknownReason is what principal.Reason says of an error it has no words for, such as an
// embedding program's own authenticator's: the answer then says "Invalid token." once.
var unknownReason = principal.Reason(errors.New("not a principal error"))

// Authenticated serves next only to requests auth admits, with their bodies bounded to
// maxBody bytes; the others are answered as [Authenticate] answers them.
func Authenticated(auth principal.Authenticator, maxBody int64, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r = Authenticate(w, r, auth); r == nil {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next(w, r)
	}
}
