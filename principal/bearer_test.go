package principal

import (
	"strings"
	"testing"

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
		{"too long", "Bearer " + strings.Repeat("a", maxTokenLen+1), result{Err: "ErrMalformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Bearer(tt.header)
			if diff := cmp.Diff(tt.want, result{Token: tok, Err: sentinelName(err)}); diff != "" {
				t.Errorf("Bearer(%q) mismatch (-want +got):\n%s", tt.header, diff)
			}
			if err != nil && len(tt.header) > len("Bearer ") && strings.Contains(err.Error(), strings.TrimSpace(tt.header)) {
				t.Errorf("Bearer() error %q repeats the header", err)
			}
		})
	}
}
