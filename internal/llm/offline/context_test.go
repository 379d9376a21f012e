package offline

import (
	"slices"
	"testing"

	"github.com/tmc/langchaingo/llms"
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
		if got := narrates(scanWords(tt.clause)); got != tt.want {
			t.Errorf("narrates(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}

// A statement of what happened sets the scene for the question after it, or explains the
// question before it, and asks no agent of its own; a complaint is a request of its own.
func TestRouteSceneSettingStatements(t *testing.T) {
	m := New()
	for _, tt := range []struct {
		message string
		want    []string
	}{
		{"my flight got cancelled last month and the airline refunded me, how many points do i have now?", []string{"ask_rewards"}},
		{"my order never arrived, and how many points do i have?", []string{"ask_support", "ask_rewards"}},
		{"booked a hotel in rome for the 12th, how many points do i have", []string{"ask_rewards"}},
		{"is my flight delayed, and how many points do i have", []string{"ask_travel", "ask_rewards"}},
		{"any deals on a big suitcase? we booked a trip to rome for june", []string{"ask_shop"}},
		{"any deals on a big suitcase? also my refund never came through", []string{"ask_shop", "ask_support"}},
	} {
		msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), tt.message)
		resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
		if err != nil {
			t.Fatalf("GenerateContent(%q) error = %v", tt.message, err)
		}
		var got []string
		for _, r := range routedCalls(t, resp.Choices[0]) {
			got = append(got, r.Tool)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GenerateContent(%q) routed to %v, want %v", tt.message, got, tt.want)
		}
	}
}
