package principal

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		envelope string
		invoking Principal
		want     string
	}{
		{"same", "alice", "alice", ""},
		{"different", "bob", "alice", "ErrMismatch"},
		{"prefix", "alic", "alice", "ErrMismatch"},
		{"case differs", "Alice", "alice", "ErrMismatch"},
		{"empty envelope", "", "alice", "ErrMismatch"},
		{"empty invoking", "alice", "", "ErrMismatch"},
		{"both empty", "", "", "ErrMismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.envelope, tt.invoking)
			if diff := cmp.Diff(tt.want, sentinelName(err)); diff != "" {
				t.Errorf("Check(%q, %q) mismatch (-want +got):\n%s", tt.envelope, tt.invoking, diff)
			}
			// The error is logged as a security alert: it must not carry user identifiers.
			if err != nil && ((tt.envelope != "" && strings.Contains(err.Error(), tt.envelope)) ||
				(tt.invoking != "" && strings.Contains(err.Error(), string(tt.invoking)))) {
				t.Errorf("Check() error %q names a principal", err)
			}
		})
	}
}
