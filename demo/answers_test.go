package demo_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/demo"
)

// TestDemoAnswers renders the demo tools' answer templates over what the demo CCS answers, for
// the questions users asked when the replies missed them: each answer must state what was
// asked, about the record the user names, and nothing the question did not ask for.
func TestDemoAnswers(t *testing.T) {
	set, err := definitions.LoadFS(demo.Agents, ".")
	if err != nil {
		t.Fatalf("LoadFS(demo.Agents) error:\n%v", err)
	}
	tools := map[string]definitions.Tool{}
	for _, d := range set.All() {
		for _, tool := range d.Tools {
			tools[tool.Name] = tool
		}
	}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	server := ccsdemo.New(ccsdemo.Options{Now: func() time.Time { return now }})

	tests := []struct {
		name, user, tool, question string
		params                     map[string]any
		// raw, when set, is the payload in place of the demo CCS's: data the demo users
		// do not have (an order the tracker lists late, a status the templates do not name).
		raw           string
		want, exclude []string
	}{
		{
			name: "tier names the current one first", user: ccsdemo.Alice, tool: "get_tier",
			question: "how close am i to gold status",
			want:     []string{"Your tier is Silver.", "2,550 more points to reach Gold"},
		},
		{
			name: "balance with expiry", user: ccsdemo.Alice, tool: "get_points_balance",
			question: "how many points do i have",
			want:     []string{"12,450 points", "300 pending", "1,200 of them expire on Dec 18, 2026"},
		},
		{
			name: "nothing expiring", user: ccsdemo.Bob, tool: "get_points_balance",
			question: "are any of my points about to expire",
			want:     []string{"None of your points are about to expire", "48,900"},
		},
		{
			name: "the reward named, with its cost", user: ccsdemo.Alice, tool: "browse_rewards",
			question: "how many points is the airport lounge pass",
			want:     []string{"Airport lounge day pass costs 12,000 points."},
			exclude:  []string{"Coffee", "hotel night"},
		},
		{
			name: "shipped: the shipped order, not the others", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "has my order shipped yet?",
			want:     []string{"Nike Pegasus 41", "A-10231", "has shipped and should arrive Nov 29, 2026"},
			exclude:  []string{"Balega", "HRM"},
		},
		{
			name: "a follow-up keeps the order it is about", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "can i cancel it? (earlier: has my order shipped yet?)",
			want:     []string{"A-10231"},
			exclude:  []string{"Balega", "HRM"},
		},
		{
			name: "the item named wins over a status word", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "has my heart rate strap shipped",
			want:     []string{"HRM-Pro Plus", "A-10177", "still processing and hasn't shipped yet"},
			exclude:  []string{"Pegasus"},
		},
		{
			name: "by order number", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "whats going on with order A-10198",
			want:     []string{"Balega running socks", "was delivered"},
			exclude:  []string{"Pegasus", "HRM"},
		},
		{
			name: "no tracking number in the data is said", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "tracking for the packing cubes please",
			want:     []string{"I don't have tracking numbers here", "B-55933"},
			exclude:  []string{"Anker", "Sony"},
		},
		{
			name: "the return named, refund not issued yet", user: ccsdemo.Bob, tool: "get_return_status",
			question: "did the refund for the keyboard go through",
			want:     []string{"Logitech MX Keys keyboard (order B-55790)", "$99.99 is issued once it arrives"},
			exclude:  []string{"Fitbit"},
		},
		{
			// The template cannot tell "the socks" from "my refund": it steps aside so the
			// model says no return is for the socks, instead of stating another item's refund.
			name: "an item with no return is left to the model", user: ccsdemo.Alice, tool: "get_return_status",
			question: "did i get my refund for the socks?",
			want:     nil, exclude: []string{"Ultraboost", "$190"},
		},
		{
			name: "unknown order number", user: ccsdemo.Bob, tool: "get_return_status",
			question: "return status for order B-99999", params: map[string]any{"order_id": "B-99999"},
			want: []string{"I found no return for order B-99999."},
		},
		{
			name: "odd words: no echo, no other offers", user: ccsdemo.Alice, tool: "search_offers",
			question: "deals on a waterprof jaket?", params: map[string]any{"query": "waterprof jaket"},
			want:    []string{"I couldn't find any current deals on that."},
			exclude: []string{"waterprof", "jaket", "Pegasus", "Hydro Flask"},
		},
		{
			name: "unknown product: no echo", user: ccsdemo.Alice, tool: "lookup_price",
			question: "how much is a dyson vacuum", params: map[string]any{"product": "dyson vacuum"},
			want:    []string{"I couldn't find a price for that product."},
			exclude: []string{"dyson", "$130"},
		},
		{
			name: "cheapest store first", user: ccsdemo.Bob, tool: "lookup_price",
			question: "how much are airpods pro", params: map[string]any{"product": "airpods pro"},
			want: []string{"cheapest at Amazon: $189.00", "Walmart: $199.00", "Apple: $249.00"},
		},
		{
			name: "no coupons for what was named", user: ccsdemo.Bob, tool: "list_coupons",
			question: "coupons for furnture?", params: map[string]any{},
			want:    []string{"You have no coupons for that right now."},
			exclude: []string{"furnture", "TECH20"},
		},
		{
			name: "the coupon whose description names the item", user: ccsdemo.Alice, tool: "list_coupons",
			question: "any code for sock packs", params: map[string]any{},
			want:    []string{"Use SOCKS3"},
			exclude: []string{"RUN15", "FREESHIP50"},
		},
		{
			name: "the coupon named by its code", user: ccsdemo.Bob, tool: "list_coupons",
			question: "till when can i use TRAVEL10", params: map[string]any{},
			want:    []string{"Use TRAVEL10", "(until Dec 22, 2026)"},
			exclude: []string{"TECH20"},
		},
		{
			name: "every coupon when none is named", user: ccsdemo.Alice, tool: "list_coupons",
			question: "show me my coupons", params: map[string]any{},
			want: []string{"I found 3 coupons:", "RUN15", "SOCKS3", "FREESHIP50"},
		},
		{
			name: "an order number none of the orders has", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "any news on order B-12345",
			want:     []string{"I couldn't find order B-12345 among your recent orders; these are the ones I have:", "B-55902"},
		},
		{
			name: "the orders not shipped yet", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "anything i bought that isn't sent out yet?",
			want:     []string{"Your Garmin HRM-Pro Plus heart-rate strap (order A-10177) is still processing"},
			exclude:  []string{"Pegasus", "Balega"},
		},
		{
			name: "the orders not delivered yet", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "what hasn't arrived",
			want:     []string{"2 of your orders haven't arrived yet:", "B-55933", "B-55902"},
			exclude:  []string{"Sony"},
		},
		{
			name: "when orders still to come arrive", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "when will my stuff get here",
			want:     []string{"2 of your orders haven't arrived yet:", "A-10231) has shipped and should arrive Nov 29, 2026", "A-10177) is still processing"},
			exclude:  []string{"Balega"},
		},
		{
			name: "an order number typed without its dash", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "b55933 status pls",
			want:     []string{"Your Samsonite packing cubes, set of 4 (order B-55933) is still processing"},
			exclude:  []string{"Anker", "Sony"},
		},
		{
			// The search also finds the Samba sneakers as shoes, but they are no running shoes.
			name: "the cheapest of the deals found that the question names", user: ccsdemo.Alice, tool: "search_offers",
			question: "which running shoe deal is cheapest", params: map[string]any{"query": "running shoes"},
			want:    []string{"Nike Pegasus 41 road running shoes is $104.00 at Nike"},
			exclude: []string{"Brooks", "Samba", "I found"},
		},
		{
			name: "the cheapest of the deals found, when the question names none", user: ccsdemo.Alice, tool: "search_offers",
			question: "which is cheapest", params: map[string]any{"query": "running shoes"},
			want:    []string{"Adidas Samba OG sneakers is $80.00 at Foot Locker"},
			exclude: []string{"Brooks", "Pegasus", "I found"},
		},
		{
			// A search for deals in general answers with all of them; the cheapest is one.
			name: "the cheapest of all the deals", user: ccsdemo.Alice, tool: "search_offers",
			question: "whats the cheapest deal you have", params: map[string]any{"query": "deal"},
			want:    []string{"Your cheapest current deal: Hydro Flask 24 oz water bottle, $29.95 at Dick's Sporting Goods"},
			exclude: []string{"Samba", "Pegasus", "best current deals"},
		},
		{
			name: "what the search missed, among the offers sent instead", user: ccsdemo.Alice, tool: "search_offers",
			question: "gps watches on sale?", params: map[string]any{"query": "wristwatches"},
			want:    []string{"I couldn't find a deal on exactly that; the closest:", "Garmin Forerunner 165 GPS running watch: $199.99 at REI"},
			exclude: []string{"Hydro Flask", "Samba", "watches"},
		},
		{
			// "good" is in a merchant's name (Dick's Sporting Goods), not in a product's.
			name: "a merchant's word is no product", user: ccsdemo.Alice, tool: "search_offers",
			question: "how long is that deal good for", params: map[string]any{"query": "long good"},
			want:    []string{"I couldn't find any current deals on that."},
			exclude: []string{"Hydro Flask"},
		},
		{
			name: "everything on sale", user: ccsdemo.Bob, tool: "search_offers",
			question: "show me everything on sale", params: map[string]any{"query": "everything"},
			want:    []string{"Your best current deals:", "Samsonite Freeform carry-on spinner: $159.00 at Macy's, 40% off"},
			exclude: []string{"couldn't find"},
		},
		{
			name: "the deals ending soonest", user: ccsdemo.Alice, tool: "search_offers",
			question: "any sales ending soon", params: map[string]any{"query": "ending soon"},
			want:    []string{"Your deals ending soonest:\n- Brooks Ghost 16 running shoes: $118.95 at Running Warehouse, 15% off until Nov 30, 2026"},
			exclude: []string{"couldn't find"},
		},
		{
			// "ends" alone asks about one deal, here one the search did not find.
			name: "when a deal not found ends", user: ccsdemo.Alice, tool: "search_offers",
			question: "yeti deal ends when?", params: map[string]any{"query": "yeti"},
			want:    []string{"I couldn't find any current deals on that."},
			exclude: []string{"Brooks", "Garmin"},
		},
		{
			name: "the biggest discounts", user: ccsdemo.Bob, tool: "search_offers",
			question: "whats the biggest discount right now", params: map[string]any{"query": "biggest discount right now"},
			want:    []string{"Your biggest current discounts:\n- Samsonite Freeform carry-on spinner: $159.00 at Macy's, 40% off"},
			exclude: []string{"couldn't find"},
		},
		{
			name: "deals in general", user: ccsdemo.Bob, tool: "search_offers",
			question: "any good deals today", params: map[string]any{"query": "deals"},
			want:    []string{"Your best current deals:", "Samsonite Freeform carry-on spinner: $159.00 at Macy's, 40% off"},
			exclude: []string{"couldn't find"},
		},
		{
			name: "the cheapest reward", user: ccsdemo.Bob, tool: "browse_rewards",
			question: "what's the cheapest thing i can redeem",
			want:     []string{"The cheapest reward is Coffee shop gift card, $5, for 500 points."},
			exclude:  []string{"hotel night", "lounge"},
		},
		{
			name: "the flight to the city named", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "is the flight to chicago delayed",
			want:     []string{"AA 2211 from SFO to ORD is scheduled"},
			exclude:  []string{"UA 837", "Also booked"},
		},
		{
			name: "the flight to the country named", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "when do i take off for japan",
			want:     []string{"UA 837 from SFO to NRT is on time"},
			exclude:  []string{"AA 2211"},
		},
		{
			name: "the only trip", user: ccsdemo.Alice, tool: "list_upcoming_trips",
			question: "what have i got booked",
			want:     []string{"Your only upcoming trip: Boston, MA (TR-A-7)"},
		},
		{
			name: "no trip to the place asked", user: ccsdemo.Alice, tool: "list_upcoming_trips",
			question: "am i going to paris",
			want:     []string{"I couldn't find a trip there among your bookings; your only upcoming trip is to Boston, MA."},
		},
		{
			name: "the first of several trips", user: ccsdemo.Bob, tool: "list_upcoming_trips",
			question: "when's the earliest trip i have",
			want:     []string{"Your trip: Tokyo, Japan (TR-B-31)"},
			exclude:  []string{"Chicago"},
		},
		{
			name: "no flight to the city asked", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "is the rome flight delayed",
			want:     []string{"I couldn't find a booked flight to that city; your booked flights are UA 837 to NRT and AA 2211 to ORD."},
			exclude:  []string{"G98"},
		},
		{
			name: "the flight named", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "is AA 2211 delayed",
			want:     []string{"AA 2211 from SFO to ORD is scheduled, with no delay reported", "no gate assigned yet"},
			exclude:  []string{"UA 837"},
		},
		{
			name: "my flight: the next one first, the others after", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "is my flight on time",
			want:     []string{"UA 837 from SFO to NRT is on time, departing Dec 9, 2026 18:20 UTC from gate G98.", "Also booked: AA 2211"},
		},
		{
			name: "an unknown flight", user: ccsdemo.Alice, tool: "get_flight_status",
			question: "is flight BA 117 delayed", params: map[string]any{"flight": "BA 117"},
			want:    []string{"I couldn't find that flight among your bookings."},
			exclude: []string{"DL 1432"},
		},
		{
			name: "the trip named", user: ccsdemo.Bob, tool: "list_upcoming_trips",
			question: "whats the hotel for the chicago trip",
			want:     []string{"Chicago, IL (TR-B-35)", "The Langham Chicago"},
			exclude:  []string{"Tokyo"},
		},
		{
			name: "next trip: the one that starts first", user: ccsdemo.Bob, tool: "list_upcoming_trips",
			question: "when is my next trip",
			want:     []string{"Your trip: Tokyo, Japan (TR-B-31)"},
			exclude:  []string{"Chicago"},
		},
		{
			name: "next trip: the earliest start, whatever the service's order", tool: "list_upcoming_trips",
			question: "when is my next trip",
			raw: `{"trips": [
				{"id": "TR-2", "destination": "Chicago, IL", "start": "2027-01-06", "end": "2027-01-08"},
				{"id": "TR-1", "destination": "Tokyo, Japan", "start": "2026-12-09", "end": "2026-12-16"}]}`,
			want:    []string{"Your trip: Tokyo, Japan (TR-1)"},
			exclude: []string{"Chicago"},
		},
		{
			name: "my flight: the earliest departure, whatever the tracker's order", tool: "get_flight_status",
			question: "is my flight on time",
			raw: `{"flights": [
				{"number": "AA 2211", "from": "SFO", "to": "ORD", "departs": "2027-01-06T14:45:00Z", "status": "scheduled"},
				{"number": "UA 837", "from": "SFO", "to": "NRT", "departs": "2026-12-09T18:20:00Z", "status": "on_time", "gate": "G98"}]}`,
			want:    []string{"UA 837 from SFO to NRT is on time", "Also booked: AA 2211"},
			exclude: []string{"Also booked: UA 837"},
		},
		{
			name: "a status the template does not name, in words", tool: "get_flight_status",
			question: "is DL 88 boarding",
			raw:      `{"flights": [{"number": "DL 88", "from": "JFK", "to": "LHR", "departs": "2026-12-01T22:10:00Z", "status": "now_boarding", "gate": "B4"}]}`,
			want:     []string{"DL 88 from JFK to LHR is now boarding, departing"},
			exclude:  []string{"now_boarding"},
		},
		{
			name: "several flights named: a lead line, then bullets", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "are my flights from SFO on time",
			want:     []string{"I found 2 flights:\n- UA 837", "\n- AA 2211"},
		},
		{
			name: "every order: a lead line, then bullets", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "what are my recent orders",
			want:     []string{"I found 3 orders:\n- Nike Pegasus 41", "\n- Balega", "\n- Garmin HRM-Pro Plus"},
		},
		{
			name: "several orders named: a lead line", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "where are the charger and the packing cubes",
			want:     []string{"I found 2 orders:\n- Samsonite packing cubes", "\n- Anker 65W"},
			exclude:  []string{"Sony"},
		},
		{
			name: "an order status the template does not name, in words", tool: "list_recent_orders",
			question: "where is my order",
			raw:      `{"orders": [{"id": "C-1", "item": "Desk lamp", "status": "out_for_delivery", "eta": "2026-11-27"}]}`,
			want:     []string{"Your Desk lamp (order C-1) is out for delivery"},
			exclude:  []string{"out_for_delivery"},
		},
		{
			name: "several returns named: a lead line", user: ccsdemo.Bob, tool: "get_return_status",
			question: "did the refunds for the keyboard and the fitbit go through",
			want:     []string{"I found 2 returns:\n- Logitech MX Keys keyboard", "\n- Fitbit Charge 6"},
		},
		{
			// The tool was asked about the order the earlier turn named: its one return is a
			// sentence, not a lone bullet.
			name: "the one return of the order asked about", user: ccsdemo.Bob, tool: "get_return_status",
			question: "is that return done yet", params: map[string]any{"order_id": "B-55790"},
			want:    []string{"Your return of the Logitech MX Keys keyboard (order B-55790): the item is on its way back"},
			exclude: []string{"- ", "Fitbit"},
		},
		{
			name: "when the return was last updated", user: ccsdemo.Bob, tool: "get_return_status",
			question: "when was that updated (earlier: my keyboard refund?)",
			want:     []string{"your refund of $99.99 is issued once it arrives (last updated Nov 26, 2026)."},
			exclude:  []string{"Fitbit"},
		},
		{
			name: "a return status the template does not name, in words", tool: "get_return_status",
			question: "whats happening with the return for the desk lamp",
			raw:      `{"returns": [{"order_id": "C-1", "item": "Desk lamp", "status": "awaiting_inspection", "refund_amount": 45, "currency": "USD", "updated": "2026-11-26"}]}`,
			want:     []string{"the return is awaiting inspection, and your refund of $45.00 has not been issued yet"},
			exclude:  []string{"awaiting_inspection"},
		},
		{
			name: "the latest order", user: ccsdemo.Alice, tool: "list_recent_orders",
			question: "whats my newest order",
			want:     []string{"Your Nike Pegasus 41, women's size 8 (order A-10231) has shipped"},
			exclude:  []string{"Balega", "Garmin", "I found"},
		},
		{
			name: "the orders that came already", user: ccsdemo.Bob, tool: "list_recent_orders",
			question: "which of those came already",
			want:     []string{"Your Sony WH-1000XM5 headphones (order B-55810) was delivered."},
			exclude:  []string{"Anker", "packing cubes"},
		},
		{
			name: "a coupon for a product of a coupon's category", user: ccsdemo.Bob, tool: "list_coupons",
			question: "do i have a coupon i can use on a tv",
			want:     []string{"Use TECH20: $20 off electronics orders over $150"},
			exclude:  []string{"TRAVEL10", "FREESHIP50", "no coupons"},
		},
		{
			name: "a coupon for a product of no coupon's category", user: ccsdemo.Alice, tool: "list_coupons",
			question: "any coupon for a tv",
			want:     []string{"You have no coupons for that right now."},
			exclude:  []string{"RUN15", "SOCKS3"},
		},
		{
			name: "the one deal the question names among those found", user: ccsdemo.Bob, tool: "search_offers",
			question: "how much are the sony headphones", params: map[string]any{"query": "sony headphones"},
			want:    []string{"Sony WH-1000XM5 noise cancelling headphones is $298.00 at Best Buy"},
			exclude: []string{"AirPods", "I found"},
		},
		{
			name: "how long a member", user: ccsdemo.Alice, tool: "get_account_profile",
			question: "how long have i been a member",
			want:     []string{"You've been a customer since Apr 12, 2019."},
		},
		{
			name: "a forgotten password: where the reset link goes", user: ccsdemo.Bob, tool: "get_account_profile",
			question: "cant log in, forgot my password",
			want:     []string{"I can't reset a password", "b***@example.com"},
			exclude:  []string{"1874 Larkin St"},
		},
		{
			name: "a profile field: the model's own reading", user: ccsdemo.Alice, tool: "get_account_profile",
			question: "what email do you have for me",
		},
		{
			name: "the trip after the next", user: ccsdemo.Bob, tool: "list_upcoming_trips",
			question: "and the one after that?",
			want:     []string{"Your trip: Chicago, IL (TR-B-35)"},
			exclude:  []string{"Tokyo"},
		},
		{
			name: "the trip after the only one", user: ccsdemo.Alice, tool: "list_upcoming_trips",
			question: "and the one after that?",
			want:     []string{"Your only upcoming trip: Boston, MA (TR-A-7)"},
		},
		{
			name: "a terminal the tracker does not give", user: ccsdemo.Alice, tool: "get_flight_status",
			question: "what terminal does my flight leave from",
			want:     []string{"The flight status doesn't say which terminal. DL 1432 from SFO to BOS"},
		},
		{
			name: "a seat the tracker does not give", user: ccsdemo.Bob, tool: "get_flight_status",
			question: "whats my seat on the tokyo flight",
			want:     []string{"The flight status doesn't give your seat. UA 837 from SFO to NRT is on time"},
		},
		{
			name: "a booking the trips do not hold", user: ccsdemo.Bob, tool: "list_upcoming_trips",
			question: "do i need a rental car in chicago",
			want:     []string{"I don't see a rental car among your bookings. Your trip: Chicago, IL (TR-B-35)"},
		},
		{
			name: "a tier's perks the service does not list", user: ccsdemo.Alice, tool: "get_tier",
			question: "what perks do i get as silver",
			want:     []string{"Your tier is Silver.", "The tier service doesn't list each tier's benefits."},
		},
		{
			name: "the most expensive reward", user: ccsdemo.Bob, tool: "browse_rewards",
			question: "whats the most expensive reward",
			want:     []string{"The most expensive reward is One hotel night at a partner hotel, for 25,000 points."},
			exclude:  []string{"coffee", "lounge"},
		},
		{
			// "one" is a word of "One hotel night" too: one reward named is no pool to pick from.
			name: "the cheapest one, after the catalogue", user: ccsdemo.Bob, tool: "browse_rewards",
			question: "which is the cheapest one",
			want:     []string{"The cheapest reward is Coffee shop gift card, $5, for 500 points."},
			exclude:  []string{"hotel night"},
		},
		{
			name: "the cheapest of the rewards named", user: ccsdemo.Bob, tool: "browse_rewards",
			question: "whats the cheapest gift card reward",
			want:     []string{"The cheapest one is Coffee shop gift card, $5, for 500 points."},
			exclude:  []string{"$25 store gift card"},
		},
		{
			name: "the coupon that expires first", user: ccsdemo.Alice, tool: "list_coupons",
			question: "which expires first",
			want:     []string{"Use RUN15: 15% off running shoes at Running Warehouse (until Dec 6, 2026)."},
			exclude:  []string{"SOCKS3", "FREESHIP50"},
		},
		{
			name: "when the points run out", user: ccsdemo.Alice, tool: "get_points_balance",
			question: "when do they run out",
			want:     []string{"1,200 of your points expire on Dec 18, 2026; you have 12,450 points in all."},
		},
		{
			name: "the cheapest hotel", user: ccsdemo.Alice, tool: "search_hotels",
			question: "which is cheapest", params: map[string]any{"city": "boston"},
			want:    []string{"The cheapest hotel in Boston is citizenM Boston North Station (West End): $217.55 a night"},
			exclude: []string{"Lenox"},
		},
		{
			name: "cheap hotels, cheapest first", user: ccsdemo.Bob, tool: "search_hotels",
			question: "cheap hotels in tokyo", params: map[string]any{"city": "tokyo"},
			want: []string{"Hotels in Tokyo, cheapest first:\n- Hotel Gracery Shinjuku (Kabukicho): $148.50 a night"},
		},
		{
			name: "hotels under a price", user: ccsdemo.Alice, tool: "search_hotels",
			question: "hotels in chicago under 300 a night", params: map[string]any{"city": "chicago"},
			want:    []string{"Hotels in Chicago for $300.00 a night or less, cheapest first:\n- Hotel Zachary (Wrigleyville): $255.55 a night"},
			exclude: []string{"Langham"},
		},
		{
			name: "no hotel under a price: the cheapest", user: ccsdemo.Alice, tool: "search_hotels",
			question: "any hotels in chicago below $200", params: map[string]any{"city": "chicago"},
			want: []string{"I couldn't find a hotel in Chicago for $200.00 a night or less; the cheapest is Hotel Zachary (Wrigleyville): $255.55 a night"},
		},
		{
			name: "a city without hotels: no echo", user: ccsdemo.Bob, tool: "search_hotels",
			question: "find me a hotel in lisbn", params: map[string]any{"city": "lisbn"},
			want:    []string{"I couldn't find any hotels there."},
			exclude: []string{"lisbn", "Park Hyatt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := tools[tt.tool]
			if !ok {
				t.Fatalf("no demo tool %q", tt.tool)
			}
			tmpl, err := tool.AnswerTemplate()
			if err != nil || tmpl == nil {
				t.Fatalf("%s.AnswerTemplate() = %v, %v; want a template", tt.tool, tmpl, err)
			}
			data := json.RawMessage(tt.raw)
			if tt.raw == "" {
				data = payload(t, server, tt.user, tool.Enricher, tt.params)
			}
			got, err := tmpl.Render(data, definitions.AnswerInput{Question: tt.question})
			if err != nil {
				t.Fatalf("Render(%q) error: %v", tt.question, err)
			}
			if tt.want == nil && got != "" {
				t.Errorf("Render(%q) = %q, want nothing (the model's own reading)", tt.question, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Render(%q) = %q, want it to contain %q", tt.question, got, w)
				}
			}
			for _, x := range tt.exclude {
				if strings.Contains(strings.ToLower(got), strings.ToLower(x)) {
					t.Errorf("Render(%q) = %q, want no %q", tt.question, got, x)
				}
			}
		})
	}
}

// payload asks the demo CCS for enricher's payload as user sees it.
func payload(t *testing.T, server http.Handler, user, enricher string, params map[string]any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	body, err := json.Marshal(ccs.EnricherRequest{Principal: user, EnricherID: enricher, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, ccs.EnrichPathPrefix+enricher, bytes.NewReader(body))
	r.Header.Set(ccs.HeaderPrincipal, user)
	w := httptest.NewRecorder()
	server.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("demo CCS %s for %s: status %d: %s", enricher, user, w.Code, w.Body)
	}
	var env struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatalf("demo CCS %s envelope: %v", enricher, err)
	}
	return env.Payload
}
