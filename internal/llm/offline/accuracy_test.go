package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// accuracyCases are user turns written apart from the fixtures' examples, so they measure
// how routing generalises rather than whether it can repeat its examples.
var accuracyCases = []struct {
	text string
	want []string // agent ids, in order
}{
	{"are there any sales on laptops right now", []string{"shop"}},
	{"I need a promo code for pizza", []string{"shop"}},
	{"what's the cheapest place to buy a kindle", []string{"shop"}},
	{"compare the price of the nintendo switch", []string{"shop"}},
	{"discounts on winter jackets?", []string{"shop"}},
	{"what's my points balance", []string{"rewards"}},
	{"which tier am I on", []string{"rewards"}},
	{"can I redeem my points for a gift card", []string{"rewards"}},
	{"how far am I from the next membership level", []string{"rewards"}},
	{"show me the rewards catalog", []string{"rewards"}},
	{"when will my package arrive", []string{"support"}},
	{"I want to check on my refund", []string{"support"}},
	{"show my recent orders", []string{"support"}},
	{"what address do you have on my account", []string{"support"}},
	{"has my return been processed", []string{"support"}},
	{"what trips do I have coming up", []string{"travel"}},
	{"is my flight to Denver delayed", []string{"travel"}},
	{"I need a hotel in Barcelona for the weekend", []string{"travel"}},
	{"which gate does BA 283 leave from", []string{"travel"}},
	{"any hotels near the Chicago airport", []string{"travel"}},
	{"my basil keeps wilting", []string{"garden"}},
	{"is it too late to sow carrot seeds", []string{"garden"}},
	{"how do I get rid of slugs in my garden", []string{"garden"}},
	{"deals on headphones and my points balance", []string{"shop", "rewards"}},
	{"where is my order? also is my flight on time", []string{"support", "travel"}},
	{"what tier am I, and any hotels in Madrid", []string{"rewards", "travel"}},
	{"coupons for shoes plus when should I water my lawn", []string{"shop", "garden"}},
	{"my refund status, my points and my next trip", []string{"support", "rewards", "travel"}},
	{"hwo many ponits do i have", []string{"rewards"}},
	{"any dicsount codes for electronics", []string{"shop"}},
}

// TestRoutingAccuracy measures routing over accuracyCases and fails under 90%; the exact
// figure is logged (go test -v) for the report.
func TestRoutingAccuracy(t *testing.T) {
	agents := append(append([]agentFixture(nil), conciergeAgents...), gardenAgent)
	m := New()
	opts := llms.WithTools(askTools(agents...))
	system := orchestratorPrompt(3, agents...)
	correct := 0
	for _, c := range accuracyCases {
		resp, err := m.GenerateContent(t.Context(), routeMessages(system, c.text), opts)
		if err != nil {
			t.Fatalf("GenerateContent(%q) error = %v", c.text, err)
		}
		var got []string
		for _, tc := range resp.Choices[0].ToolCalls {
			got = append(got, strings.TrimPrefix(tc.FunctionCall.Name, "ask_"))
		}
		if slices.Equal(got, c.want) {
			correct++
		} else {
			t.Logf("miss: %q routed to %v, want %v", c.text, got, c.want)
		}
	}
	acc := float64(correct) / float64(len(accuracyCases))
	t.Logf("routing accuracy: %d/%d = %.0f%%", correct, len(accuracyCases), 100*acc)
	if acc < 0.9 {
		t.Errorf("routing accuracy %.2f, want >= 0.90", acc)
	}
}
