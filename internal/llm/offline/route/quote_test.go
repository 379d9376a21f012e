package route

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A follow-up that points back at the message before it carries that message to its agent
// when no other rule did: the earlier message went nowhere, or to another agent whose words
// it shares with this one.
func TestDecideQuotesThePreviousMessage(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders: order status and order numbers, delivery, tracking, returns and refunds.",
			"where is my order", "whats my order number", "has my order shipped yet"}},
		{Texts: []string{"travel", "Travel specialist: flights, hotels and the itinerary of an upcoming trip.", "when is my next trip", "is my flight delayed"}},
		{Texts: []string{"solar", "Solar installation: the panels and the battery, production and the solar loan.",
			"how much power are my panels making", "when is my solar loan payment due"},
			Tools: []string{"Equipment: the inverters and the battery with their warranties."}},
		{Texts: []string{"hearing", "Hearing clinic: the patient's hearing aids and their warranty, appointments and accessories.",
			"is my hearing aid still under warranty", "how many years of warranty do i have", "when is my next hearing test"}},
	})
	tests := []struct {
		humans []string
		tool   int
		quoted string // the earlier message the routed request quotes, "" for none
	}{
		{[]string{"is the heart rate strap on its way yet", "whats the order number for it"}, 0, "is the heart rate strap on its way yet"},
		{[]string{"how many years of warranty do the inverters have", "and the battery?"}, 2, "how many years of warranty do the inverters have"},
		// A follow-up that names a thing of its own carries nothing.
		{[]string{"is my flight delayed", "and has my order shipped yet"}, 0, ""},
	}
	for _, tt := range tests {
		got := Decide(ix, tt.humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.tool {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.humans, got, tt.tool)
			continue
		}
		_, quoted, _ := strings.Cut(got[0].Text, lang.EarlierMarker)
		if quoted = strings.TrimSuffix(quoted, ")"); quoted != tt.quoted {
			t.Errorf("Decide(%q) quotes %q, want %q", tt.humans, quoted, tt.quoted)
		}
	}
}
