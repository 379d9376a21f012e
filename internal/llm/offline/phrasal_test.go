package offline

import (
	"slices"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestPhrasalMeanings(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"want to send back the sweater", []string{"return"}},
		{"can i send it back", []string{"return"}},
		{"what time do i take off on friday", []string{"depart", "departure"}},
		{"sign me up for zumba", []string{"join", "enrol", "register"}},
		{"need a new blender, anything marked down?", []string{"discount"}},
		{"my parcel still hasn't shown up", []string{"arrive"}},
		{"the courier never showed up", []string{"arrive"}},
		{"can I use points to pay for the hotel", []string{"redeem"}},
		{"can i pay with my points", []string{"redeem"}},
		{"can i pay with paypal at checkout", nil},
		{"use my card to pay", nil},
		{"use the side door", nil},
		{"send the sweater to my mum", nil},
		{"take the back road", nil},
	} {
		ws := lang.ScanWords(tt.text)
		var got []string
		for i := range ws {
			got = append(got, phrasalMeanings(ws, i)...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("phrasal meanings of %q = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// "send back" is a return even when the thing sent back is a shop's product, and a bound on an
// amount is a price, which the shop's texts talk about.
func TestRoutePhrasalVerbsAndPrices(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"send back", []string{"want to send back the sweater, it's too small"}, []string{"ask_support"}},
		{"under bucks", []string{"Do you happen to know where I could get a decent espresso machine for under 150 bucks?"}, []string{"ask_shop"}},
		{"under quid", []string{"need a new mattress under 400 quid, whats out there"}, []string{"ask_shop"}},
	})
}
