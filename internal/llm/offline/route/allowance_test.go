package route

import (
	"slices"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// "How much X can I bring" asks for an allowance the business sets, not the price of X: it
// reaches the agent whose texts speak of an allowance, over one that sells X.
func TestDecideAllowanceIsNoPrice(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals: prices and discounts on electronics, bags and luggage, shoes and appliances.",
			"any deals on sneakers", "what offers do you have on luggage", "how much is the blender"}},
		{Texts: []string{"travel", "Travel bookings: flights, hotels, the baggage allowance and seats on a flight.",
			"is my flight on time", "whats the baggage allowance on my flight"}},
	})
	tests := []struct {
		text string
		want int
	}{
		{"how much luggage can i bring", 1},
		{"how many bags can i take on the plane", 1},
		// Asked of the thing itself, "how much" is its price.
		{"how much is a carry-on suitcase", 0},
		{"how much luggage do you have on sale", 0},
	}
	for _, tt := range tests {
		got := Decide(ix, []string{tt.text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.text, got, tt.want)
		}
	}
}

func TestQueryTermsAllowance(t *testing.T) {
	tests := []struct {
		text      string
		allowance bool
	}{
		{"how much luggage can i bring", true},
		{"how many guests can we invite", true},
		{"how much can i borrow", true},
		{"how much is the luggage", false},
		{"how much can you knock off the price", false}, // the business does, not the user
	}
	for _, tt := range tests {
		qs := queryTerms(lang.ScanWords(tt.text))
		has := func(w string) bool {
			return slices.ContainsFunc(qs, func(q qterm) bool { return q.stem == lang.Stem(w) })
		}
		if has("allowance") != tt.allowance || tt.allowance && has("price") {
			t.Errorf("queryTerms(%q) = %v, want allowance terms %v", tt.text, qs, tt.allowance)
		}
	}
}
