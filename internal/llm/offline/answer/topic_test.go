package answer

import "testing"

func TestTopicOfNamesTheData(t *testing.T) {
	tests := []struct{ tool, noun string }{
		{"get_points_balance", "your points balance"},
		{"search_offers", "the offers"},
		{"list_my_prescriptions", "your prescriptions"}, // not "your my prescriptions"
		{"get_our_hours", "your hours"},
		{"ask_rewards", "your rewards"},
		{"get_my", "your my"}, // a possessive alone is the only word there is
	}
	for _, tt := range tests {
		if got := topicOf(tt.tool, nil).noun; got != tt.noun {
			t.Errorf("topicOf(%q).noun = %q, want %q", tt.tool, got, tt.noun)
		}
	}
}
