package principal

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReason(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"expired, wrapped", fmt.Errorf("web: %w", fmt.Errorf("%w: eyJhbGciOi.eyJzdWIi.c2ln", ErrExpired)), "token expired"},
		{"missing token", ErrMissingToken, "missing bearer token"},
		{"bad audience", ErrBadAudience, "token audience not accepted"},
		{"keys unavailable", ErrKeysUnavailable, "authentication temporarily unavailable"},
		{"wrong turn", ErrWrongTurn, "token not valid for this turn"},
		{"foreign error", errors.New("boom: eyJhbGciOi.eyJzdWIi.c2ln"), "invalid token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Reason(tt.err)); diff != "" {
				t.Errorf("Reason(%v) mismatch (-want +got):\n%s", tt.err, diff)
			}
		})
	}
}

func TestEverySentinelHasAReason(t *testing.T) {
	for s, name := range sentinels {
		if s == ErrConfig {
			continue // configuration errors never reach clients
		}
		if got := Reason(s); got == "invalid token" || got == "" {
			t.Errorf("Reason(%s) = %q, want a specific message", name, got)
		}
	}
}
