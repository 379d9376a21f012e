package audit

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"printable ASCII kept", "turn_0123 ok=yes ~", "turn_0123 ok=yes ~"},
		{"empty", "", ""},
		{"tab replaced", "a\tb", "a\uFFFDb"},
		{"newline replaced", "a\nb", "a\uFFFDb"},
		{"DEL replaced", "a\x7fb", "a\uFFFDb"},
		{"non-ASCII kept", "café ünïcode", "café ünïcode"},
		{"invalid UTF-8 replaced", "a\xffb", "a\uFFFDb"},
		{"long ASCII cut", strings.Repeat("x", maxField+10), strings.Repeat("x", maxField)},
		{"ASCII at the bound kept", strings.Repeat("y", maxField), strings.Repeat("y", maxField)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clip(tt.in); got != tt.want {
				t.Errorf("clip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
