package answer

import "testing"

// TestHoldsNothingAskedFollowUp checks that a follow-up naming a thing of its own is read by
// that thing: a result holding only the earlier turn's words holds nothing asked, so the
// agent's other tools are looked in.
func TestHoldsNothingAskedFollowUp(t *testing.T) {
	account := `{"status":"ok","data":{"account":{"owner":"Bob Martinez","balance":{"amount":0.00,"currency":"USD"}}}}`
	bookings := `{"status":"ok","data":{"bookings":[{"amenity":"Pickleball court 1","status":"waitlisted"}]}}`
	dom := map[string]bool{"hoa": true, "account": true, "amen": true}
	tests := []struct {
		name, asked, content string
		want                 bool
	}{
		{"own thing not held, earlier words held", "am i on the pickleball court (earlier: whats my hoa balance)", account, true},
		{"own thing held", "am i on the pickleball court (earlier: whats my hoa balance)", bookings, false},
		{"a follow-up pointing back asks of the earlier record", "can i cancel it (earlier: whats my hoa balance)", account, false},
		{"plain request, thing not held", "am i on the pickleball court", account, true},
		{"plain request, thing held", "what is my balance", account, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HoldsNothingAsked(Result{Name: "account", Content: tt.content}, tt.asked, 5, func() map[string]bool { return dom })
			if got != tt.want {
				t.Errorf("HoldsNothingAsked(%q) = %v, want %v", tt.asked, got, tt.want)
			}
		})
	}
}
