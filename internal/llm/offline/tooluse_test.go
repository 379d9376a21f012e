package offline

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/tmc/langchaingo/llms"
)

type usedTool struct {
	Tool string
	Args map[string]any
}

func TestUseTools(t *testing.T) {
	// A vertical invented here: its tools exist nowhere else.
	petTools := []llms.Tool{
		fnTool("book_vet", "Book a vet appointment for one of the user's pets", schema([]string{"pet"}, map[string]any{"pet": prop("string", "which pet"), "date": prop("string", "preferred day")})),
		fnTool("reorder_food", "Reorder pet food or medication", schema([]string{"product"}, map[string]any{"product": prop("string", "food or medication"), "bags": prop("integer", "how many bags")})),
	}
	// A price tool whose parameter gives example values, as vertical teams write them.
	priceTools := []llms.Tool{
		fnTool("lookup_price", "Look up the current price of a product at each store.", schema([]string{"product"}, map[string]any{
			"product": prop("string", `The product name or model, e.g. "airpods pro 2" or "4k tv".`),
		})),
	}
	tests := []struct {
		name   string
		tools  []llms.Tool
		system string
		text   string
		want   []usedTool
	}{
		{"search words exclude the tool's own vocabulary", shopTools, "You help with offers, deals, coupons and prices.", "any deals on running shoes?",
			[]usedTool{{"search_offers", map[string]any{"query": "running shoes"}}}},
		{"optional parameter filled when present", shopTools, "", "coupons for electronics",
			[]usedTool{{"list_coupons", map[string]any{"category": "electronics"}}}},
		{"optional parameter omitted when absent", shopTools, "", "any coupons?",
			[]usedTool{{"list_coupons", map[string]any{}}}},
		{"how much asks for a price", shopTools, "", "how much is a Sony WH-1000XM5?",
			[]usedTool{{"lookup_price", map[string]any{"product": "Sony WH-1000XM5"}}}},
		{"greetings, hedges and praise are no search words", shopTools, "You help with offers, deals, coupons and prices.", "yo any good deals on a robot vacuum? roomba or whatever",
			[]usedTool{{"search_offers", map[string]any{"query": "robot vacuum roomba"}}}},
		{"when is no search word", shopTools, "You help with offers, deals, coupons and prices.", "any deals on tvs this week",
			[]usedTool{{"search_offers", map[string]any{"query": "tvs"}}}},
		{"a day is no search word", shopTools, "You help with offers, deals, coupons and prices.", "what deals do you have for me today",
			[]usedTool{{"search_offers", map[string]any{"query": "deals"}}}},
		{"which one is wanted is no search word", shopTools, "You help with offers, deals, coupons and prices.", "what's the best deal on headphones",
			[]usedTool{{"search_offers", map[string]any{"query": "headphones"}}}},
		{"the cheapest is no search word", shopTools, "You help with offers, deals, coupons and prices.", "cheapest running shoes deal?",
			[]usedTool{{"search_offers", map[string]any{"query": "running shoes"}}}},
		{"a rank word before a verb is a name", shopTools, "You help with offers, deals, coupons and prices.", "deals at best buy",
			[]usedTool{{"search_offers", map[string]any{"query": "best buy"}}}},
		{"who it is for is no search word", shopTools, "You help with offers, deals, coupons and prices.", "any deals on a laptop for my daughter",
			[]usedTool{{"search_offers", map[string]any{"query": "laptop"}}}},
		{"what it is for stays a search word", shopTools, "You help with offers, deals, coupons and prices.", "deals on a case for my iphone 15",
			[]usedTool{{"search_offers", map[string]any{"query": "case iphone 15"}}}},
		{"the user's things in words no tool uses go to the agent's main tool", supportTools, "", "where are my things",
			[]usedTool{{"recent_orders", map[string]any{}}}},
		{"unknown words fall to the search tool", shopTools, "", "trail running gear",
			[]usedTool{{"search_offers", map[string]any{"query": "trail running gear"}}}},
		{"city after a preposition", travelTools, "", "find hotels in lisbon",
			[]usedTool{{"search_hotels", map[string]any{"city": "Lisbon"}}}},
		{"a city of two words typed in lower case", travelTools, "", "any hotels in new york?",
			[]usedTool{{"search_hotels", map[string]any{"city": "New York"}}}},
		{"a lower-case city ends at the next small word", travelTools, "", "hotels in san francisco for two nights",
			[]usedTool{{"search_hotels", map[string]any{"city": "San Francisco"}}}},
		{"a lower-case city ends where the words say when", travelTools, "", "is my hotel in paris last night booked",
			[]usedTool{{"search_hotels", map[string]any{"city": "Paris"}}}},
		{"capitalised city anywhere", travelTools, "", "I'm off to New York soon, any hotels?",
			[]usedTool{{"search_hotels", map[string]any{"city": "New York"}}}},
		{"flight number", travelTools, "", "is UA 456 on time?",
			[]usedTool{{"flight_status", map[string]any{"flight": "UA456"}}}},
		{"flight without a number", travelTools, "", "is my flight delayed?",
			[]usedTool{{"flight_status", map[string]any{}}}},
		{"order id favours the tool that takes it", supportTools, "", "refund for order A1234",
			[]usedTool{{"return_status", map[string]any{"order_id": "A1234"}}}},
		{"the tool closest in meaning when no word names one", rewardsTools, "", "which level of membership am i",
			[]usedTool{{"tier_status", map[string]any{}}}},
		{"an order id does not outweigh what was asked about the order", orderTools, "", "order B-20931 never showed up",
			[]usedTool{{"list_recent_orders", map[string]any{}}}},
		{"an order id still picks between tools the words single out", orderTools, "", "refund for order B-20931",
			[]usedTool{{"get_return_status", map[string]any{"order_id": "B-20931"}}}},
		{"integer parameter", rewardsTools, "", "what can I get for 2,000 points?",
			[]usedTool{{"rewards_catalog", map[string]any{"max_points": float64(2000)}}}},
		{"two parts call two tools", rewardsTools, "", "how many points do I have and what tier am I?",
			[]usedTool{{"points_balance", map[string]any{}}, {"tier_status", map[string]any{}}}},
		{"follow-up quoted by the orchestrator", travelTools, "", "what about Berlin? (earlier: find me a hotel in Lisbon)",
			[]usedTool{{"search_hotels", map[string]any{"city": "Berlin"}}}},
		{"a place is no identifier for a parameter named like one", []llms.Tool{
			fnTool("tickets", "Parking tickets issued to the user's plates", schema(nil, map[string]any{"citation_no": prop("string", "one ticket's citation number")})),
		}, "", "did i get a ticket on pine st",
			[]usedTool{{"tickets", map[string]any{}}}},
		{"a text parameter whose description lists values takes one of them or none", []llms.Tool{
			fnTool("time_off", "Paid time off balances per leave type", schema(nil, map[string]any{"leave_type": prop("string", "Vacation, sick leave or floating holiday; omit for all.")})),
		}, "", "how many vacation days have i got left",
			[]usedTool{{"time_off", map[string]any{"leave_type": "vacation"}}}},
		{"a follow-up picking among what the earlier answer listed asks its tool again", []llms.Tool{
			fnTool("search_gear", "Search the gear catalogue for a product", schema([]string{"query"}, map[string]any{"query": prop("string", "the product, e.g. boots or tents")})),
			fnTool("list_vouchers", "List the vouchers the member holds", schema(nil, map[string]any{})),
		}, "", "which of them is for boots (earlier: show my vouchers)",
			[]usedTool{{"list_vouchers", map[string]any{}}}},
		{"words that frame the question are no filter", []llms.Tool{
			fnTool("lockers", "The member's lockers with size, fee and keys.", schema(nil, map[string]any{"bank": prop("string", "Only lockers in this bank, e.g. North; omit for all.")})),
		}, "", "what does a locker cost and how many are left",
			[]usedTool{{"lockers", map[string]any{}}}},
		{"a closing clause naming a tool's thing is read with the rest", []llms.Tool{
			fnTool("get_stars", "The member's star balance and stars expiring.", nil),
			fnTool("get_level", "The member's loyalty level and how many stars the next level needs.", nil),
		}, "", "how many stars until my next level",
			[]usedTool{{"get_level", map[string]any{}}}},
		{"a value a parameter gives as an example is no word of the tool's", priceTools, "", "how much is the sony tv",
			[]usedTool{{"lookup_price", map[string]any{"product": "sony tv"}}}},
		{"an example value is searched for whole", priceTools, "", "price of a 65 inch tv",
			[]usedTool{{"lookup_price", map[string]any{"product": "65 inch tv"}}}},
		{"the seller after at is no part of the product", priceTools, "", "how much are the bose speakers at best buy",
			[]usedTool{{"lookup_price", map[string]any{"product": "bose speakers"}}}},
		{"at that does not end the request names no seller", shopTools, "You help with offers, deals, coupons and prices.", "stuck at the office all week lol. any deals on noise cancelling headphones?",
			[]usedTool{{"search_offers", map[string]any{"query": "stuck office noise cancelling headphones"}}}},
		{"a follow-up naming only a seller asks about the earlier product", priceTools, "", "is it in stock at best buy (earlier: how much is the kindle)",
			[]usedTool{{"lookup_price", map[string]any{"product": "kindle"}}}},
		{"a new vertical", petTools, "", "please reorder 2 bags of kibble",
			[]usedTool{{"reorder_food", map[string]any{"product": "kibble", "bags": float64(2)}}}},
		{"a new vertical, date", petTools, "", "book the vet for Rex next friday",
			[]usedTool{{"book_vet", map[string]any{"pet": "Rex", "date": "next friday"}}}},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeSystem, tt.system),
				llms.TextParts(llms.ChatMessageTypeHuman, tt.text),
			}
			resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(tt.tools))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			var got []usedTool
			for _, tc := range resp.Choices[0].ToolCalls {
				var args map[string]any
				if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args); err != nil {
					t.Fatalf("arguments %q: %v", tc.FunctionCall.Arguments, err)
				}
				got = append(got, usedTool{tc.FunctionCall.Name, args})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GenerateContent(%q) calls mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestExtractArgsRequiredBestEffort(t *testing.T) {
	params := schema([]string{"query", "kind", "flag"}, map[string]any{
		"query": prop("string", ""),
		"kind":  map[string]any{"type": "string", "enum": []any{"fast", "cheap"}},
		"flag":  prop("boolean", ""),
		"limit": prop("integer", ""),
	})
	domain := answer.VocabOf("", []string{"offers"}, []string{""})
	got := answer.ExtractArgs(params, "offers", "", domain)
	want := map[string]any{"query": "offers", "kind": "fast", "flag": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExtractArgs() mismatch (-want +got):\n%s", diff)
	}
	got = answer.ExtractArgs(params, "cheap offers, top 3", "", domain)
	want = map[string]any{"query": "cheap top", "kind": "cheap", "flag": false, "limit": int64(3)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExtractArgs() mismatch (-want +got):\n%s", diff)
	}
}

// A follow-up that names no place takes the place of the record it leans on, named in the
// earlier request's own words, not a word of its own read as a place.
func TestExtractArgsPlaceFromEarlierRequest(t *testing.T) {
	params := schema([]string{"city"}, map[string]any{"city": prop("string", "The city to search.")})
	domain := answer.VocabOf("", []string{"search lodges in a city, with prices", "list the user's holidays"}, []string{"", ""})
	got := answer.ExtractArgs(params, "what does it cost a week", "when is my denver holiday", domain)
	want := map[string]any{"city": "denver"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExtractArgs() mismatch (-want +got):\n%s", diff)
	}
}

// A place is read where users put it: after "for" when no other word leads one in ("and for
// chicago?"), and never the unit a price is asked per ("a night", "per week").
func TestExtractArgsPlace(t *testing.T) {
	params := schema([]string{"city"}, map[string]any{"city": prop("string", "The destination city.")})
	domain := answer.VocabOf("", []string{"Search hotels in a city, with nightly prices and availability.", "List the user's upcoming trips"}, []string{"", ""})
	tests := []struct {
		name, own, earlier string
		want               any
	}{
		{"a place after for", "and for chicago?", "how much is a night at hotels in tokyo", "Chicago"},
		{"a place after in comes first", "anything for kids in paris", "", "Paris"},
		{"for before a time is no place", "a hotel for the weekend in rome", "", "Rome"},
		{"the unit of a rate is no place", "how much is the hotel a night on my boston trip", "", "boston"},
		{"per week is a unit too", "what does it cost per week on my boston trip", "", "boston"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := answer.ExtractArgs(params, tt.own, tt.earlier, domain)
			if got["city"] != tt.want {
				t.Errorf("city = %v, want %v", got["city"], tt.want)
			}
		})
	}
}

// An amount of money fills a number parameter only when it counts money.
func TestExtractArgsMoneyIsNoCount(t *testing.T) {
	domain := answer.VocabOf("", []string{"the stamps catalogue"}, []string{""})
	tests := []struct {
		name string
		prop map[string]any
		want map[string]any
	}{
		{"stamps", prop("integer", "Only items costing at most this many stamps."), map[string]any{}},
		{"max_price", prop("number", "Highest price."), map[string]any{"max_price": float64(40)}},
		{"limit", prop("number", "Highest amount, in dollars."), map[string]any{"limit": float64(40)}},
	}
	for _, tt := range tests {
		params := schema(nil, map[string]any{tt.name: tt.prop})
		if diff := cmp.Diff(tt.want, answer.ExtractArgs(params, "how many stamps is the $40 voucher", "", domain)); diff != "" {
			t.Errorf("ExtractArgs(%s) mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// A query parameter whose description gives examples ("running shoes") still gets the user's
// product, without the request words the tools are described with ("deals").
func TestExtractArgsKeepsTheProductTheExamplesName(t *testing.T) {
	params := schema([]string{"query"}, map[string]any{
		"query": prop("string", `What the user is shopping for, e.g. "running shoes" or "4k tv".`),
	})
	vocab := answer.VocabOf("", []string{"search offers: Search current offers, deals and sales matching a product"},
		[]string{`query What the user is shopping for, e.g. "running shoes" or "4k tv".`})
	for in, want := range map[string]string{
		"any deals on running shoes?":                             "running shoes",
		"deals on a 4k tv":                                        "4k tv",
		"any deals on a laptop for my daughter":                   "laptop",
		"my daughter needs a laptop, anything on sale under 600?": "laptop",
		"deals on an iphone 15 case":                              "iphone 15 case",
		"a monitor bigger than 27 inches, up to 300":              "monitor bigger 27 inches",
		"headphones for less than 100":                            "headphones",
		"any deals on airpods rn":                                 "airpods",
		"r there deals on airpods for u":                          "airpods",
	} {
		if got := answer.ExtractArgs(params, in, "", vocab)["query"]; got != want {
			t.Errorf("query for %q = %v, want %q", in, got, want)
		}
	}
}

// A model keeps each sub-agent's vocabulary across calls: a prompt seen before must not lend
// its words to another prompt with the same tools.
func TestUseToolsVocabularyPerPrompt(t *testing.T) {
	const text = "any deals on running shoes?"
	prompts := []string{"You help with offers, deals, coupons and prices.", "", "You help with running shoes.", "You help with offers, deals, coupons and prices."}
	shared := New()
	for _, system := range prompts {
		msgs := []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, system),
			llms.TextParts(llms.ChatMessageTypeHuman, text),
		}
		want, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(shopTools))
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		got, err := shared.GenerateContent(t.Context(), msgs, llms.WithTools(shopTools))
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		if diff := cmp.Diff(want.Choices[0].ToolCalls, got.Choices[0].ToolCalls); diff != "" {
			t.Errorf("system %q: calls after other prompts differ from a fresh model's (-fresh +shared):\n%s", system, diff)
		}
	}
}

// BenchmarkUseTools is a sub-agent's call: the two-intent rewards question over its tools.
func BenchmarkUseTools(b *testing.B) {
	m := New()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You answer questions about the member's points, tier and rewards."),
		llms.TextParts(llms.ChatMessageTypeHuman, "how many points do I have and what tier am I?"),
	}
	opts := []llms.CallOption{llms.WithTools(rewardsTools)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(b.Context(), msgs, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUseToolsExamplesAgree is a sub-agent's call over tools with examples, for a request
// whose words and examples choose the same tool: no sentence is encoded.
func BenchmarkUseToolsExamplesAgree(b *testing.B) {
	tools := []llms.Tool{
		fnTool("get_points_balance", withExamples("Get the member's current points balance, including points about to expire.", "how many points do i have", "when do my points expire"), nil),
		fnTool("browse_rewards", withExamples("Browse rewards the member can redeem (gift cards, perks, vouchers).", "what can i redeem my points for", "gift cards under 5000 points"), nil),
	}
	m := New()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "how many points have i got?")}
	opts := []llms.CallOption{llms.WithTools(tools)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(b.Context(), msgs, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// A tool's examples choose it for a request in other words, over a word the request shares with
// another tool's description.
func TestUseToolsByExample(t *testing.T) {
	tools := []llms.Tool{
		fnTool("get_points_balance", withExamples("Get the member's current points balance, including points about to expire.", "how many points do i have", "when do my points expire"), nil),
		fnTool("browse_rewards", withExamples("Browse rewards the member can redeem (gift cards, perks, vouchers).", "what can i redeem my points for", "gift cards under 5000 points"), nil),
	}
	m := New()
	for text, want := range map[string]string{
		"what can i get with my points?": "browse_rewards",
		"what's my points balance":       "get_points_balance",
	} {
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
		resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		var got []string
		for _, c := range resp.Choices[0].ToolCalls {
			got = append(got, c.FunctionCall.Name)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", text, got, want)
		}
	}
}

// A follow-up whose own words name no tool is answered by the tool its earlier request chose,
// before anything its words come near in meaning.
func TestUseToolsFollowUpTakesTheEarlierChoice(t *testing.T) {
	tools := []llms.Tool{
		fnTool("get_return_status", withExamples("Get the status of a return and its refund.", "did i get my refund for the socks?", "where is my refund"), nil),
		fnTool("get_account_profile", "Load the user's account profile (name, email, phone, shipping address, sign-in settings).", nil),
	}
	text := "and the keyboard? (earlier: did i get my money back for the fitbit)"
	got := calledTools(t, tools, text)
	if len(got) != 1 || got[0] != "get_return_status" {
		t.Errorf("GenerateContent(%q) calls %v, want [get_return_status]", text, got)
	}
}

// calledTools returns the names of the tools the model calls for a sub-agent's request text.
func calledTools(t *testing.T, tools []llms.Tool, text string) []string {
	t.Helper()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
	resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	var got []string
	for _, c := range resp.Choices[0].ToolCalls {
		got = append(got, c.FunctionCall.Name)
	}
	return got
}

// withExamples is a tool description with the examples line a sub-agent runtime adds.
func withExamples(desc string, examples ...string) string {
	q := make([]string, len(examples))
	for i, e := range examples {
		q[i] = strconv.Quote(e)
	}
	return desc + " " + toolExamplesHead + " " + strings.Join(q, ", ")
}

// A word a tool's description uses only as an -ing form before a noun ("shipping address")
// says which address: a question about shipping goes to the tool whose examples ship.
func TestUseToolsModifierWordCountsLess(t *testing.T) {
	tools := []llms.Tool{
		fnTool("list_recent_orders", withExamples("List the user's recent orders with their delivery status and tracking numbers.", "has my order shipped yet?", "where is my latest order", "where is my package"), nil),
		fnTool("get_return_status", withExamples("Get the status of a return and its refund, for one order or the latest return.", "did i get my refund for the socks?", "has my return arrived"), nil),
		fnTool("get_account_profile", withExamples("Load the user's account profile (name, email, phone, shipping address, sign-in settings).", "what email is on my account", "update my shipping address"), nil),
	}
	text := "has the garmin strap shipped"
	got := calledTools(t, tools, text)
	if len(got) != 1 || got[0] != "list_recent_orders" {
		t.Errorf("GenerateContent(%q) calls %v, want [list_recent_orders]", text, got)
	}
}

// A request whose words choose no tool goes to the tool it is about: among tools its words
// put level, the one naming what it asks for, not what kind ("premium", not "pet insurance");
// else the one whose description its sentence comes closest to; a follow-up of no words of its
// own goes where the earlier request would. The first tool is no default while another fits.
func TestUseToolsChoosesWhatIsAskedAbout(t *testing.T) {
	tools := []llms.Tool{
		fnTool("policies", "Each pet insurance policy with its id, pet, plan, deductible, reimbursement rate and status.", schema(nil, map[string]any{"policy_id": prop("string", "One policy's id such as PP-2231; omit for all.")})),
		fnTool("premiums", "The current monthly premium with amount and due date, autopay, and past payments.", nil),
		fnTool("checkups", "Vet checkups with the vet, clinic address, date and time, and what to bring.", nil),
		fnTool("lab_work", "Lab work per pet with each test's value, unit, normal range and flag, and the vet's comment.", nil),
	}
	for _, tt := range []struct{ text, want string }{
		{"when is my next pet insurance premium due", "premiums"},
		{"is his blood sugar okay", "lab_work"},
		{"are biscuit's liver enzymes up", "lab_work"},
		{"how often do i pay", "premiums"},
		{"when does the money come out", "premiums"},
		{"and where is it (earlier: are biscuit's liver enzymes up)", "lab_work"},
	} {
		if got := calledTools(t, tools, tt.text); len(got) != 1 || got[0] != tt.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tt.text, got, tt.want)
		}
	}
}

// A rare word spelling the initials of a tool's words stands for them; a common one does not.
func TestUseToolsSpellsOutAcronyms(t *testing.T) {
	tools := []llms.Tool{
		fnTool("claims", "Medical claims with the provider, amount billed, what the plan paid and status.", nil),
		fnTool("spending", "Health savings account balance, contributions this year and card purchases.", nil),
	}
	for _, tt := range []struct{ text, want string }{
		{"how much is left in my hsa", "spending"},
		{"what did the plan pay on my last claim", "claims"},
	} {
		if got := calledTools(t, tools, tt.text); len(got) != 1 || got[0] != tt.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tt.text, got, tt.want)
		}
	}
}

// An optional value holding a word of the tool's own name or description, a typo included,
// restates the tool and is left out; one that narrows it is passed.
func TestUseToolsLeavesOutValuesRestatingTheTool(t *testing.T) {
	tools := []llms.Tool{
		fnTool("list_vouchers", "List the vouchers available to the member, optionally for one category.", schema(nil, map[string]any{"category": prop("string", "Category such as garden or kitchen; omit for all.")})),
		fnTool("order_history", "The member's past orders with items and totals.", nil),
	}
	for _, tt := range []struct {
		text string
		want map[string]any
	}{
		{"any vouchrs for hiking gear", map[string]any{}},
		{"vouchers for garden", map[string]any{"category": "garden"}},
	} {
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, tt.text)}
		resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		calls := resp.Choices[0].ToolCalls
		if len(calls) != 1 || calls[0].FunctionCall.Name != "list_vouchers" {
			t.Fatalf("GenerateContent(%q) calls %v, want list_vouchers", tt.text, calls)
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(calls[0].FunctionCall.Arguments), &args); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, args); diff != "" {
			t.Errorf("GenerateContent(%q) arguments mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

// A tool whose required place the request does not give (only the tools' own words: "which
// hotel am i at") is not called with one of them for a city: the request goes to the others.
func TestUseToolsWithoutARequiredPlace(t *testing.T) {
	tools := []llms.Tool{
		fnTool("list_trips", "The user's upcoming trips with flights and hotel stays.", nil),
		fnTool("search_hotels", "Search hotels in a city, with nightly prices.", schema([]string{"city"}, map[string]any{"city": prop("string", "The destination city.")})),
	}
	for _, tt := range []struct{ text, want string }{
		{"and which hotel am i at", `list_trips{}`},
		{"search hotels in Lisbon", `search_hotels{"city":"Lisbon"}`},
	} {
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, tt.text)}
		resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		var got []string
		for _, c := range resp.Choices[0].ToolCalls {
			got = append(got, c.FunctionCall.Name+c.FunctionCall.Arguments)
		}
		if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
			t.Errorf("GenerateContent(%q) calls mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

// A value the parameter's description gives as an example ("e.g. clubhouse"), named in the
// request, is the value, not the other words around it.
func TestExtractArgsTakesTheExampleNamed(t *testing.T) {
	desc := "Only bookings of this amenity, e.g. clubhouse or pool; omit for all."
	params := schema(nil, map[string]any{"amenity": prop("string", desc)})
	vocab := answer.VocabOf("", []string{"amenity bookings: The owner's reservations of shared amenities with date, hours and fee."}, []string{"amenity " + desc})
	for in, want := range map[string]any{
		"am i allowed to put a bouncy castle outside the clubhouse": "clubhouse",
		"when is my pool booking":                                   "pool",
	} {
		if got := answer.ExtractArgs(params, in, "", vocab)["amenity"]; got != want {
			t.Errorf("amenity for %q = %v, want %v", in, got, want)
		}
	}
}

// A follow-up asking only what something cost is about what the earlier request asked for,
// when more tools than the one whose texts say "price" hold money.
func TestUseToolsFollowUpPriceStaysWithTheEarlierTool(t *testing.T) {
	tools := []llms.Tool{
		fnTool("visits", withExamples("The user's boiler service visits with date, engineer, work done, total charged and amount paid.", "when is the engineer coming"), nil),
		fnTool("quotes", "Quotes for a new boiler with model, price and valid until.", nil),
	}
	for _, tc := range []struct{ text, want string }{
		{"how much did that cost (earlier: what work did the engineer do last week)", "visits"},
		{"how much do i owe (earlier: when is the engineer coming)", "visits"},
		{"how much is the new boiler", "quotes"},
	} {
		if got := calledTools(t, tools, tc.text); len(got) != 1 || got[0] != tc.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tc.text, got, tc.want)
		}
	}
}

// A hyphenated word of a tool's description ("check-in") is the phrase a request says ("check
// in"), as the request's words join it.
func TestUseToolsHyphenatedWordMeetsThePhrase(t *testing.T) {
	tools := []llms.Tool{
		fnTool("stays", "The user's cabin stays with arrival, check-in and checkout dates.", nil),
		fnTool("ferries", "Live ferry status: departure time, delays, checked luggage and pier.", nil),
	}
	for _, tc := range []struct{ text, want string }{
		{"what time can we check in", "stays"},
		{"what time do we check in at the lodge", "stays"},
		{"is my ferry delayed", "ferries"},
	} {
		if got := calledTools(t, tools, tc.text); len(got) != 1 || got[0] != tc.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tc.text, got, tc.want)
		}
	}
}

// A follow-up whose own words lean only a little to another tool than the earlier request's,
// and reach the earlier one too, is about what the earlier request asked for.
func TestUseToolsFollowUpLeansOnTheEarlierTool(t *testing.T) {
	tools := []llms.Tool{
		fnTool("account", "The user's library account with card number, fines owed and the books on loan.", nil),
		fnTool("holds", "The user's reserved books with the queue position on each waiting list and the pickup branch.", nil),
	}
	for _, tc := range []struct{ text, want string }{
		{"what number am i in the queue (earlier: has my reserved book come in)", "holds"},
		{"what is my card number", "account"},
	} {
		if got := calledTools(t, tools, tc.text); len(got) != 1 || got[0] != tc.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tc.text, got, tc.want)
		}
	}
}

// The thing a request asks about, when it is the last word of a tool's name, chooses that tool
// over one whose texts share more of the words that only say which.
func TestUseToolsTheThingAskedNamesTheTool(t *testing.T) {
	tools := []llms.Tool{
		fnTool("events", withExamples("The club's events with date, venue and rooms, galas with date, start time, venue, dress code, programme and tickets.", "where is the spring gala"), nil),
		fnTool("tickets", "The user's gala ticket orders with reference, gala and date, tickets by type with quantity and price, total and status.", nil),
	}
	for _, tc := range []struct{ text, want string }{
		{"did my spring gala tickets go thru", "tickets"},
		{"what is the dress code for the spring gala", "events"},
	} {
		if got := calledTools(t, tools, tc.text); len(got) != 1 || got[0] != tc.want {
			t.Errorf("GenerateContent(%q) calls %v, want [%s]", tc.text, got, tc.want)
		}
	}
}
