package principal

import (
	"fmt"
	"strings"
)

// Bearer extracts the token from an Authorization header value ("Bearer <token>", RFC 6750
// §2.1; the scheme is case-insensitive). It returns [ErrMissingToken] for an empty header or a
// bare scheme, and [ErrMalformed] for another scheme, a value that is not a single token68, or
// one over 64 KiB. It does not judge a token's length below that: [Verifier.Verify] does, and
// can say what made a token too long. Error texts never include the header's content.
func Bearer(header string) (string, error) {
	header = strings.TrimSpace(header)
	if header == "" {
		return "", ErrMissingToken
	}
	if len(header) > maxBearerLen+len("Bearer ") {
		return "", fmt.Errorf("%w: authorization header too long", ErrMalformed)
	}
	scheme, token, found := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("%w: authorization scheme is not Bearer", ErrMalformed)
	}
	token = strings.TrimLeft(token, " ")
	if !found || token == "" {
		return "", ErrMissingToken
	}
	if !isToken68(token) {
		return "", fmt.Errorf("%w: bearer value is not a single token", ErrMalformed)
	}
	return token, nil
}

// isToken68 reports whether s matches RFC 7235 token68:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isToken68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}
