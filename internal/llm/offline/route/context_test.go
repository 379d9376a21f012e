package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
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
		if got := narrates(lang.ScanWords(tt.clause)); got != tt.want {
			t.Errorf("narrates(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}

func TestStandsNow(t *testing.T) {
	for _, tt := range []struct {
		clause string
		want   bool
	}{
		{"our train home is at 5", true},
		{"my neck is sore from the hotel bed", true},
		{"my flight left without me", false},
		{"the fridge is full", false}, // not the user's own thing
		{"my order is missing", false},
		{"i wonder if the slopes are icy", false},
	} {
		if got := standsNow(lang.ScanWords(tt.clause)); got != tt.want {
			t.Errorf("standsNow(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}

// What someone else says the user needs is the scene, not the user's wish or complaint.
func TestReportedIsNoWish(t *testing.T) {
	for _, tt := range []struct {
		clause         string
		wish, complain bool
	}{
		{"my instructor says i need more lessons", false, false},
		{"the garage reckons we still owe them for the tyres", false, false},
		{"i need more lessons", true, true},
		{"i said i need a refund", true, true},
	} {
		ws := lang.ScanWords(tt.clause)
		if got := wishes(ws); got != tt.wish {
			t.Errorf("wishes(%q) = %v, want %v", tt.clause, got, tt.wish)
		}
		if got := complains(ws); got != tt.complain {
			t.Errorf("complains(%q) = %v, want %v", tt.clause, got, tt.complain)
		}
	}
}

func TestRepeats(t *testing.T) {
	for _, tt := range []struct {
		clause, next string
		want         bool
	}{
		{"i was charged for a hotel i cancelled", "i want to dispute the charge", true},
		{"my parcel came damaged", "can you refund that parcel", true},
		{"i was charged for a hotel i cancelled", "i want to dispute a charge", false}, // not the one told of
		{"my flight got cancelled", "whats my points balance", false},
	} {
		if got := repeats(lang.ScanWords(tt.clause), lang.ScanWords(tt.next)); got != tt.want {
			t.Errorf("repeats(%q, %q) = %v, want %v", tt.clause, tt.next, got, tt.want)
		}
	}
}

// A complaint the next clause's request takes up again ("the charge") is that request's
// scene, not a question of its own to the agent its other words reach ("a hotel").
func TestDecideSceneTakenUp(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"travel", "Travel specialist for trips: flights and hotel stays, cancellations and the itinerary.", "find me a hotel in lisbon", "show my upcoming bookings"}},
		{Texts: []string{"cardclub", "Credit card benefits desk: card points, perks, and disputing a charge on the card."},
			Tools: []string{"Dispute charge: Open a dispute for a charge on the credit card statement."}},
	})
	text := "i was charged for a hotel i cancelled, i want to dispute the charge"
	got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1 alone", text, got)
	}
}

// A statement after a question that says how the user's own things stand ("our train home is
// at 5") explains the question; it is no second question to the agent its words reach.
func TestDecideStateAfterQuestion(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"ski", "Ski resort desk: which lifts and pistes are open, snow report, ski school lessons.", "are the lifts running", "book a ski lesson"}},
		{Texts: []string{"travel", "Travel specialist for trips: trains, flights and hotel stays, and the itinerary.", "when does my train leave", "find me a hotel in lisbon"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on desks, chairs and electronics.", "any deals on laptops"}},
	})
	tests := []struct {
		text string
		want int
	}{
		{"which lifts are open this morning? our train home is at 5 so we only have a few hours", 0},
		{"any deals on desk chairs, my neck is sore from the hotel bed", 2},
	}
	for _, tt := range tests {
		got := Decide(ix, []string{tt.text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d alone", tt.text, got, tt.want)
		}
	}
}

// A statement of what someone else says the user needs sets the scene of the question after
// it; it reaches no agent of its own.
func TestDecideReportedNeedIsScene(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders: refunds, returns and where an order is.", "where is my refund", "track my order"}},
		{Texts: []string{"tax", "Tax helper: tax returns, receipts and expenses to claim, talks to your accountant.", "add my receipts to my tax return"}},
	})
	text := "my accountant says i need the receipts, so where's the refund for the kettle i sent back?"
	got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 0 {
		t.Errorf("Decide(%q) = %v, want agent 0 alone", text, got)
	}
}

// A clause that names nothing but a price asks what the request before it costs, though a
// clause that asks nothing stands between them.
func TestDecidePriceOfEarlierRequest(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons, and looks up and compares prices and costs to find the cheapest place to buy.",
			"whats the cheapest price for airpods pro", "how much is the nintendo switch right now", "compare prices for a 65 inch tv"}},
		{Texts: []string{"tennis", "Tennis club: books courts, coaching sessions and junior camps with their prices, and the member's membership.",
			"book a court for saturday at 10", "how much is a private lesson with a coach"}},
	})
	text := "my kid wants to do the half term junior camp, is there space and whats the price"
	got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1 alone", text, got)
	}
}

// A clause that says the user is done with a thing ("no more marina fees for us") tells why
// they ask the next question; it asks nothing of the thing's agent.
func TestDecideDeclinedThingIsScene(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"marina", "Marina office: berths, mooring fees, fuel and the boatyard.", "is my mooring fee paid", "any visitor berths this weekend"}},
		{Texts: []string{"travel", "Travel specialist for trips: flights and hotel stays, and the itinerary.", "find me a hotel in lisbon", "when does my flight leave"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"we sold the boat so no more mooring fees for us! any hotels in lisbon for may?"}, []int{1}},
		{[]string{"is my mooring fee paid, and any hotels in lisbon for may?"}, []int{0, 1}},
	})
}

func TestDeclines(t *testing.T) {
	for _, tt := range []struct {
		clause string
		want   bool
	}{
		{"so no more marina fees for us", true},
		{"no wine for me lol", true},
		{"no fees for the boat", false}, // says for what, not for whom
		{"no more beetroot I beg you", false},
		{"a table for us", false},
	} {
		if got := declines(lang.ScanWords(tt.clause)); got != tt.want {
			t.Errorf("declines(%q) = %v, want %v", tt.clause, got, tt.want)
		}
	}
}
