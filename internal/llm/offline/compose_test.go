package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// callsAfter returns the names of the tools m calls next when the request human has had
// result (tool name, arguments, payload), with tools offered.
func callsAfter(t *testing.T, m *Model, human string, result [3]string, tools []llms.Tool) []string {
	t.Helper()
	resp, err := m.GenerateContent(t.Context(), turnWithResults(human, result), llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	var called []string
	for _, c := range resp.Choices[0].ToolCalls {
		called = append(called, c.FunctionCall.Name)
	}
	return called
}

// turnWithResults builds a turn whose tool calls have all been answered.
func turnWithResults(human string, results ...[3]string) []llms.MessageContent {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a helpful assistant. Acknowledge failures in plain words."),
		llms.TextParts(llms.ChatMessageTypeHuman, human),
	}
	for i, r := range results {
		id := "call_" + string(rune('1'+i))
		msgs = append(msgs, aiCall(id, r[0], r[1]), toolResultMsg(id, r[0], r[2]))
	}
	return msgs
}

func TestCompose(t *testing.T) {
	tests := []struct {
		name string
		msgs []llms.MessageContent
		want string
	}{
		{
			name: "ok object",
			msgs: turnWithResults("my points", [3]string{"points_balance", `{}`,
				`{"status":"ok","data":{"points_balance":12400,"tier":"gold","expires_on":"2026-03-01","pending_points":250}}`}),
			want: "Your points balance: 12,400 · tier gold · expires on Mar 1, 2026 · pending points 250.",
		},
		{
			name: "ok list, capped",
			msgs: turnWithResults("deals", [3]string{"search_offers", `{"query":"shoes"}`,
				`{"status":"ok","data":{"offers":[{"id":"o1","title":"Trail runner","price":89.9,"store":"Acme"},{"title":"Road shoe","price":120},{"title":"c"},{"title":"d"},{"title":"e"},{"title":"f"}]}}`}),
			want: "I found 1 offer that matches, and 5 related:\n- Road shoe: price 120\n- Trail runner: price 89.90 at Acme\n- c\n- d\n- e\n- and 1 more",
		},
		{
			name: "a long list shows what was asked for first",
			msgs: turnWithResults("can I use points to pay for the hotel?", [3]string{"rewards_catalog", `{}`,
				`{"status":"ok","data":{"rewards":[{"name":"Coffee card"},{"name":"Socks"},{"name":"Earbuds"},{"name":"Gift card"},{"name":"Tote bag"},{"name":"One hotel night"},{"name":"Lounge pass"}]}}`}),
			want: "I found 7 rewards:\n- One hotel night\n- Coffee card\n- Socks\n- Earbuds\n- Gift card\n- and 2 more",
		},
		{
			name: "a named thing's list is the list for it",
			msgs: turnWithResults("how much is a kindle", [3]string{"compare_prices", `{"product":"kindle"}`,
				`{"status":"ok","data":{"product":"Kindle Paperwhite","currency":"USD","quotes":[{"store":"Amazon","price":124.99,"in_stock":true},{"store":"Best Buy","price":149.99,"in_stock":true}]}}`}),
			want: "I found 2 quotes for Kindle Paperwhite:\n- Amazon: $124.99, in stock\n- Best Buy: $149.99, in stock",
		},
		{
			name: "a list narrows to the thing the request names",
			msgs: turnWithResults("where's my headphones order", [3]string{"list_recent_orders", `{}`,
				`{"status":"ok","data":{"orders":[{"item":"Packing cubes","status":"processing"},{"item":"Sony headphones","status":"delivered"},{"item":"USB charger","status":"shipped"}]}}`}),
			want: "I found 1 of 3 orders:\n- Sony headphones: delivered",
		},
		{
			name: "a list stays whole when the request names what it does not want",
			msgs: turnWithResults("my orders other than the headphones", [3]string{"list_recent_orders", `{}`,
				`{"status":"ok","data":{"orders":[{"item":"Packing cubes","status":"processing"},{"item":"Sony headphones","status":"delivered"}]}}`}),
			want: "I found 2 orders:\n- Packing cubes: processing\n- Sony headphones: delivered",
		},
		{
			name: "a list the service chose by the call's words stays whole, what names them first",
			msgs: turnWithResults("any coupons for my headphones", [3]string{"list_coupons", `{"query":"headphones"}`,
				`{"status":"ok","data":{"coupons":[{"title":"5 off anything"},{"title":"10% off headphones"}]}}`}),
			want: "I found 1 coupon that matches, and 1 related:\n- 10% off headphones\n- 5 off anything",
		},
		{
			name: "a result that holds nothing about the thing asked gives way to one that does",
			msgs: turnWithResults("does my car insurance cover theft",
				[3]string{"list_claims", `{}`, `{"status":"ok","data":{"claims":[{"claim_id":"CLM-1","type":"water damage","status":"approved"}]}}`},
				[3]string{"get_policies", `{}`, `{"status":"ok","data":{"policies":[{"name":"Home","covers":["fire"]},{"name":"Car","covers":["collision","theft"]}]}}`}),
			want: "I found 1 of 2 policies:\n- Car: covers collision and theft",
		},
		{
			name: "several results that hold nothing for one thing say so once",
			msgs: turnWithResults("is my kettle here yet",
				[3]string{"list_orders", `{}`, `{"status":"ok","data":{"orders":[{"item":"Nike Pegasus","status":"shipped"},{"item":"Balega socks","status":"delivered"}]}}`},
				[3]string{"list_returns", `{}`, `{"status":"ok","data":{"returns":[{"item":"Fitbit","status":"refunded"},{"item":"Logitech keyboard","status":"in transit"}]}}`}),
			want: "I found no order or return for your kettle.",
		},
		{
			name: "records of the kind the call named are the answer, the others no related ones",
			msgs: turnWithResults("how many vacation days have i got left", [3]string{"time_off", `{"leave_type":"vacation"}`,
				`{"status":"ok","data":{"balances":[{"type":"Vacation","available_days":7.5},{"type":"Sick leave","available_days":4}]}}`}),
			want: "I found 1 of 2 balances:\n- Vacation: available 7.5 days",
		},
		{
			name: "a list the request names nothing of stays whole",
			msgs: turnWithResults("where are my orders", [3]string{"list_recent_orders", `{}`,
				`{"status":"ok","data":{"orders":[{"item":"Packing cubes","status":"processing"},{"item":"Sony headphones","status":"delivered"}]}}`}),
			want: "I found 2 orders:\n- Packing cubes: processing\n- Sony headphones: delivered",
		},
		{
			name: "ok empty list",
			msgs: turnWithResults("coupons", [3]string{"list_coupons", `{}`, `{"status":"ok","data":{"coupons":[]}}`}),
			want: "I found no coupons.",
		},
		{
			name: "partial adds a caveat",
			msgs: turnWithResults("trips", [3]string{"upcoming_trips", `{}`,
				`{"status":"partial","note":"hotel bookings could not be loaded","data":{"trips":[{"destination":"Lisbon","departs":"2026-03-03"}]}}`}),
			want: "I found 1 trip:\n- Lisbon: departs Mar 3, 2026\nSome of this may be incomplete right now: hotel bookings could not be loaded.",
		},
		{
			name: "unavailable uses the note's words",
			msgs: turnWithResults("tier", [3]string{"tier_status", `{}`, `{"status":"unavailable","note":"the tier service is not responding"}`}),
			want: "I couldn't get your tier status right now: the tier service is not responding.",
		},
		{
			name: "a code-like note is dropped whole",
			msgs: turnWithResults("offers", [3]string{"search_offers", `{"query":"x"}`, `{"status":"unavailable","note":"status_error: upstream 503"}`}),
			want: "I couldn't get the offers right now.",
		},
		{
			name: "unreadable JSON is a failure, never echoed",
			msgs: turnWithResults("offers", [3]string{"search_offers", `{}`, `{"status":"ok","data":{`}),
			want: "I couldn't get the offers right now.",
		},
		{
			name: "sub-agent text passes through",
			msgs: turnWithResults("trips", [3]string{"ask_travel", `{"request":"my trips"}`, "Your next trip is to Lisbon on Mar 3, 2026."}),
			want: "Your next trip is to Lisbon on Mar 3, 2026.",
		},
		{
			name: "several results with transitions; a failure with a note comes last",
			msgs: turnWithResults("show offers and my points and my trips",
				[3]string{"ask_shop", `{"request":"show offers"}`, "I found 2 offers:\n- Trail runner (price: 89.99)\n- Socks (price: 5)"},
				[3]string{"ask_rewards", `{"request":"how many points do I have?"}`, "unavailable: the rewards assistant took too long to answer"},
				[3]string{"ask_travel", `{"request":"my trips"}`, "The next trip is Lisbon on Mar 3, 2026."},
			),
			want: "I found 2 offers:\n- Trail runner (price: 89.99)\n- Socks (price: 5)\n\n" +
				"And on your travel: the next trip is Lisbon on Mar 3, 2026.\n\n" +
				"I couldn't get an answer to \"how many points do I have\" right now: the rewards assistant took too long to answer.",
		},
		{
			name: "prose results are introduced by their agents' topics",
			msgs: turnWithResults("points and tier",
				[3]string{"ask_rewards", `{"request":"points"}`, "The points balance is 12,400."},
				[3]string{"ask_garden", `{"request":"roses"}`, "Prune roses in late winter."},
			),
			want: "Here's what I found on your rewards: the points balance is 12,400.\n\nAnd on your garden: Prune roses in late winter.",
		},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := m.GenerateContent(t.Context(), tt.msgs, llms.WithTools(shopTools))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			c := resp.Choices[0]
			if len(c.ToolCalls) != 0 {
				t.Errorf("GenerateContent() made %d tool calls after results, want none", len(c.ToolCalls))
			}
			if diff := cmp.Diff(tt.want, c.Content); diff != "" {
				t.Errorf("GenerateContent() text mismatch (-want +got):\n%s", diff)
			}
			assertUserSafe(t, c.Content)
		})
	}
}

// assertUserSafe fails when text carries anything users must never see (codes, ids, stack traces).
func assertUserSafe(t *testing.T, text string) {
	t.Helper()
	for _, bad := range []string{"{", "}", "\"status\"", "status_error", "ask_", "_", "503"} {
		if strings.Contains(text, bad) {
			t.Errorf("text %q contains %q", text, bad)
		}
	}
}

// TestLookElsewhereOffTopic checks that a result holding none of the words the request asks
// with has another tool asked, and that the reply then keeps the result that holds them and
// leaves out a second look that holds no more than the first.
func TestLookElsewhereOffTopic(t *testing.T) {
	tools := []llms.Tool{
		fnTool("get_membership", "The user's gym membership plan, fee and cancellation terms.", nil),
		fnTool("list_classes", "Fitness classes this week with times and free spots.", nil),
	}
	membership := `{"status":"ok","data":{"plan":"Flex Monthly","monthly_fee":{"amount":39.9,"currency":"USD"}}}`
	classes := `{"status":"ok","data":{"classes":[{"name":"Vinyasa Yoga","day":"Tuesday"},{"name":"Pilates Core","day":"Thursday"}]}}`
	m := New()
	first := [3]string{"get_membership", `{}`, membership}
	called := callsAfter(t, m, "when is pilates", first, tools)
	if diff := cmp.Diff([]string{"list_classes"}, called); diff != "" {
		t.Errorf("calls after an off-topic result (-want +got):\n%s", diff)
	}
	// With more tools, the next best by the words and another that needs no argument.
	more := append(tools, fnTool("gym_hours", "Opening hours of the gym.", nil),
		fnTool("book_class", "Book a class.", schema([]string{"class"}, map[string]any{"class": prop("string", "which class")})))
	called = callsAfter(t, m, "when is pilates", first, more)
	if len(called) != 2 || !slices.Contains(called, "list_classes") || slices.Contains(called, "book_class") {
		t.Errorf("calls after an off-topic result with four tools = %v, want list_classes and one more needing no argument", called)
	}

	tests := []struct {
		name, human, second, want string
	}{
		{"the result that holds the word asked replaces the one that does not", "when is pilates", classes,
			"I found 1 of 2 classes:\n- Pilates Core: day Thursday"},
		{"a second look that found nothing for the thing named is left out", "when is the zumba class", `{"status":"ok","data":{"classes":[{"name":"Vinyasa Yoga","day":"Tuesday"},{"name":"Pilates Core","day":"Thursday"}]}}`,
			"Your membership: plan Flex Monthly · monthly fee $39.90."},
		{"a second look that holds no more is left out", "when is zumba", `{"status":"ok","data":{"classes":[{"name":"Vinyasa Yoga","day":"Tuesday"}]}}`,
			"Your membership: plan Flex Monthly · monthly fee $39.90."},
		{"when no look holds a word of a thing asked whether, that is the answer", "do you have a sauna", `{"status":"ok","data":{"classes":[{"name":"Vinyasa Yoga","day":"Tuesday"}]}}`,
			"I couldn't find anything about sauna in your membership."},
		{"a second look stated by its team's answer template is judged by its data", "when is zumba", `{"status":"ok","data":{"classes":[{"name":"Vinyasa Yoga","day":"Tuesday"}]},"answer":"Vinyasa Yoga is on Tuesday."}`,
			"Your membership: plan Flex Monthly · monthly fee $39.90."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := turnWithResults(tt.human, [3]string{"get_membership", `{}`, membership}, [3]string{"list_classes", `{}`, tt.second})
			resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(tools))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, resp.Choices[0].Content); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLookElsewhereAsksNoSearch checks that a result holding nothing of the thing asked is not
// followed by a search for it: a search returns whatever it is given, so it would seem to hold
// the thing when the user's records do not.
// What a message says of the thing it names ("my email is wrong") is no thing of its own: the
// profile holding the email answers, and no other tool is asked for a record that is "wrong".
func TestLookElsewherePredicateIsNoThing(t *testing.T) {
	tools := []llms.Tool{
		fnTool("account_profile", "The account profile: name, email, phone, address on file.", nil),
		fnTool("returns", "Returns and their refunds.", nil),
	}
	profile := `{"status":"ok","data":{"name":"Ada","email":"a***@example.com"}}`
	m := New()
	for _, tt := range []struct {
		human string
		want  []string
	}{
		{"my email is wrong on my account", nil},
		{"the email on my account is wrong", nil},
		{"when is pilates", []string{"returns"}}, // a question's subject is a thing
	} {
		called := callsAfter(t, m, tt.human, [3]string{"account_profile", `{}`, profile}, tools)
		if diff := cmp.Diff(tt.want, called); diff != "" {
			t.Errorf("%q: calls after the result (-want +got):\n%s", tt.human, diff)
		}
	}
}

func TestLookElsewhereAsksNoSearch(t *testing.T) {
	tools := []llms.Tool{
		fnTool("list_crossings", "The user's booked ferry crossings.", nil),
		fnTool("search_lodges", "Search lodges in a town.", schema([]string{"town"}, map[string]any{"town": prop("string", "the town")})),
		fnTool("crossing_status", "Live status of the user's next crossing.", nil),
	}
	crossings := `{"status":"ok","data":{"crossings":[{"to":"Kiel","day":"2026-12-02"}]}}`
	m := New()
	called := callsAfter(t, m, "do i have a ferry to Bergen", [3]string{"list_crossings", `{}`, crossings}, tools)
	if diff := cmp.Diff([]string{"crossing_status"}, called); diff != "" {
		t.Errorf("calls after a result without the thing asked (-want +got):\n%s", diff)
	}
}

// TestLookElsewhereReadsInitials checks that a request naming what a tool is for by its
// initials ("pto" of "paid time off") is answered by that tool's result, with no look at the
// other tools, while a word the result does not hold still sends the model to them.
func TestLookElsewhereReadsInitials(t *testing.T) {
	tools := []llms.Tool{
		fnTool("time_off", "Paid time off balances per leave type and the user's requests.", nil),
		fnTool("payslips", "Recent payslips with gross and net pay.", nil),
	}
	balances := `{"status":"ok","data":{"balances":[{"type":"Vacation","available_days":15}]}}`
	tests := []struct {
		human string
		want  []string // the tools called next
	}{
		{"how much pto do i have", nil},
		{"show my PTO", nil},
		{"how much parental leave do i get", []string{"payslips"}},
	}
	m := New()
	for _, tt := range tests {
		called := callsAfter(t, m, tt.human, [3]string{"time_off", `{}`, balances}, tools)
		if diff := cmp.Diff(tt.want, called); diff != "" {
			t.Errorf("%q: calls after the result (-want +got):\n%s", tt.human, diff)
		}
	}
}

// TestLookFurther checks that a result holding some of the request's words but not others has
// the tools whose descriptions name the others asked as well, and that the reply is the
// result that holds every word the first does, and more; the first when none does.
func TestLookFurther(t *testing.T) {
	tools := []llms.Tool{
		fnTool("bookings", "The member's bookings of meeting rooms with date and status.", nil),
		fnTool("membership", "The member's plan, monthly fee, locker and credit hours.", nil),
		fnTool("mail", "Letters and parcels held at the front desk.", nil),
	}
	bookings := `{"status":"ok","data":{"bookings":[{"room":"Oak","type":"meeting room","date":"2026-12-02","status":"confirmed"}]}}`
	m := New()
	tests := []struct {
		human string
		want  []string // the tools called next
	}{
		{"how many meeting room hours do i have", []string{"membership"}},
		{"is my meeting room booking confirmed", nil},                                 // the result holds every word
		{"how many meeting room hours do i have (earlier: where is my booking)", nil}, // a follow-up
	}
	for _, tt := range tests {
		called := callsAfter(t, m, tt.human, [3]string{"bookings", `{}`, bookings}, tools)
		if diff := cmp.Diff(tt.want, called); diff != "" {
			t.Errorf("%q: calls after the result (-want +got):\n%s", tt.human, diff)
		}
	}
	replies := []struct {
		name, second, want, not string
	}{
		{"the result holding more of the words replaces the first",
			`{"status":"ok","data":{"plan":"Hot Desk","credits":{"meeting_room_hours":10,"hours_used":7.5}}}`, "7.5", "Oak"},
		{"a result holding other words only leaves the first",
			`{"status":"ok","data":{"plan":"Hot Desk","locker":"L-4","hours":"24/7"}}`, "Oak", "L-4"},
	}
	// Tools the request chose itself, each result in a message of its own, are no look further.
	chosen := turnWithResults("how many meeting room hours do i have, and any letters for me at the front desk",
		[3]string{"bookings", `{}`, bookings}, [3]string{"mail", `{}`, `{"status":"ok","data":{"letters":[{"from":"City Council","arrived":"2026-11-20"}]}}`})
	resp, err := m.GenerateContent(t.Context(), chosen, llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; !strings.Contains(got, "City Council") {
		t.Errorf("reply = %q, want the letters the request asked for too", got)
	}
	for _, tt := range replies {
		t.Run(tt.name, func(t *testing.T) {
			msgs := turnWithResults("how many meeting room hours do i have", [3]string{"bookings", `{}`, bookings})
			msgs = append(msgs, aiCall("call_9", "membership", `{}`), toolResultMsg("call_9", "membership", tt.second))
			resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(tools))
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Choices[0].Content; !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("reply = %q, want it to hold %q and not %q", got, tt.want, tt.not)
			}
		})
	}
}

// A follow-up about "it" is about the record its earlier request named ("is that low" of the
// one result whose note says low), not every record.
func TestComposeFollowUpTakesTheEarlierRecord(t *testing.T) {
	tools := []llms.Tool{
		fnTool("orders", "Lab orders with the ordering doctor, tests and status.", nil),
		fnTool("results", "Reported results per order with each test's value, unit, reference range and flag, and the doctor's note.", nil),
	}
	results := `{"status":"ok","data":{"results":[
		{"order_id":"LO-87955","collected":"2026-10-06","reported":"2026-10-08","ordered_by":"Dr. Samuel Ortiz","tests":[
			{"name":"Vitamin D, 25-hydroxy","value":21,"unit":"ng/mL","reference_range":{"low":30,"high":100},"flag":"low"},
			{"name":"TSH","value":2.1,"unit":"mIU/L","reference_range":{"low":0.4,"high":4.5},"flag":"normal"}],
		 "doctor_note":"Vitamin D is low. Start 2,000 IU daily and recheck in 3 months."},
		{"order_id":"LO-86120","collected":"2026-04-14","reported":"2026-04-15","ordered_by":"Dr. Hannah Liu","tests":[
			{"name":"LDL cholesterol","value":142,"unit":"mg/dL","reference_range":{"high":100},"flag":"high"},
			{"name":"HDL cholesterol","value":58,"unit":"mg/dL","reference_range":{"low":40},"flag":"normal"},
			{"name":"Hemoglobin A1c","value":5.6,"unit":"%","reference_range":{"high":5.7},"flag":"normal"}],
		 "doctor_note":"LDL above goal. Recheck lipids in 6 months."}]}}`
	msgs := turnWithResults("what did the doctor say about it (earlier: is that low)", [3]string{"results", `{}`, results})
	resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; !strings.Contains(got, "2,000 IU") || strings.Contains(got, "LDL") {
		t.Errorf("reply = %q, want the low result's note and not the other", got)
	}
}

func TestRefuses(t *testing.T) {
	tests := []struct {
		reply, act string
		want       bool
	}{
		{"I can't close or delete an account from here.\n\nYour profile: ...", "delete", true},
		{"I cannot cancel orders here.", "cancel", true},
		{"Your order was cancelled on Nov 3.", "cancel", false},             // no refusal
		{"I can't see payments from here.", "cancel", false},                // another act refused
		{"Your profile:\n\nI can't delete anything here.", "delete", false}, // not the first paragraph
	}
	for _, tt := range tests {
		if got := refuses(tt.reply, tt.act); got != tt.want {
			t.Errorf("refuses(%q, %q) = %v, want %v", tt.reply, tt.act, got, tt.want)
		}
	}
}

// TestLookElsewhereReadsNoSentence checks that a look elsewhere that asks every other tool
// does not read the request as a sentence (milliseconds) to say which first.
func TestLookElsewhereReadsNoSentence(t *testing.T) {
	tools := []llms.Tool{
		fnTool("get_membership", "The user's gym membership plan, fee and cancellation terms.", nil),
		fnTool("list_classes", "Fitness classes this week with times and free spots.", nil),
		fnTool("gym_hours", "Opening hours of the gym.", nil),
	}
	membership := `{"status":"ok","data":{"plan":"Flex Monthly","monthly_fee":{"amount":39.9,"currency":"USD"}}}`
	req := parseRequest(turnWithResults("is there somewhere to leave the bike", [3]string{"get_membership", `{}`, membership}), tools)
	n := 0
	req.encode = func(text string) []float32 { n++; return route.Sentence(text) }
	var called []string
	for _, c := range New().lookElsewhere(req) {
		called = append(called, c.FunctionCall.Name)
	}
	slices.Sort(called)
	if diff := cmp.Diff([]string{"gym_hours", "list_classes"}, called); diff != "" {
		t.Errorf("calls after an off-topic result (-want +got):\n%s", diff)
	}
	if n != 0 {
		t.Errorf("the look elsewhere encoded %d sentences, want none", n)
	}
}

// TestComposeReadsTodayFromThePrompt checks that the day the system prompt states as today
// places the days a request names from it ("last sunday"), and that with no day stated the
// model guesses none: it has no clock.
func TestComposeReadsTodayFromThePrompt(t *testing.T) {
	tools := []llms.Tool{fnTool("results", "Match results with the score and scorers.", nil)}
	results := `{"status":"ok","data":{"results":[
		{"date":"2026-11-22","opponent":"Vauxhall Motors FC","outcome":"won"},
		{"date":"2026-11-15","opponent":"Kennington Athletic","outcome":"lost"}]}}`
	tests := []struct {
		system, want, not string
	}{
		{"You report match results.\nToday's date is 2026-11-28 (Saturday, UTC).", "Vauxhall", "Kennington"},
		{"You report match results.\nToday's date is 2026-11-21 (Saturday, UTC).", "Kennington", "Vauxhall"},
		{"You report match results.", "Kennington", "nothing"},
	}
	for _, tt := range tests {
		msgs := turnWithResults("did we win last sunday", [3]string{"results", `{}`, results})
		msgs[0] = llms.TextParts(llms.ChatMessageTypeSystem, tt.system)
		resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Choices[0].Content; !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("with system %q, reply = %q, want %q and no %q", tt.system, got, tt.want, tt.not)
		}
	}
}

// TestInheritedContextIsNotTheTrade checks that the context a sub-agent inherits (its user's
// locale and location, a summary of the conversation so far) does not count as its trade's
// words: "the socks" asked after a turn about sock coupons is still a thing the returns do not
// hold, so the orders are looked at next, as in a conversation that starts with it.
func TestInheritedContextIsNotTheTrade(t *testing.T) {
	tools := []llms.Tool{
		fnTool("get_return_status", "Get where a return and its refund stand.", nil),
		fnTool("list_recent_orders", "List the user's recent orders and their delivery status.", nil),
	}
	returns := `{"status":"ok","data":{"returns":[{"item":"Adidas Ultraboost Light","status":"refund_issued","refund_amount":190}]}}`
	const own = "You are the support agent. Answer from the tools."
	for _, inherited := range []string{
		"",
		ask.LocaleLine + "en-GB.",
		ask.LocationLine + "Leeds, UK." + ask.PriorContextLine + "User: any deals on socks? Assistant: SOCKS3: buy two pairs of running socks, get a third free.",
	} {
		msgs := turnWithResults("whats my refund status for the socks", [3]string{"get_return_status", `{}`, returns})
		msgs[0] = llms.TextParts(llms.ChatMessageTypeSystem, own+inherited)
		resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		var called []string
		for _, c := range resp.Choices[0].ToolCalls {
			called = append(called, c.FunctionCall.Name)
		}
		if diff := cmp.Diff([]string{"list_recent_orders"}, called); diff != "" {
			t.Errorf("with %q inherited, calls after the returns (-want +got):\n%s", inherited, diff)
		}
	}
}
