package offline

import (
	"slices"
	"testing"

	"github.com/tmc/langchaingo/llms"
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
		{"can I use points to pay for the hotel", []string{"redeem"}},
		{"can i pay with my points", []string{"redeem"}},
		{"use the side door", nil},
		{"send the sweater to my mum", nil},
		{"take the back road", nil},
	} {
		ws := scanWords(tt.text)
		var got []string
		for i := range ws {
			got = append(got, phrasalMeanings(ws, i)...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("phrasal meanings of %q = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// "send back" is a return even when the thing sent back is a shop's product.
func TestRoutePhrasalVerb(t *testing.T) {
	m := New()
	msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), "want to send back the sweater, it's too small")
	resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
	if err != nil {
		t.Fatal(err)
	}
	if got := routedCalls(t, resp.Choices[0]); len(got) != 1 || got[0].Tool != "ask_support" {
		t.Errorf("routed to %v, want ask_support", got)
	}
}

// A bound on an amount is a price, which the shop's texts talk about.
func TestRoutePriceBound(t *testing.T) {
	m := New()
	for _, msg := range []string{
		"Do you happen to know where I could get a decent espresso machine for under 150 bucks?",
		"need a new mattress under 400 quid, whats out there",
	} {
		resp, err := m.GenerateContent(t.Context(), routeMessages(orchestratorPrompt(3, conciergeAgents...), msg), llms.WithTools(askTools(conciergeAgents...)))
		if err != nil {
			t.Fatal(err)
		}
		if got := routedCalls(t, resp.Choices[0]); len(got) != 1 || got[0].Tool != "ask_shop" {
			t.Errorf("%q routed to %v, want ask_shop", msg, got)
		}
	}
}
