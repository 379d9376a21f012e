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

// The snake_case identifiers Humanise reads without decoding runes read as the runes say.
func TestHumaniseSnake(t *testing.T) {
	for _, id := range []string{"", "_", "points_balance", "points_balance_2", "a__b", "_a", "a_", "order_id",
		"id", "url_path", "uri", "identity_uri", "x1_y2", "Points_balance", "points-balance", "café_menu"} {
		if got, want := Humanise(id), humaniseRunes(id); got != want {
			t.Errorf("Humanise(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestCapitalise(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"order shipped", "Order shipped"},
		{"éclair", "Éclair"},
		{"\xff", "\xff"},     // an invalid first byte is kept, not read as three
		{"\xffab", "\xffab"}, // and what follows it is not cut
		{"1 item", "1 item"},
	} {
		if got := Capitalise(tt.in); got != tt.want {
			t.Errorf("Capitalise(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
