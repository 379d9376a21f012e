package principal

import (
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestBearer(t *testing.T) {
	type result struct {
		Token string
		Err   string
	}
	tests := []struct {
		name   string
		header string
		want   result
	}{
		{"jwt", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln", result{Token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"}},
		{"scheme is case-insensitive", "bearer abc", result{Token: "abc"}},
		{"upper case scheme", "BEARER abc", result{Token: "abc"}},
		{"surrounding and inner spaces", "  Bearer   abc  ", result{Token: "abc"}},
		{"token68 padding and symbols", "Bearer a-b._~+/c==", result{Token: "a-b._~+/c=="}},
		{"empty", "", result{Err: "ErrMissingToken"}},
		{"blank", "   ", result{Err: "ErrMissingToken"}},
		{"scheme only", "Bearer", result{Err: "ErrMissingToken"}},
		{"scheme and space", "Bearer ", result{Err: "ErrMissingToken"}},
		{"basic auth", "Basic YWxpY2U6cGFzcw==", result{Err: "ErrMalformed"}},
		{"no scheme", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", result{Err: "ErrMalformed"}},
		{"scheme glued to token", "Bearerabc", result{Err: "ErrMalformed"}},
		{"two tokens", "Bearer abc def", result{Err: "ErrMalformed"}},
		{"padding in the middle", "Bearer ab=c", result{Err: "ErrMalformed"}},
		{"only padding", "Bearer ==", result{Err: "ErrMalformed"}},
		{"control character", "Bearer abc\x00", result{Err: "ErrMalformed"}},
		{"comma", "Bearer abc,def", result{Err: "ErrMalformed"}},
		// Length below the header cap is Verify's to judge: it can say what made it long.
		{"longer than a verifier reads", "Bearer " + strings.Repeat("a", maxTokenLen+1), result{Token: strings.Repeat("a", maxTokenLen+1)}},
		{"too long", "Bearer " + strings.Repeat("a", maxBearerLen+1), result{Err: "ErrMalformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Bearer(tt.header)
			if diff := cmp.Diff(tt.want, result{Token: tok, Err: sentinelName(err)}); diff != "" {
				t.Errorf("Bearer(%.40q) mismatch (-want +got):\n%.400s", tt.header, diff)
			}
			if err != nil && len(tt.header) > len("Bearer ") && strings.Contains(err.Error(), strings.TrimSpace(tt.header)) {
				t.Errorf("Bearer() error %q repeats the header", err)
			}
		})
	}
}

// A token whose sub is kilobytes long reaches the verifier, which names the subject as the
// problem: the client did send a bearer token, and "send a bearer token" would mislead it.
func TestLongSubjectIsNamed(t *testing.T) {
	k := keys()
	v := newTestVerifier(t, VerifierConfig{HS256Secret: k.secret})
	for _, n := range []int{maxSubjectLen + 1, 10 << 10, 40 << 10} {
		token := sign(t, jwt.SigningMethodHS256, k.secret, with(map[string]any{"sub": strings.Repeat("a", n)}), nil)
		tok, err := Bearer("Bearer " + token)
		if err != nil {
			t.Fatalf("Bearer(token with a %d-byte sub) = %v, want the token", n, err)
		}
		_, err = v.Verify(t.Context(), tok)
		if got, want := Reason(err), "token subject (sub) too long or not plain text"; got != want {
			t.Errorf("Reason(Verify(token with a %d-byte sub)) = %q, want %q", n, got, want)
		}
	}
}
