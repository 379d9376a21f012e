package httpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/principal"
)

// verifierFunc is a token verifier for tests.
type verifierFunc func(token string) (principal.Principal, error)

func (f verifierFunc) Verify(_ context.Context, token string) (principal.Principal, error) {
	return f(token)
}

// TestAuthenticateBearer pins what a client is told for each kind of Authorization header, as
// the REST API always answered: no usable Bearer credential (none, another scheme, more than
// one token) asks for one; a token that fails its checks says why.
func TestAuthenticateBearer(t *testing.T) {
	verify := verifierFunc(func(tok string) (principal.Principal, error) {
		switch tok {
		case "tok-alice":
			return "alice", nil
		case "expired":
			return "", fmt.Errorf("%w: exp in the past", principal.ErrExpired)
		case "keys-down":
			return "", fmt.Errorf("%w: JWKS unreachable", principal.ErrKeysUnavailable)
		}
		return "", fmt.Errorf("%w: not a JWT", principal.ErrMalformed)
	})
	type result struct {
		Status          int
		Code, Message   string
		WWWAuthenticate string
		Principal       principal.Principal
	}
	askForOne := result{Status: http.StatusUnauthorized, Code: "unauthenticated",
		Message: "Send Authorization: Bearer <token>.", WWWAuthenticate: `Bearer realm="switchboard"`}
	invalid := func(reason string) result {
		return result{Status: http.StatusUnauthorized, Code: "invalid_token", Message: "Invalid token: " + reason + ".",
			WWWAuthenticate: `Bearer realm="switchboard", error="invalid_token"`}
	}
	tests := []struct {
		name   string
		header string
		want   result
	}{
		{"valid", "Bearer tok-alice", result{Status: http.StatusOK, Principal: "alice"}},
		{"none", "", askForOne},
		{"bare scheme", "Bearer", askForOne},
		{"basic auth", "Basic YWxpY2U6cGFzcw==", askForOne},
		{"two tokens", "Bearer tok-alice tok-bob", askForOne},
		{"header over 64 KiB", "Bearer " + strings.Repeat("a", 65<<10), askForOne},
		{"not a JWT", "Bearer abc", invalid("malformed token")},
		{"expired", "Bearer expired", invalid("token expired")},
		{"keys unavailable", "Bearer keys-down", result{Status: http.StatusServiceUnavailable, Code: "auth_unavailable",
			Message: "Sign-in cannot be checked right now. Please retry shortly."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/turns", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			w := httptest.NewRecorder()
			var got result
			if r := Authenticate(w, r, principal.BearerAuth(verify)); r != nil {
				got.Status = http.StatusOK
				got.Principal, _ = principal.FromContext(r.Context())
			} else {
				var body ErrorResponse
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
					t.Fatalf("body %q: %v", w.Body, err)
				}
				got = result{Status: w.Code, Code: body.Error.Code, Message: body.Error.Message,
					WWWAuthenticate: w.Header().Get("WWW-Authenticate")}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Authenticate(Authorization: %.40q) (-want +got):\n%s", tt.header, diff)
			}
		})
	}
}

// An embedding program's authenticator may refuse with an error of its own: the client is
// told the credential is invalid, once, and never the error's text.
func TestAuthenticateOwnError(t *testing.T) {
	auth := principal.AuthenticatorFunc(func(*http.Request) (principal.Principal, error) {
		return "", errors.New("session 7f3a expired in redis")
	})
	w := httptest.NewRecorder()
	if r := Authenticate(w, httptest.NewRequest(http.MethodPost, "/a2a", nil), auth); r != nil {
		t.Fatal("Authenticate() admitted the request")
	}
	var body ErrorResponse
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	want := ErrorBody{Code: "invalid_token", Message: "Invalid token."}
	if diff := cmp.Diff(want, body.Error); diff != "" {
		t.Errorf("Authenticate() answer (-want +got):\n%s", diff)
	}
}
