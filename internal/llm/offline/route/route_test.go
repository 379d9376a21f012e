package route

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestParseCap(t *testing.T) {
	tests := []struct {
		system string
		want   int
	}{
		{"Call at most 3 ask_ tools per turn.", 3},
		{"Pick AT MOST two agents by relevance.", 2},
		{"at most 0 tools", 0},
		{"no rule here", 0},
	}
	for _, tt := range tests {
		if got := ParseCap(tt.system); got != tt.want {
			t.Errorf("parseCap(%q) = %d, want %d", tt.system, got, tt.want)
		}
	}
}

func TestParseExamples(t *testing.T) {
	system := "Examples:\n- \"where is my parcel?\" -> ask_parcels\n  * “book a table” → ask_dining\nnot an example -> ask_x\n" +
		"What each specialist can look up:\n- ask_dining: list_bookings: The user's table bookings.\nask_x: no_tool\n"
	want := map[string][]string{
		"ask_parcels": {"where is my parcel?"}, "ask_dining": {"book a table"},
		capabilityKey + "ask_dining": {"list bookings: The user's table bookings."},
	}
	if diff := cmp.Diff(want, parseExamples(system)); diff != "" {
		t.Errorf("parseExamples() mismatch (-want +got):\n%s", diff)
	}
}

func TestDecidePriceIsEveryAgents(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons, and looks up and compares prices and costs to find the cheapest place to buy.",
			"whats the cheapest price for airpods pro", "how much is the nintendo switch right now", "compare prices for a 65 inch tv"}},
		{Texts: []string{"pest control", "Pest control for homes: books a technician visit for mice, rats, wasps and bedbugs."},
			Tools: []string{"Book visit: Book a technician visit for a pest problem, with the price and the first free slot."}},
		{Texts: []string{"translation", "Professional translation service for documents such as certificates and diplomas."},
			Tools: []string{"Get quote: Price and turnaround for translating a document between two languages."}},
	})
	tests := []struct {
		text string
		want int
	}{
		{"how much does it cost to get rid of mice", 1},
		{"get me a price for translating my degree into spanish", 2},
		{"how much is a playstation 5", 0},
	}
	for _, tt := range tests {
		got := Decide(ix, []string{tt.text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.text, got, tt.want)
		}
	}
}

// A short question in words an agent that lost the earlier turn knows ("whats the tracking
// number") asks on about the earlier thing when that agent reached the earlier turn only
// through words both agents share ("order"); when it reached it through a thing of its own
// ("my trip"), the question is about that thing.
func TestDecideFollowUpWhereAgentsShareWords(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders: order status, delivery, tracking numbers and the courier of recent orders, returns and refunds.",
			"where is my order", "whats the tracking number for my last order", "has my order shipped yet", "where is my package"}},
		{Texts: []string{"pharmacy", "Online pharmacy: the customer's prescriptions, refills ordered from the pharmacy and their delivery, and advice on medicines."},
			Tools: []string{"Order refill: Order a refill of a prescription medicine, or show where an ordered refill is."}},
		{Texts: []string{"laundry", "Laundry: shirts cleaned."}},
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip.", "when is my next trip", "is my flight delayed", "my trip to rome", "cancel my trip"}},
	})
	tests := []struct {
		humans []string
		want   int
	}{
		{[]string{"where is my prescription order", "whats the tracking number"}, 1},
		{[]string{"i need my shirts cleaned before my trip", "what time is that flight again"}, 3},
	}
	for _, tt := range tests {
		got := Decide(ix, tt.humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.humans, got, tt.want)
		}
	}
}

// The earlier turn lost an agent in the words both share ("order"), not in a thing of that
// agent's the message named in passing ("trip").
func TestLostBefore(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders: order status, delivery, tracking numbers and the courier of recent orders, returns and refunds.",
			"where is my order", "whats the tracking number for my last order", "has my order shipped yet", "where is my package"}},
		{Texts: []string{"pharmacy", "Online pharmacy: the customer's prescriptions, refills ordered from the pharmacy and their delivery, and advice on medicines."}},
		{Texts: []string{"laundry", "Laundry for shirts and suits."}},
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip.", "when is my next trip", "is my flight delayed"}},
	})
	p := &planner{ix: ix, substance: true, margin: lang.Number("margin")}
	tests := []struct {
		earlier   string
		was, tool int
		want      bool
	}{
		{"where is my prescription order", 1, 0, true},
		{"i need shirts washed for my trip", 2, 3, false},
		{"where is my prescription order", 1, 3, false}, // travel was never in it
	}
	for _, tt := range tests {
		prev := &planned{text: tt.earlier, intents: []Intent{{Tool: tt.was}}}
		if got := p.lostBefore(prev, tt.tool); got != tt.want {
			t.Errorf("lostBefore(%q to %d, %d) = %v, want %v", tt.earlier, tt.was, tt.tool, got, tt.want)
		}
	}
}

// A follow-up that names the user's own thing in words another agent's texts put together
// ("and what about the points on my credit card" after loyalty points, where the loyalty
// agent's cards are gift cards) moves to that agent, though it shares "points" with the earlier.
func TestDecideFollowUpNamesOwnThingOfAnotherAgent(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"rewards", "Loyalty program: the member's points balance (points, pts, credits), tier, and the gift cards and perks points can buy.",
			"how many points do i have", "whats my points balance", "any gift cards under 5000 points", "do i have enough points for a gift card"}},
		{Texts: []string{"cardclub", "Credit card benefits desk: card reward points and cashback, the card's perks, and disputing a charge on the card."},
			Tools: []string{"Card rewards: The cardholder's credit card reward points and cashback this statement."}},
	})
	humans := []string{"how many loyalty points have i got", "and what about the points on my credit card"}
	got := Decide(ix, humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1", humans, got)
	}
}

// A follow-up that opens as one ("what about", "and") and names a thing no agent's words know
// (a team, a person) asks the earlier question again of that thing; a question of the same
// words with no follow-up lead is about the world.
func TestDecideFollowUpLeadWithUnknownThing(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"stadium", "Football club ticket office: match tickets and season tickets for home games, the fixture list and kick-off times.",
			"when is the next home game", "are there tickets left for saturday", "what time is kick-off"},
			Tools: []string{"Fixtures: Upcoming matches with opponent, date, kick-off time and ticket prices."}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	tests := []dialogue{
		{[]string{"when is the next home match", "what about the rovers game"}, []int{0}},
		{[]string{"when is the next home match", "who founded the rovers"}, nil},
	}
	checkDecide(t, ix, tests)
}

// A follow-up that asks nothing and gives a number or a code answers what the earlier agent
// needs; one that gives none is small talk.
func TestDecideFollowUpGivesValue(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"hearing", "Hearing care clinic: hearing tests, fittings, and hearing aid batteries, domes and repairs.",
			"i need batteries for my hearing aids", "book a hearing test", "my hearing aid is broken"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	tests := []dialogue{
		{[]string{"i need batteries for my hearing aids", "type 675, six boxes"}, []int{0}},
		{[]string{"i need batteries for my hearing aids", "serial number HX-4410"}, []int{0}},
		{[]string{"i need batteries for my hearing aids", "lovely weather today"}, nil},
	}
	checkDecide(t, ix, tests)
}

// A few words that ask nothing narrow down the earlier request when they give a value or
// reach another agent only through a word it uses in passing.
func TestDecideFollowUpRefines(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip.", "when is my next trip", "is my flight delayed", "book me a flight to rome"}},
		{Texts: []string{"stadium", "Football club ticket office: match tickets and season tickets, seats, rows and gates.", "where is my seat", "which gate do i use"}},
	})
	tests := []dialogue{
		{[]string{"book me a flight to rome on friday", "back row"}, []int{0}},
		{[]string{"book me a flight to rome on friday", "which gate do i use at the stadium"}, []int{1}},
		{[]string{"book me a flight to rome on friday", "season tickets"}, []int{1}}, // a thing of the other agent's
		// A question in parting words ("later") still asks.
		{[]string{"book me a flight to rome on friday", "can i get a later one"}, []int{0}},
	}
	checkDecide(t, ix, tests)
}

// dialogue is a user's messages, the last one to route, and the agents it must reach.
type dialogue struct {
	humans []string
	want   []int
}

// checkDecide routes each dialogue's last message with the shipped settings.
func checkDecide(t *testing.T, ix *Index, tests []dialogue) {
	t.Helper()
	for _, tt := range tests {
		var got []int
		for _, in := range Decide(ix, tt.humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}) {
			got = append(got, in.Tool)
		}
		if !cmp.Equal(got, tt.want) {
			t.Errorf("Decide(%q) = %v, want %v", tt.humans, got, tt.want)
		}
	}
}

// A price word the user calls theirs ("my last charge") is a thing of the agent whose texts
// use it, not a question of price for the agent closest in meaning.
func TestDecideOwnPriceWord(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders: where an order is, returns and the refund for them, and the account.",
			"where is my last order", "did my refund go through", "whats the tracking number for my last order"}},
		{Texts: []string{"evcharge", "Electric vehicle charging network: finds chargers near a place, shows the user's charging sessions and what each one cost, and the charging plan and its price per kWh.",
			"find a rapid charger near leeds", "show my charging sessions this month"},
			Tools: []string{"Report fault: Report a charger that will not start or stop a charge."}},
	})
	text := "why was my last charge £18?? it was only 40 mins"
	got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1 alone", text, got)
	}
}

// Words that put two agents level leave the clause to the one whose texts alone speak of the
// thing the user calls theirs, whatever the sentence reads like.
func TestDecideOwnedThing(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"pestcontrol", "Pest control specialist: books a technician visit for mice, rats or wasps, and moves or cancels the user's visits.",
			"can someone come out for mice", "can I move my appointment to friday"}},
		{Texts: []string{"hearing", "Hearing care clinic: books hearing tests and hearing aid fittings, shows the user's appointments and orders hearing aid batteries."},
			Tools: []string{"Book appointment: Book or move a hearing test, fitting or check-up."}},
	})
	text := "can i move my fitting to the afternoon"
	got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")})
	if len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1 alone", text, got)
	}
}

func TestSoleOwner(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"hearing", "Hearing clinic: hearing aid fittings and the user's plan.", "move my fitting"}},
		{Texts: []string{"streaming", "Streaming service: the user's plan and what to watch.", "how much is my plan"}},
		{Texts: []string{"rewards", "Loyalty points and gift cards: what a gift card costs.", "can i afford the gift card"}},
		{Texts: []string{"travel", "Trips and flights, with boarding times.", "when does boarding start"}},
		{Texts: []string{"ski", "Ski lifts and passes.", "how much are passes"}},
	})
	tests := []struct {
		text string
		want int
	}{
		{"can i move my fitting", 0},
		{"is my plan going up", -1},          // two agents speak of plans
		{"the money back on my card", -1},    // the only card is a gift card
		{"printing our boarding passes", -1}, // boarding is one agent's, passes another's
		{"what time is my next one", -1},     // a light noun is no one's thing
		{"where is the fitting", -1},         // no thing of the user's
	}
	for _, tt := range tests {
		if got := ix.soleOwner(lang.ScanWords(tt.text)); got != tt.want {
			t.Errorf("soleOwner(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// A short question that neither its words nor its sentence take to any agent asks on about
// the earlier subject; one that reads as small talk stays answered directly.
func TestDecideFollowUpReachesNoAgent(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"dorms", "Student housing office: your dorm room, roommates, housing charges and maintenance requests for your room.",
			"what dorm room am i in", "my heater is broken"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip.", "is my flight delayed"}},
	})
	tests := []dialogue{
		{[]string{"when is someone coming to fix the heater in my dorm", "who's the tech"}, []int{0}},
		{[]string{"when is someone coming to fix the heater in my dorm", "how are you today"}, nil},
	}
	checkDecide(t, ix, tests)
}

// "what happened with" asks about the thing it names, in any form of the verb: an agent whose
// texts say what happens next is not the one asked.
func TestDecideHappenIsNoSubject(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"rental", "Car rental: reservations, pick-up and return, and damage reports opened on a rental with the repair estimate and what happens next.",
			"what's happening with the damage report on my rental"}},
		{Texts: []string{"hoa", "Homeowners association: dues, amenity bookings, and violation notices with their fines.", "did i get a violation notice"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"what happened with the paint color violation"}, []int{1}},
		{[]string{"whats happening with my lamp repair estimate"}, []int{0}},
	})
}

// A form of a request verb ("looks") says how a thing seems, not what it is: an agent whose
// tools "look up" orders is not asked about a statement that looks wrong.
func TestDecideRequestVerbFormIsNoSubject(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"mobile", "Mobile phone plan: data left, the monthly bill, roaming and upgrades.", "how much data do i have left"},
			Tools: []string{"Bill: the monthly bill with its charges."}},
		{Texts: []string{"support", "Customer support for orders: deliveries, returns and refunds.", "where is my order"},
			Tools: []string{"Orders: looks up the user's orders and what looks wrong with one.", "Returns: looks up returns and refunds."}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"my monthly statement looks wrong"}, []int{0}},
	})
}

// A short question in a conversation whose words take it to the agent the earlier request went
// to asks on about that subject, however much it sounds like a question about the world; why
// things are so, whether they are good and their history stay asides.
func TestDecideStaysWithEarlier(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"karting", "Go-karting track: kids' karting parties with room, food and height rules, race bookings and lap times.",
			"what time is my kart party", "what was my best lap"}},
		{Texts: []string{"framing", "Picture framing shop: framing quotes with price and validity, orders and pick-up.", "how much is the quote for my print"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip.", "is my flight delayed"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"what time is my kart party", "how tall must the kids be"}, []int{0}},
		{[]string{"how much is the quote for my print", "how long is the quote good for"}, []int{1}},
		{[]string{"what time is my kart party", "why do the karts go so fast"}, nil},
		{[]string{"is my flight delayed", "why do airlines overbook the flights"}, nil},
		{[]string{"how much is the quote for my print", "whats the history of the picture frame"}, nil},
	})
}

// Why a business cancelled or charged something is asked of the agent that did it, however
// much it sounds like a question about the world; why the world went as it did is not.
func TestDecideWhyItHappened(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"pottery", "Pottery studio: wheel and handbuilding classes, class bookings and cancellations, kiln firings and studio membership.",
			"book me a wheel class on saturday", "when is my glaze firing"}},
		{Texts: []string{"support", "Customer support for orders: deliveries, returns and refunds.", "where is my order", "did i get my refund"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"why did the wheel class get cancelled"}, []int{0}},
		{[]string{"why did the studio cancel the glaze firing"}, []int{0}},
		{[]string{"why did the roman empire fall"}, nil},
	})
}

// Money the user asks after ("my money back", "my deposit") in a follow-up is the earlier
// booking's, whichever agent's texts speak of refunds; a thing of another agent's moves on.
func TestDecideFollowUpMoneyIsEarlierThings(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"pottery", "Pottery studio: wheel and handbuilding classes, class bookings and cancellations, kiln firings and studio membership.",
			"book me a wheel class on saturday", "when is my glaze firing"}},
		{Texts: []string{"support", "Customer support for orders: deliveries, returns, refunds and money back on an order.", "where is my order", "did i get my refund"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"why did the wheel class get cancelled", "did i get my money back"}, []int{0}},
		{[]string{"why did the wheel class get cancelled", "where is my order"}, []int{1}},
	})
}
