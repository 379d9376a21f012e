package route

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCap(t *testing.T) {
	tests := []struct {
		system string
		want   int
	}{
		{"Call at most 3 ask_ tools per turn.", 3},
		{"Pick AT MOST two agents by relevance.", 2},
		{"at most 0 tools", 0},
		{"no rule here", 0},
	}
	for _, tt := range tests {
		if got := ParseCap(tt.system); got != tt.want {
			t.Errorf("parseCap(%q) = %d, want %d", tt.system, got, tt.want)
		}
	}
}

func TestParseExamples(t *testing.T) {
	system := "Examples:\n- \"where is my parcel?\" -> ask_parcels\n  * “book a table” → ask_dining\nnot an example -> ask_x\n" +
		"What each specialist can look up:\n- ask_dining: list_bookings: The user's table bookings.\nask_x: no_tool\n"
	want := map[string][]string{
		"ask_parcels": {"where is my parcel?"}, "ask_dining": {"book a table"},
		capabilityKey + "ask_dining": {"list bookings: The user's table bookings."},
	}
	if diff := cmp.Diff(want, parseExamples(system)); diff != "" {
		t.Errorf("parseExamples() mismatch (-want +got):\n%s", diff)
	}
}
