package offline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// compose runs the model on a turn whose tool calls have all been answered and returns its
// reply, failing the test on tool calls or text that users must not see.
func composeReply(t *testing.T, m *Model, human string, results ...[3]string) string {
	t.Helper()
	resp, err := m.GenerateContent(t.Context(), turnWithResults(human, results...), llms.WithTools(shopTools))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	c := resp.Choices[0]
	if len(c.ToolCalls) != 0 {
		t.Errorf("GenerateContent() made %d tool calls after results, want none", len(c.ToolCalls))
	}
	assertUserSafe(t, c.Content)
	return c.Content
}

// The payloads below are invented shapes of the kinds a context service returns: the model
// must read each from its keys alone.
func TestNarrateShapes(t *testing.T) {
	tests := []struct {
		name       string
		human      string
		tool, args string
		data       string
		want       string
	}{
		{
			name: "balances: the topic's own word needs no label",
			tool: "get_points_balance", args: `{}`,
			data: `{"points":12450,"pending":300,"expiring_soon":1200,"expires_on":"2026-12-12"}`,
			want: "Your points balance: 12,450 · pending 300 · expiring soon 1,200 · expires on Dec 12, 2026.",
		},
		{
			name: "profile: internal id and flags",
			tool: "account_profile", args: `{}`,
			data: `{"user_id":"u-93a1","name":"Alice Smith","email":"a***@example.com","member_since":"2019-04-02","is_verified":true,"marketing_opt_in":false}`,
			want: "Your account profile: Alice Smith · email a***@example.com · member since Apr 2, 2019 · verified · not marketing opt in.",
		},
		{
			name:  "a question about one field is answered with that field",
			human: "what's the shipping address on my account?",
			tool:  "account_profile", args: `{}`,
			data: `{"name":"Alice Smith","email":"a***@example.com","shipping_address":"221 Harbor Way, Seattle, WA 98101","member_since":"2019-04-02"}`,
			want: "Your shipping address: 221 Harbor Way, Seattle, WA 98101.",
		},
		{
			name:  "a field that describes rather than names is named by what it describes",
			human: "how many points are expiring soon?",
			tool:  "get_points_balance", args: `{}`,
			data: `{"points":12450,"pending":300,"expiring_soon":0}`,
			want: "Points expiring soon: 0.",
		},
		{
			name:  "words of the topic itself ask for all of it",
			human: "how many points do i have",
			tool:  "get_points_balance", args: `{}`,
			data: `{"points":12450,"pending":300}`,
			want: "Your points balance: 12,450 · pending 300.",
		},
		{
			name: "a currency that prices nothing is a fact of its own",
			tool: "account_profile", args: `{}`,
			data: `{"name":"Alice Smith","preferred_currency":"EUR"}`,
			want: "Your account profile: Alice Smith · preferred currency EUR.",
		},
		{
			name: "flight status: the asked-for flight is not echoed",
			tool: "flight_status", args: `{"flight":"UA123"}`,
			data: `{"flight":"UA123","status":"delayed","departure":"2026-03-03T10:15:00Z","gate":"B12","delay_minutes":25}`,
			want: "Your flight status: delayed · departure Mar 3, 2026 at 10:15 · gate B12 · delay 25 minutes.",
		},
		{
			name: "tier with the next tier and points to it",
			tool: "get_tier", args: `{}`,
			data: `{"name":"Gold","next_tier":"Platinum","points_to_next":5550,"benefits":["free shipping","lounge access"]}`,
			want: "Your tier: Gold · next tier Platinum · points to next 5,550 · benefits free shipping and lounge access.",
		},
		{
			name: "search wrapper: query echo, bookkeeping flag and ids dropped; money, seller, discount, end date",
			tool: "search_offers", args: `{"query":"deals running shoes"}`,
			data: `{"query":"deals running shoes","matched_query":true,"offers":[` +
				`{"id":"off-a-101","title":"Pegasus road shoes","merchant":"Nike","price":104,"currency":"USD","discount_percent":20,"ends":"2026-11-27"},` +
				`{"id":"off-a-102","title":"Ghost 16","merchant":"Running Warehouse","price":118.95,"currency":"USD","discount_percent":15,"ends":"2026-11-24"}]}`,
			want: "I found 2 offers:\n- Pegasus road shoes: $104.00 at Nike, 20% off until Nov 27, 2026\n- Ghost 16: $118.95 at Running Warehouse, 15% off until Nov 24, 2026",
		},
		{
			name: "a search's near misses follow its matches, and the count says which are which",
			tool: "search_offers", args: `{"query":"running shoes"}`,
			data: `{"query":"running shoes","matched_query":true,"offers":[` +
				`{"id":"off-a-101","title":"Nike Pegasus 41 road running shoes","merchant":"Nike","price":104,"currency":"USD"},` +
				`{"id":"off-a-103","title":"Adidas Samba OG sneakers","merchant":"Foot Locker","price":80,"currency":"USD"},` +
				`{"id":"off-a-102","title":"Brooks Ghost 16 running shoes","merchant":"Running Warehouse","price":118.95,"currency":"USD"},` +
				`{"id":"off-a-104","title":"Garmin Forerunner 165 GPS running watch","merchant":"REI","price":199.99,"currency":"USD"}]}`,
			want: "I found 2 offers that match, and 2 related:\n- Nike Pegasus 41 road running shoes: $104.00 at Nike\n- Brooks Ghost 16 running shoes: $118.95 at Running Warehouse\n" +
				"- Adidas Samba OG sneakers: $80.00 at Foot Locker\n- Garmin Forerunner 165 GPS running watch: $199.99 at REI",
		},
		{
			name:  "a search for what the user does not want keeps the service's order and count",
			human: "running shoes other than nike",
			tool:  "search_offers", args: `{"query":"running shoes other than nike"}`,
			data: `{"query":"running shoes other than nike","matched_query":true,"offers":[` +
				`{"id":"off-a-102","title":"Brooks Ghost 16 running shoes","merchant":"Running Warehouse","price":118.95,"currency":"USD"},` +
				`{"id":"off-a-101","title":"Nike Pegasus 41 road running shoes","merchant":"Nike","price":104,"currency":"USD"}]}`,
			want: "I found 2 offers:\n- Brooks Ghost 16 running shoes: $118.95 at Running Warehouse\n- Nike Pegasus 41 road running shoes: $104.00 at Nike",
		},
		{
			name:  "a search that matched nothing says so, and shows nothing else as if it matched",
			human: "any deals on a laptop?",
			tool:  "search_offers", args: `{"query":"laptop"}`,
			data: `{"query":"laptop","matched_query":false,"offers":[` +
				`{"id":"off-a-107","title":"Hydro Flask 24 oz","merchant":"REI","price":29.95,"currency":"USD","discount_percent":25,"ends":"2026-12-06"}]}`,
			want: "I found no offers for “laptop” right now.",
		},
		{
			name:  "a search term that is only a piece of the user's words is not shown back",
			human: "got any deals on pay pair",
			tool:  "search_offers", args: `{"query":"pay"}`,
			data: `{"query":"pay","matched_query":false,"offers":[{"title":"Hydro Flask 24 oz","price":29.95}]}`,
			want: "I found no offers for that right now.",
		},
		{
			name: "items inherit the currency of the object around them",
			tool: "lookup_price", args: `{"product":"PlayStation 5"}`,
			data: `{"product":"PlayStation 5","currency":"EUR","quotes":[{"product":"PlayStation 5","store":"MediaMarkt","price":499,"in_stock":true},{"product":"PlayStation 5","store":"Fnac","price":479.99,"in_stock":false}]}`,
			want: "I found 2 quotes:\n- MediaMarkt: 499.00 EUR, in stock\n- Fnac: 479.99 EUR, not in stock",
		},
		{
			name: "price per unit, a count of the list and an echoed city",
			tool: "search_hotels", args: `{"city":"Lisbon"}`,
			data: `{"city":"Lisbon","total":2,"hotels":[{"name":"Hotel Avenida","city":"Lisbon","neighborhood":"Baixa","price_per_night":120,"currency":"EUR","rating":4.5},{"name":"Casa Alfama","city":"Lisbon","price_per_night":9500,"currency":"JPY"}]}`,
			want: "I found 2 hotels:\n- Hotel Avenida: 120.00 EUR per night, neighborhood Baixa, rating 4.5\n- Casa Alfama: 9,500 JPY per night",
		},
		{
			name: "dates keep their year when a list spans two",
			tool: "upcoming_trips", args: `{}`,
			data: `{"trips":[{"id":"t-1","destination":"Lisbon","start":"2026-03-03","end":"2026-03-10","flight":"TP 123"},{"id":"t-2","destination":"Rome","start":"2027-01-03"}]}`,
			want: "I found 2 trips:\n- Lisbon: from Mar 3, 2026 until Mar 10, 2026, flight TP 123\n- Rome: from Jan 3, 2027",
		},
		{
			name:  "an id the user asks about is shown, and names its record",
			human: "where is order 40213?",
			tool:  "recent_orders", args: `{}`,
			data: `{"orders":[{"id":"40213","item":"Trail runner","status":"in_transit","eta":"2026-03-04"},{"id":"40377","item":"Socks","status":"delivered"}]}`,
			want: "I found 1 of 2 orders:\n- Trail runner: ID 40213, in transit, eta Mar 4, 2026",
		},
		{
			name: "an id is the head when nothing else names the item",
			tool: "recent_orders", args: `{}`,
			data: `{"orders":[{"order_id":"40213","status":"shipped","total":45.5,"currency":"GBP"}]}`,
			want: "I found 1 order:\n- Order 40213: 45.50 GBP, shipped",
		},
		{
			name: "a whole cost with no currency stays a number",
			tool: "browse_rewards", args: `{"max_points":5000}`,
			data: `{"max_points":5000,"rewards":[{"id":"r1","name":"Gift card","cost":2500},{"id":"r2","name":"Lounge pass","cost":4000}]}`,
			want: "I found 2 rewards:\n- Gift card: cost 2,500\n- Lounge pass: cost 4,000",
		},
		{
			name: "a bare list is named after its tool",
			tool: "list_coupons", args: `{}`,
			data: `[{"code":"SAVE10","description":"10% off groceries","expires":"2026-11-30"}]`,
			want: "I found 1 coupon:\n- SAVE10: 10% off groceries, until Nov 30, 2026",
		},
		{
			name: "a list past the limit",
			tool: "list_coupons", args: `{}`,
			data: `{"coupons":[{"code":"A"},{"code":"B"},{"code":"C"},{"code":"D"},{"code":"E"},{"code":"F"},{"code":"G"}]}`,
			want: "I found 7 coupons:\n- A\n- B\n- C\n- D\n- E\n- and 2 more",
		},
		{
			name: "facts and a list together",
			tool: "get_cart", args: `{}`,
			data: `{"subtotal":129.5,"currency":"USD","items":[{"name":"Socks","price":9.5}]}`,
			want: "Your cart: subtotal $129.50.\nI found 1 item:\n- Socks: $9.50",
		},
		{
			name: "only echoes and bookkeeping left",
			tool: "search_offers", args: `{"query":"kites"}`,
			data: `{"query":"kites","matched_query":false,"offers":[]}`,
			want: "I found no offers.",
		},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			human := tt.human
			if human == "" {
				human = "tell me"
			}
			got := composeReply(t, m, human, [3]string{tt.tool, tt.args, `{"status":"ok","data":` + tt.data + `}`})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComposeConcierge checks how several results are put together: an opener, topics in
// the transitions, and failures acknowledged in plain words.
func TestComposeConcierge(t *testing.T) {
	offers := "I found 2 offers:\n- Pegasus: $104.00 at Nike\n- Ghost 16: $118.95"
	balance := `{"status":"ok","data":{"points":12450,"pending":300}}`
	tests := []struct {
		name    string
		results [][3]string
		want    string
	}{
		{
			name: "two facts results from one sub-agent",
			results: [][3]string{
				{"get_points_balance", `{}`, balance},
				{"get_tier", `{}`, `{"status":"ok","data":{"name":"Gold","points_to_next":5550}}`},
			},
			want: "Here's your points balance: 12,450 · pending 300.\n\nAnd on your tier: Gold · points to next 5,550.",
		},
		{
			name: "sub-agent replies keep their shapes and gain transitions",
			results: [][3]string{
				{"ask_shop", `{"request":"any deals on running shoes"}`, offers},
				{"ask_rewards", `{"request":"how many points do I have?"}`, "Your points balance: 12,450 · pending 300."},
				{"ask_travel", `{"request":"hotels in Lisbon"}`, "I found 1 hotel:\n- Casa Alfama: 95.50 EUR per night"},
			},
			want: offers + "\n\nAnd on your points balance: 12,450 · pending 300.\n\nI also found 1 hotel:\n- Casa Alfama: 95.50 EUR per night",
		},
		{
			name: "the orchestrator's unavailable note opens the reply",
			results: [][3]string{
				{"ask_shop", `{"request":"any deals on running shoes"}`, offers},
				{"ask_rewards", `{"request":"how many points do I have?"}`, "unavailable: I couldn't get an answer from Rewards right now."},
			},
			want: "I couldn't get an answer from Rewards right now, but " + offers,
		},
		{
			name: "a failed data tool is named by its topic, its stock note dropped",
			results: [][3]string{
				{"get_points_balance", `{}`, `{"status":"unavailable","note":"This data is unavailable right now."}`},
				{"get_tier", `{}`, `{"status":"ok","data":{"name":"Gold"}}`},
			},
			want: "I couldn't get your points balance right now, but here's your tier: Gold.",
		},
		{
			name: "several failures close the reply",
			results: [][3]string{
				{"get_points_balance", `{}`, `{"status":"error"}`},
				{"ask_shop", `{"request":"deals"}`, offers},
				{"get_tier", `{}`, `unavailable`},
			},
			want: offers + "\n\nI couldn't get your points balance right now.\n\nI couldn't get your tier right now.",
		},
		{
			name: "only failures",
			results: [][3]string{
				{"get_points_balance", `{}`, `{"status":"error"}`},
				{"ask_shop", `{"request":"any deals?"}`, "unavailable: the shop took too long"},
			},
			want: "I couldn't get your points balance right now. I couldn't get an answer to \"any deals\" right now: the shop took too long.",
		},
		{
			name: "a partial result keeps its caveat but not a stock note",
			results: [][3]string{
				{"get_points_balance", `{}`, `{"status":"partial","note":"Some sources did not answer, so this may be incomplete.","data":{"points":12450}}`},
			},
			want: "Your points balance: 12,450. Some of this may be incomplete right now.",
		},
		{
			name: "a sub-agent's composed reply reads on after a transition",
			results: [][3]string{
				{"ask_shop", `{"request":"deals"}`, offers},
				{"ask_rewards", `{"request":"points and tier"}`, "Here's your points balance: 12,450.\n\nAnd on your tier: Gold."},
			},
			want: offers + "\n\nAlso, here's your points balance: 12,450.\n\nAnd on your tier: Gold.",
		},
		{
			name:    "nothing at all",
			results: [][3]string{{"ask_shop", `{"request":"deals"}`, "  "}},
			want:    "I didn't find anything for that.",
		},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := composeReply(t, m, "tell me", tt.results...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplayTwoLevels replays a two-intent turn the way the service runs it: each
// sub-agent's model narrates its data tool's result, and the orchestrator's model composes
// the sub-agents' replies.
func TestReplayTwoLevels(t *testing.T) {
	m := New()
	shop := composeReply(t, m, "any deals on running shoes", [3]string{"search_offers", `{"query":"deals running shoes"}`,
		`{"status":"ok","data":{"query":"deals running shoes","matched_query":true,"offers":[` +
			`{"id":"off-a-101","title":"Pegasus 41 road running shoes","merchant":"Nike","price":104,"currency":"USD","discount_percent":20,"ends":"2026-11-27"},` +
			`{"id":"off-a-104","title":"Forerunner 165 GPS running watch","merchant":"REI","price":199.99,"currency":"USD","discount_percent":20,"ends":"2026-11-25"}]}}`})
	rewards := composeReply(t, m, "how many points do I have?", [3]string{"get_points_balance", `{}`,
		`{"status":"ok","data":{"points":12450,"pending":300,"expiring_soon":1200,"expires_on":"2026-12-12"}}`})

	tests := []struct {
		name    string
		rewards string
		want    string
	}{
		{
			name:    "both answer",
			rewards: rewards,
			want: "I found 1 offer that matches, and 1 related:\n" +
				"- Pegasus 41 road running shoes: $104.00 at Nike, 20% off until Nov 27, 2026\n" +
				"- Forerunner 165 GPS running watch: $199.99 at REI, 20% off until Nov 25, 2026\n\n" +
				"And on your points balance: 12,450 · pending 300 · expiring soon 1,200 · expires on Dec 12, 2026.",
		},
		{
			name:    "rewards is unavailable",
			rewards: "unavailable: I couldn't get an answer from Rewards right now.",
			want: "I couldn't get an answer from Rewards right now, but I found 1 offer that matches, and 1 related:\n" +
				"- Pegasus 41 road running shoes: $104.00 at Nike, 20% off until Nov 27, 2026\n" +
				"- Forerunner 165 GPS running watch: $199.99 at REI, 20% off until Nov 25, 2026",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := composeReply(t, m, "any deals on running shoes? and how many points do I have?",
				[3]string{"ask_shop", `{"request":"any deals on running shoes"}`, shop},
				[3]string{"ask_rewards", `{"request":"how many points do I have?"}`, tt.rewards})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A sub-agent asked to act with tools that only read says so before what they read; one
// whose tools do the act (here, returns) answers plainly.
func TestComposeSaysWhatItCannotDo(t *testing.T) {
	tools := []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "list_recent_orders", Description: "List the user's recent orders and their delivery status."}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "get_return_status", Description: "Status of a return and its refund."}},
	}
	orders := `{"orders":[{"item":"Packing cubes","status":"processing"}]}`
	for _, tc := range []struct{ human, wantPrefix string }{
		{"ok and can I cancel it? (earlier: where is my order)", "I can look this up, but I cannot cancel it for you here.\n\n"},
		{"where is my order", "I found 1 order"},
		{"I want to return the packing cubes", "I found 1 order"},
		{"please cancel order A1043", "I can look this up, but I cannot cancel it for you here.\n\n"},
		{"i need to change my delivery address", "I can look this up, but I cannot change it for you here.\n\n"},
		{"my order arrived broken, can you cancel it?", "I can look this up, but I cannot cancel it for you here.\n\n"},
		{"hi there, please cancel my order", "I can look this up, but I cannot cancel it for you here.\n\n"},
		// A verb inside a question or a description is no request to act.
		{"where can I buy more packing cubes", "I found 1 order"},
		{"how do i send it back", "I found 1 order"},
		{"no points on my last purchase?", "I found 1 order"},
		// A phrasal verb is named by the act it means.
		{"i need to send back the packing cubes", "I can look this up, but I cannot return it for you here.\n\n"},
	} {
		msgs := turnWithResults(tc.human, [3]string{"list_recent_orders", `{}`, orders})
		resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Choices[0].Content; !strings.HasPrefix(got, tc.wantPrefix) {
			t.Errorf("reply to %q = %q, want it to start %q", tc.human, got, tc.wantPrefix)
		}
	}
}
