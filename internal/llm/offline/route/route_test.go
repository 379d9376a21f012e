package route

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
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

func TestDecidePriceIsEveryAgents(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons, and looks up and compares prices and costs to find the cheapest place to buy.",
			"whats the cheapest price for airpods pro", "how much is the nintendo switch right now", "compare prices for a 65 inch tv"}},
		{Texts: []string{"pest control", "Pest control for homes: books a technician visit for mice, rats, wasps and bedbugs."},
			Tools: []string{"Book visit: Book a technician visit for a pest problem, with the price and the first free slot."}},
		{Texts: []string{"translation", "Professional translation service for documents such as certificates and diplomas."},
			Tools: []string{"Get quote: Price and turnaround for translating a document between two languages."}},
	})
	tests := []struct {
		text string
		want int
	}{
		{"how much does it cost to get rid of mice", 1},
		{"get me a price for translating my degree into spanish", 2},
		{"how much is a playstation 5", 0},
	}
	for _, tt := range tests {
		got := Decide(ix, []string{tt.text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.text, got, tt.want)
		}
	}
}
