package offline

import "testing"

// "send back" is a return even when the thing sent back is a shop's product, and a bound on an
// amount is a price, which the shop's texts talk about.
func TestRoutePhrasalVerbsAndPrices(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"send back", []string{"want to send back the sweater, it's too small"}, []string{"ask_support"}},
		{"under bucks", []string{"Do you happen to know where I could get a decent espresso machine for under 150 bucks?"}, []string{"ask_shop"}},
		{"under quid", []string{"need a new mattress under 400 quid, whats out there"}, []string{"ask_shop"}},
	})
}
