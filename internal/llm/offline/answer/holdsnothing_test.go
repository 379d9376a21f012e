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

// BenchmarkHoldsNothingAsked is the check a sub-agent makes of its one result before it
// answers: a search's offers, in the shape the demo shop's service returns them, read afresh
// for each request as a new result is.
func BenchmarkHoldsNothingAsked(b *testing.B) {
	const offers = `{"status":"ok","data":{"query":"running shoes","matched_query":true,"offers":[` +
		`{"id":"off-a-101","title":"Nike Pegasus 41 road running shoes","merchant":"Nike","price":104,"currency":"USD","discount_percent":20,"ends":"2026-12-05"},` +
		`{"id":"off-a-102","title":"Brooks Ghost 16 running shoes","merchant":"Running Warehouse","price":118.95,"currency":"USD","discount_percent":15,"ends":"2026-12-02"},` +
		`{"id":"off-a-103","title":"Adidas Samba OG sneakers","merchant":"Foot Locker","price":80,"currency":"USD","discount_percent":20,"ends":"2026-12-09"},` +
		`{"id":"off-a-104","title":"Garmin Forerunner 165 GPS running watch","merchant":"REI","price":199.99,"currency":"USD","discount_percent":20,"ends":"2026-12-03"},` +
		`{"id":"off-a-105","title":"Lululemon Swiftly Tech short-sleeve running shirt","merchant":"Lululemon","price":58,"currency":"USD","discount_percent":15,"ends":"2026-12-07"}]},` +
		`"answer":"I found 5 deals; the best 3:\n- Nike Pegasus 41 road running shoes: $104.00 at Nike, 20% off until Dec 5, 2026\n- Brooks Ghost 16 running shoes: $118.95 at Running Warehouse, 15% off until Dec 2, 2026\n- Adidas Samba OG sneakers: $80.00 at Foot Locker, 20% off until Dec 9, 2026"}`
	dom := map[string]bool{"deal": true, "offer": true, "coupon": true, "price": true, "shop": true}
	b.ReportAllocs()
	for b.Loop() {
		if HoldsNothingAsked(NewResult("search_offers", offers), "any deals on running shoes", 5, func() map[string]bool { return dom }) {
			b.Fatal("the offers hold the running shoes asked for")
		}
	}
}
