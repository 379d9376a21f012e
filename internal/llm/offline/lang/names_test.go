package lang

import "testing"

func TestHumanise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"points_balance", "points balance"}, {"pointsBalance", "points balance"},
		{"points.balance", "points balance"}, {"order_id", "order ID"}, {"ask_x", "ask x"},
	}
	for _, tt := range tests {
		if got := Humanise(tt.in); got != tt.want {
			t.Errorf("humanise(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
