package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestNarrates(t *testing.T) {
	for _, tt := range []struct {
		clause string
		want   bool
	}{
		{"I moved house last month", true},
		{"the airline refunded me", true},
		{"my library card expired", true},
		{"we bought a sofa in june", true},
		{"my order never arrived", false},
		{"i want to return the blender", false},
		{"i cant log into my account", false},
		{"my points balance", false},
		{"the parcel was damaged", false},
		{"I need a new mattress", false},
	} {
		if got := narrates(lang.ScanWords(tt.clause)); got != tt.want {
			t.Errorf("narrates(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}
