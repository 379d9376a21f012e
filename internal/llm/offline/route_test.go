package offline

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// routed is a tool call reduced to what routing decides.
type routed struct {
	Tool    string
	Request string
}

func routedCalls(t *testing.T, c *llms.ContentChoice) []routed {
	t.Helper()
	var out []routed
	for _, tc := range c.ToolCalls {
		var args map[string]string
		if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args); err != nil {
			t.Fatalf("arguments %q are not a JSON object of strings: %v", tc.FunctionCall.Arguments, err)
		}
		out = append(out, routed{Tool: tc.FunctionCall.Name, Request: args["request"]})
	}
	return out
}

func TestRoute(t *testing.T) {
	all := append(append([]agentFixture(nil), conciergeAgents...), gardenAgent)
	tests := []struct {
		name   string
		agents []agentFixture
		capN   int
		humans []string // the last one is answered; earlier ones are history
		want   []routed
	}{
		{
			name:   "single intent",
			agents: conciergeAgents,
			humans: []string{"any deals on sneakers?"},
			want:   []routed{{"ask_shop", "any deals on sneakers"}},
		},
		{
			name:   "single intent without few-shot examples",
			agents: []agentFixture{{id: "shop", description: conciergeAgents[0].description}, {id: "travel", description: conciergeAgents[3].description}},
			humans: []string{"got any discount codes?"},
			want:   []routed{{"ask_shop", "got any discount codes"}},
		},
		{
			name:   "two intents",
			agents: conciergeAgents,
			humans: []string{"show offers and my points"},
			want:   []routed{{"ask_shop", "show offers"}, {"ask_rewards", "my points"}},
		},
		{
			name:   "three intents with assorted conjunctions",
			agents: conciergeAgents,
			humans: []string{"what's my tier and any coupons for electronics, also is UA 456 on time?"},
			want: []routed{
				{"ask_rewards", "what's my tier"},
				{"ask_shop", "any coupons for electronics"},
				{"ask_travel", "is UA 456 on time"},
			},
		},
		{
			name:   "two clauses for one agent are joined",
			agents: conciergeAgents,
			humans: []string{"where is my order; oh and has my refund gone through"},
			want:   []routed{{"ask_support", "where is my order; oh and has my refund gone through"}},
		},
		{
			name:   "and inside a phrase does not split the intent",
			agents: conciergeAgents,
			humans: []string{"rock and roll vinyl deals"},
			want:   []routed{{"ask_shop", "rock and roll vinyl deals"}},
		},
		{
			name:   "context before the ask travels with it",
			agents: conciergeAgents,
			humans: []string{"I'm going to Rome next week. Any hotels?"},
			want:   []routed{{"ask_travel", "I'm going to Rome next week. Any hotels"}},
		},
		{
			name:   "typos",
			agents: conciergeAgents,
			humans: []string{"how many pionts do I have and any coupns"},
			want:   []routed{{"ask_rewards", "how many pionts do I have"}, {"ask_shop", "any coupns"}},
		},
		{
			name:   "a new agent routes from its description and examples",
			agents: all,
			humans: []string{"my tomato plants have yellow leaves"},
			want:   []routed{{"ask_garden", "my tomato plants have yellow leaves"}},
		},
		{
			name:   "a new agent alongside the others",
			agents: all,
			humans: []string{"when should I prune my roses, plus what rewards can I get"},
			want:   []routed{{"ask_garden", "when should I prune my roses"}, {"ask_rewards", "what rewards can I get"}},
		},
		{
			name:   "cap keeps the strongest intents in message order",
			agents: conciergeAgents,
			capN:   2,
			humans: []string{"book a hotel in Lisbon and how many points do I have and track my order and any deals on tvs"},
			want:   []routed{{"ask_travel", "book a hotel in Lisbon"}, {"ask_rewards", "how many points do I have"}},
		},
		{
			name:   "no cap rule keeps every intent",
			agents: conciergeAgents,
			humans: []string{"book a hotel in Lisbon and how many points do I have and track my order and any deals on tvs"},
			want: []routed{
				{"ask_travel", "book a hotel in Lisbon"},
				{"ask_rewards", "how many points do I have"},
				{"ask_support", "track my order"},
				{"ask_shop", "any deals on tvs"},
			},
		},
		{
			name:   "follow-up leans on the previous message",
			agents: conciergeAgents,
			humans: []string{"how many points do I have?", "what about bob's?"},
			want:   []routed{{"ask_rewards", "what about bob's? (earlier: how many points do I have)"}},
		},
		{
			name:   "follow-up with anaphora",
			agents: conciergeAgents,
			humans: []string{"is flight UA123 on time?", "ok and that one tomorrow"},
			want:   []routed{{"ask_travel", "ok and that one tomorrow (earlier: is flight UA123 on time)"}},
		},
		{
			name:   "a subordinate clause frames the ask instead of adding an intent",
			agents: conciergeAgents,
			humans: []string{"before I redeem my points, where is my order"},
			want:   []routed{{"ask_support", "before I redeem my points, where is my order"}},
		},
		{
			name:   "a statement the next clause points back at is its context",
			agents: conciergeAgents,
			humans: []string{"the shoes I sent back, has that refund gone through"},
			want:   []routed{{"ask_support", "the shoes I sent back, has that refund gone through"}},
		},
		{
			name:   "a question before the pointing clause keeps its own intent",
			agents: conciergeAgents,
			humans: []string{"any deals on running shoes? has that refund gone through"},
			want:   []routed{{"ask_shop", "any deals on running shoes"}, {"ask_support", "has that refund gone through"}},
		},
		{
			name:   "a clause matching on a light noun alone adds no intent",
			agents: statusAgents,
			humans: []string{"I want to return a jacket, what's the status"},
			want:   []routed{{"ask_orders", "I want to return a jacket, what's the status"}},
		},
		{
			name:   "the thing asked for outweighs the words narrowing it",
			agents: conciergeAgents,
			humans: []string{"any coupons for travel gear"},
			want:   []routed{{"ask_shop", "any coupons for travel gear"}},
		},
		{
			name:   "a code shaped like an example's routes with it",
			agents: conciergeAgents,
			humans: []string{"any news on DL 456"},
			want:   []routed{{"ask_travel", "any news on DL 456"}},
		},
		{
			name:   "a question of function words only leans on the previous message",
			agents: conciergeAgents,
			humans: []string{"can I redeem points for a gift card", "how many do I have"},
			want:   []routed{{"ask_rewards", "how many do I have (earlier: can I redeem points for a gift card)"}},
		},
		{
			name:   "a follow-up that points back carries its subject to the same agent",
			agents: conciergeAgents,
			humans: []string{"where is my order", "ok and can I cancel it?"},
			want:   []routed{{"ask_support", "ok and can I cancel it? (earlier: where is my order)"}},
		},

		{
			name:   "a follow-up after one that named its own thing leans on that thing",
			agents: conciergeAgents,
			humans: []string{"where's my refund for the fitbit", "and the keyboard", "when will that land"},
			want:   []routed{{"ask_support", "when will that land (earlier: and the keyboard)"}},
		},
		{
			name:   "a follow-up after one that picked among the results leans on the pick",
			agents: conciergeAgents,
			humans: []string{"what coupons do i have", "which one works on shoes", "when does it expire"},
			want:   []routed{{"ask_shop", "when does it expire (earlier: which one works on shoes)"}},
		},
		{
			name:   "a follow-up after one that ranked the results leans on the first request",
			agents: conciergeAgents,
			humans: []string{"any deals on running shoes", "which one is cheapest", "got a coupon for those?"},
			want:   []routed{{"ask_shop", "got a coupon for those (earlier: any deals on running shoes)"}},
		},
		{
			name:   "a follow-up after one of no subject of its own leans on the first request",
			agents: conciergeAgents,
			humans: []string{"where is my order", "ok and can I cancel it?", "how long will that take"},
			want:   []routed{{"ask_support", "how long will that take (earlier: where is my order)"}},
		},

		{
			name:   "a follow-up to two requests whose words reach neither continues both",
			agents: conciergeAgents,
			humans: []string{"where is my order and how many points do I have", "and for bob?"},
			want:   []routed{{"ask_support", "and for bob? (earlier: where is my order)"}, {"ask_rewards", "and for bob? (earlier: how many points do I have)"}},
		},

		{
			name:   "an earlier request to another agent is no subject",
			agents: conciergeAgents,
			humans: []string{"any deals on headphones", "how do i send that order back"},
			want:   []routed{{"ask_support", "how do i send that order back"}},
		},
		{
			name:   "a message that shares no word with any agent routes by meaning",
			agents: []agentFixture{clinicAgent, gardenAgent, conciergeAgents[3]},
			humans: []string{"need to see a cardiologist next week"},
			want:   []routed{{"ask_clinic", "need to see a cardiologist next week"}},
		},
		{
			name:   "a flight code with more digits than the example's",
			agents: conciergeAgents,
			humans: []string{"is DL 1402 on time"},
			want:   []routed{{"ask_travel", "is DL 1402 on time"}},
		},
		{
			name:   "\"this week\" says when, and does not lean on an earlier message",
			agents: []agentFixture{clinicAgent, gardenAgent, conciergeAgents[3]},
			humans: []string{"can my son see a pediatrician this week"},
			want:   []routed{{"ask_clinic", "can my son see a pediatrician this week"}},
		},
		{
			name:   "a clause that reaches another agent through one incidental word adds no intent",
			agents: append(append([]agentFixture(nil), conciergeAgents...), gymAgent),
			humans: []string{"is UA 212 delayed, still on schedule?"},
			want:   []routed{{"ask_travel", "is UA 212 delayed, still on schedule"}},
		},
		{
			name:   "the user's things asked after in words that ask nothing are read as a sentence",
			agents: conciergeAgents,
			humans: []string{"where are my things"},
			want:   []routed{{"ask_support", "where are my things"}},
		},
		{
			name:   "a message no word routes is read as a sentence",
			agents: conciergeAgents,
			humans: []string{"what freebies can i claim with what i've earned"},
			want:   []routed{{"ask_rewards", "what freebies can i claim with what i've earned"}},
		},
		{
			name: "a sentence that clearly means another agent overrules one incidental word",
			agents: []agentFixture{
				{id: "library", description: "Library loans: books you have out, holds, due dates and new releases.", examples: []string{"when are my books due", "put a hold on the latest grisham"}},
				{id: "mobile", description: "Mobile phone plan: data left, the monthly bill, roaming and handset upgrades.", examples: []string{"how much data do i have left", "can i upgrade my phone"}},
			},
			humans: []string{"can i get the new iphone on my contract"},
			want:   []routed{{"ask_mobile", "can i get the new iphone on my contract"}},
		},
		{
			name: "a second intent on a word in passing goes when the sentence means the first",
			agents: []agentFixture{
				{id: "mobile", description: "Mobile phone plan: data left, the monthly bill and its charges, roaming and handset upgrades.", examples: []string{"how much data do i have left", "why is my bill so high this month", "can i upgrade my phone"}},
				{id: "support", description: "Customer support for orders: deliveries, returns and refunds.", examples: []string{"where is my order", "what's happening with my return", "has my refund gone through"}},
			},
			humans: []string{"my phone bill is way higher than usual, what happened"},
			want:   []routed{{"ask_mobile", "my phone bill is way higher than usual"}},
		},
		{
			name:   "meaning settles a message whose words split between agents",
			agents: conciergeAgents,
			humans: []string{"running late for my flight, will i still make it"},
			want:   []routed{{"ask_travel", "running late for my flight, will i still make it"}},
		},
		{
			name:   "a why-question in an agent's trade words is a request",
			agents: conciergeAgents,
			humans: []string{"why is the refund taking so long"},
			want:   []routed{{"ask_support", "why is the refund taking so long"}},
		},
		{
			name:   "a confident message ignores history",
			agents: conciergeAgents,
			humans: []string{"any deals on running shoes?", "and how many points do I have?"},
			want:   []routed{{"ask_rewards", "how many points do I have"}},
		},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := routeMessages(orchestratorPrompt(tt.capN, tt.agents...), tt.humans...)
			resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(tt.agents...)))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			c := resp.Choices[0]
			if diff := cmp.Diff(tt.want, routedCalls(t, c)); diff != "" {
				t.Errorf("GenerateContent() calls mismatch (-want +got):\n%s", diff)
			}
			if c.StopReason != StopReasonToolCalls || c.Content != "" {
				t.Errorf("GenerateContent() stop reason %q content %q, want %q and no content", c.StopReason, c.Content, StopReasonToolCalls)
			}
			for i, tc := range c.ToolCalls {
				if want := "call_" + string(rune('1'+i)); tc.ID != want || tc.Type != "function" {
					t.Errorf("call %d: ID %q type %q, want %q and function", i, tc.ID, tc.Type, want)
				}
			}
		})
	}
}

func TestRouteAnswersDirectly(t *testing.T) {
	tests := []struct {
		name   string
		humans []string
		want   []string // substrings of the answer
		not    []string // substrings it must not have
	}{
		{"greeting", []string{"hi there!"}, []string{"Hello! I can help with shop, rewards, support and travel."}, nil},
		{"thanks", []string{"how many points do I have?", "thanks!"}, []string{"You're welcome!"}, nil},
		{"acknowledgment", []string{"ok great"}, []string{"Glad to help"}, nil},
		{"capabilities", []string{"what can you do?"}, []string{"I can help with shop, rewards, support and travel."}, nil},
		{"out of scope", []string{"tell me a joke"}, []string{"Sorry, I can't help with that here. I can help with shop, rewards, support and travel."}, nil},
		{"arithmetic", []string{"whats 15 times 12"}, []string{"15 times 12 is 180."}, nil},
		{"small talk after a request", []string{"how many points do I have?", "how are you?"}, []string{"I can help with shop, rewards, support and travel."}, nil},
		{"a light noun alone", []string{"what's the status?"}, []string{"I can help with shop, rewards, support and travel."}, nil},
		{"a question about the world", []string{"why do airplanes get so bumpy over the ocean"}, []string{"Sorry, I can't help with that here."}, nil},
		{"a fun fact about an agent's trade", []string{"tell me a fun fact about loyalty points"}, []string{"I can help with shop, rewards, support and travel."}, nil},
		{"a closing with words of the trade", []string{"where is my order", "thanks, that is all for now, have a nice day!"}, []string{"You're welcome!"}, nil},
		{"small talk", []string{"hey hows your day going"}, []string{"I'm doing well", "I can help with shop"}, nil},
		{"a greeting that asks how the assistant is", []string{"good morning, how are you?"}, []string{"Hello! I'm doing well, thanks for asking!", "I can help with shop"}, nil},
		{"a question about the world in a trade word, far from every agent", []string{"how many points did lebron score last night"}, []string{"Sorry, I can't help with that here."}, nil},
		{"a greeting to someone, then how it is going", []string{"hey there, how's it going"}, []string{"I'm doing well"}, []string{"Sorry"}},
		{"who the assistant is", []string{"are you a bot?"}, []string{"I'm an automated assistant"}, []string{"doing well"}},
		{"whom the user is talking to", []string{"who am i talking to"}, []string{"I'm an automated assistant", "I can help with shop"}, []string{"doing well"}},
		{"thanks in words of its own", []string{"you're a lifesaver, thanks"}, []string{"You're welcome!"}, []string{"Sorry"}},
		{"thanks, then a question no agent takes", []string{"thanks! and what's the capital of peru?"}, []string{"Sorry, I can't help with that here."}, []string{"welcome"}},
		{"a person, not the assistant", []string{"can i speak to a real person"}, []string{"can't put you through to a person", "I can help with shop"}, nil},
		{"a person, by the noun alone", []string{"where is my order", "agent pls"}, []string{"can't put you through to a person"}, nil},
		{"fault found with the help", []string{"how many points do i have", "that's wrong"}, []string{"I'm sorry that wasn't helpful.", "I can help with shop"}, []string{"return"}},
		{"an opener that asks nothing yet", []string{"can you help me"}, []string{"What can I help you with?", "I can help with shop"}, []string{"Sorry"}},
		{"an exclamation", []string{"oh my god"}, []string{"Is there anything I can help with?"}, []string{"return", "order"}},
		{"an apology", []string{"sorry my bad"}, []string{"No worries!", "I can help with shop"}, []string{"return", "order"}},
		{"nothing asked, whether anyone is there", []string{"are you there?"}, []string{"What can I help you with?"}, nil},
		{"nothing asked, in words of work", []string{"how does this work"}, []string{"What can I help you with?"}, nil},
		{"the ask dropped", []string{"where is my order", "never mind"}, []string{"No problem."}, []string{"order"}},
		{"a plain no", []string{"is my flight to rome on time", "no"}, []string{"No problem."}, nil},
		{"a greeting before something no agent does", []string{"hi all, what is the capital of peru"}, []string{"Hello! Sorry, I can't help with that here."}, nil},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), tt.humans...)
			resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			c := resp.Choices[0]
			if len(c.ToolCalls) != 0 || c.StopReason != StopReasonStop {
				t.Fatalf("GenerateContent() = %d calls, stop %q; want a direct answer", len(c.ToolCalls), c.StopReason)
			}
			if strings.Count(c.Content, "\n") > 0 || len(c.Content) > 160 {
				t.Errorf("answer %q: want one short sentence or two, never the agents' descriptions", c.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(c.Content, w) {
					t.Errorf("answer %q does not contain %q", c.Content, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(c.Content, w) {
					t.Errorf("answer %q contains %q", c.Content, w)
				}
			}
			if strings.Contains(c.Content, "ask_") {
				t.Errorf("answer %q names a tool", c.Content)
			}
		})
	}
}

func TestRouteToolChoiceNone(t *testing.T) {
	msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), "show offers and my points")
	resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)), llms.WithToolChoice("none"))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	if n := len(resp.Choices[0].ToolCalls); n != 0 || resp.Choices[0].Content == "" {
		t.Errorf("GenerateContent() with tool choice none = %d calls, content %q; want text only", n, resp.Choices[0].Content)
	}
}

// The demo's own definitions, as a new user meets them.
func TestRouteDemoAgents(t *testing.T) {
	demo := demoAgents(t)
	m := New()
	tests := []struct {
		name   string
		humans []string
		want   []string
	}{
		{"the user's own thing stands against what its other words mean", []string{"where is my nike order"}, []string{"ask_support"}},
		{"the action asked for stands against what its object means", []string{"I want to return the socks"}, []string{"ask_support"}},
		{"a follow-up to two requests continues the one its words reach", []string{"where is my order and how many points do I have", "can I cancel it?"}, []string{"ask_support"}},
		{"a follow-up to two requests whose words reach neither continues both", []string{"where is my order and how many points do I have", "and for bob?"}, []string{"ask_support", "ask_rewards"}},
		{"a short switch to a thing no agent names moves on", []string{"how many points do i have", "nice, now find me a cheap blender"}, []string{"ask_shop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := routedTools(t, m, demo, tc.humans...); !slices.Equal(got, tc.want) {
				t.Errorf("route(%q) = %v, want %v", tc.humans, got, tc.want)
			}
		})
	}
}

func TestRouteCallIDsFollowHistory(t *testing.T) {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, orchestratorPrompt(3, conciergeAgents...)),
		llms.TextParts(llms.ChatMessageTypeHuman, "any deals on tvs?"),
		aiCall("call_1", "ask_shop", `{"request":"any deals on tvs"}`),
		toolResultMsg("call_1", "ask_shop", "I found 1 offer: a TV."),
		llms.TextParts(llms.ChatMessageTypeAI, "I found 1 offer: a TV."),
		llms.TextParts(llms.ChatMessageTypeHuman, "how many points do I have?"),
	}
	resp, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	got := resp.Choices[0].ToolCalls
	if len(got) != 1 || got[0].ID != "call_2" || got[0].FunctionCall.Name != "ask_rewards" {
		t.Errorf("GenerateContent() calls = %+v, want one ask_rewards call with ID call_2", got)
	}
}

func aiCall(id, name, args string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
		llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}},
	}}
}

func toolResultMsg(id, name, content string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: id, Name: name, Content: content},
	}}
}

func TestRequestParam(t *testing.T) {
	tests := []struct {
		name   string
		schema any
		want   string
	}{
		{"declared request", schema([]string{"request"}, map[string]any{"request": prop("string", "")}), "request"},
		{"another single text parameter", schema([]string{"question"}, map[string]any{"question": prop("string", "")}), "question"},
		{"no schema", nil, "request"},
		{"ambiguous", schema(nil, map[string]any{"a": prop("string", ""), "b": prop("string", "")}), "request"},
	}
	for _, tt := range tests {
		if got := requestParam(tt.schema); got != tt.want {
			t.Errorf("%s: requestParam() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Which agents a message reaches, with the concierge's four plus a bank whose examples hold
// numbers.
func TestRouteMultiIntentPrecision(t *testing.T) {
	bank := agentFixture{
		id:          "bank",
		description: "Banking: account balances, card payments, transfers between the user's accounts.",
		examples:    []string{"transfer 25 dollars to savings", "what's my checking balance", "was my card charged twice"},
	}
	agents := append(slices.Clone(conciergeAgents), bank)
	tests := []struct {
		message string
		want    []string
	}{
		{"any deals on headphones + how many points do i have", []string{"ask_shop", "ask_rewards"}},
		{"where is my order & how many points do i have", []string{"ask_support", "ask_rewards"}},
		{"any deals on laptops as well as my points balance", []string{"ask_shop", "ask_rewards"}},
		{"my order never arrived, it's been like 25 days", []string{"ask_support"}},
		{"did the team win last night", nil},
		// "delivery" is a word the support agent says once, but "my delivery" is the user's own.
		{"where's my delivery and how many points do i have", []string{"ask_support", "ask_rewards"}},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			resp, err := m.GenerateContent(t.Context(), routeMessages(orchestratorPrompt(3, agents...), tt.message), llms.WithTools(askTools(agents...)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range routedCalls(t, resp.Choices[0]) {
				got = append(got, r.Tool)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("routed to %v, want %v", got, tt.want)
			}
		})
	}
}

// A word of an agent's trade used in another sense routes nothing when the sentence is far
// from everything the agent says; the same word in a request still routes.
func TestRouteVetoesAWordUsedInAnotherSense(t *testing.T) {
	agents := []agentFixture{
		{id: "insurance", description: "Home and car insurance: what your policy covers, claims and renewals.", examples: []string{"does my car insurance cover a rental car", "i want to file a claim, someone hit my parked car", "when does my home policy renew", "how much is my deductible"}},
		{id: "gym", description: "Gym membership: class bookings, personal trainer sessions and club opening hours.", examples: []string{"book me into spin class tomorrow", "when does the downtown club open"}},
	}
	m := New()
	for _, tt := range []struct {
		message string
		want    []routed
	}{
		{"did the lakers cover the spread last night", nil},
		{"does it cover a burst pipe", []routed{{"ask_insurance", "does it cover a burst pipe"}}},
	} {
		msgs := routeMessages(orchestratorPrompt(3, agents...), tt.message)
		resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(agents...)))
		if err != nil {
			t.Fatalf("GenerateContent(%q) error = %v", tt.message, err)
		}
		if diff := cmp.Diff(tt.want, routedCalls(t, resp.Choices[0])); diff != "" {
			t.Errorf("GenerateContent(%q) calls mismatch (-want +got):\n%s", tt.message, diff)
		}
	}
}

// routedTools returns the ask_ tools the model calls for the last of humans, the others being
// the conversation before it.
func routedTools(t *testing.T, m *Model, agents []agentFixture, humans ...string) []string {
	t.Helper()
	resp, err := m.GenerateContent(t.Context(), routeMessages(orchestratorPrompt(3, agents...), humans...), llms.WithTools(askTools(agents...)))
	if err != nil {
		t.Fatalf("GenerateContent(%q) error = %v", humans[len(humans)-1], err)
	}
	var got []string
	for _, r := range routedCalls(t, resp.Choices[0]) {
		got = append(got, r.Tool)
	}
	return got
}

// routeCase is a conversation (the last message is routed) and the tools it should call.
type routeCase struct {
	name   string
	humans []string
	want   []string
}

// checkRoutes routes each case among agents and reports the cases that call other tools.
func checkRoutes(t *testing.T, agents []agentFixture, cases []routeCase) {
	t.Helper()
	m := New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, routedTools(t, m, agents, tc.humans...)); diff != "" {
				t.Errorf("%q routed differently (-want +got):\n%s", tc.humans[len(tc.humans)-1], diff)
			}
		})
	}
}

var (
	streamingAgent = agentFixture{id: "streaming", description: "TV and music streaming subscription: your plan and its price, your watchlist, what's new to watch, your devices, and pausing or cancelling.", examples: []string{"add the new dune film to my watchlist", "how much is the premium plan", "pause my subscription for a month"}}
	dentistAgent   = agentFixture{id: "dentist", description: "Dental clinic: books, moves or cancels your dental appointments and cleanings, and says what treatments cost.", examples: []string{"book me a cleaning next week", "how much is a filling"}}
)

// An impersonal question about the world, or a question asking advice on life, is answered
// directly even in an agent's own words, while impersonal requests and questions an agent's
// trade answers still route.
func TestRouteAnswersWorldQuestionsInAnAgentsWords(t *testing.T) {
	agents := append([]agentFixture{streamingAgent, gardenAgent, dentistAgent}, conciergeAgents...)
	checkRoutes(t, agents, []routeCase{
		{"history", []string{"what year did netflix start"}, nil},
		{"how a trade works", []string{"how do streaming services make money"}, nil},
		{"a judgement", []string{"is binge watching bad for your brain"}, nil},
		{"advice on life", []string{"should i become a dentist or a doctor"}, nil},
		{"language", []string{"how do i say 'where is my package' in spanish"}, nil},
		{"impersonal price question", []string{"how much is the premium plan these days"}, []string{"ask_streaming"}},
		{"advice an agent gives", []string{"what is the best time to prune roses"}, []string{"ask_garden"}},
		{"a request with a modal", []string{"can the family plan be shared with my sister"}, []string{"ask_streaming"}},
		{"first-person advice on the service", []string{"should i book a cleaning before my crown"}, []string{"ask_dentist"}},
		{"how to, on the service", []string{"how do i change my delivery address"}, []string{"ask_support"}},
	})
}

// A one-clause message whose words name two agents nearly alike goes where its sentence
// clearly points.
func TestRouteSettlesAContestByTheSentence(t *testing.T) {
	dentist := agentFixture{id: "dentist", description: "Dental clinic: books, moves or cancels dental appointments and cleanings, shows treatment costs and what the dental plan covers.", examples: []string{"book me a cleaning next week", "how much is a filling", "does my plan cover a crown"}}
	streaming := agentFixture{id: "streaming", description: "TV and music streaming subscription: your plan and its price, what you pay each month, your watchlist and devices.", examples: []string{"how much do i pay for my plan", "upgrade my plan to premium", "add this show to my watchlist"}}
	checkRoutes(t, append([]agentFixture{dentist, streaming}, conciergeAgents...), []routeCase{
		{"the sentence settles it", []string{"is there anything booked for me next month travel-wise"}, []string{"ask_travel"}},
		{"the words and the sentence agree", []string{"is my cleaning booked for next month"}, []string{"ask_dentist"}},
		{"no contest", []string{"how much do i pay for my plan each month"}, []string{"ask_streaming"}},
	})
}

// A faint request that no word routes still reaches the agent its sentence is near, when it
// is clearly nearer to it than to idle chat or general knowledge.
func TestRouteFaintRequestBySentence(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"faint request", []string{"I was wondering if you could find us a B&B in Edinburgh for the festival"}, []string{"ask_travel"}},
		{"idle chat", []string{"lol ok"}, nil},
	})
}

// A message none of whose words is an agent's, that reads as a request to a service, goes to
// the agent its sentence comes closest to; chat and trivia stay with the orchestrator.
func TestRouteRequestInNoAgentsWords(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"slang for points", []string{"any of my stash left to spend"}, []string{"ask_rewards"}},
		{"slang for a delivery", []string{"have the bods at the warehouse sent my stuff yet"}, []string{"ask_support"}},
		{"nothing delivered", []string{"the parcel man left nothing, what now"}, []string{"ask_support"}},
		{"a joke", []string{"tell me a joke about sailors"}, nil},
		{"trivia", []string{"what's the best knot for tying up a dinghy"}, nil},
	})
	// Only a message that reads as a request: this one is near the repair shop's texts.
	repair := agentFixture{id: "repair", description: "Repairs phones, tablets and laptops: repair quotes, drop-off slots and the status of a repair.", examples: []string{"can you fix a cracked iphone screen", "book a drop-off slot for my laptop", "is my tablet repair done yet"}}
	checkRoutes(t, append([]agentFixture{repair}, conciergeAgents...), []routeCase{
		{"chat near an agent", []string{"my cat is asleep on my keyboard lol"}, nil},
	})
}

// "come" is a word of any trade: a handyman who comes round is not asked whenever something
// else is coming.
func TestRouteComingIsNoTradeWord(t *testing.T) {
	handyman := agentFixture{id: "handyman", description: "Sends a handyman round for small jobs at home: leaks, shelves, sockets.", examples: []string{"can someone come round to fix a dripping tap", "how soon can you come out", "book a handyman for saturday"}}
	checkRoutes(t, append([]agentFixture{handyman}, conciergeAgents...), []routeCase{
		{"a delivery coming", []string{"is my delivery coming today?"}, []string{"ask_support"}},
		{"the handyman coming", []string{"can the handyman come on friday instead"}, []string{"ask_handyman"}},
	})
}

// A question or remark on what the request before it costs belongs to that request, though
// the shop's texts speak of costs.
func TestRoutePriceOfTheRequestBefore(t *testing.T) {
	repair := agentFixture{id: "repair", description: "Repairs phones, tablets and laptops: repair quotes, drop-off slots and the status of a repair.", examples: []string{"can you fix a cracked iphone screen", "book a drop-off slot for my laptop", "is my tablet repair done yet"}}
	checkRoutes(t, append([]agentFixture{repair}, conciergeAgents...), []routeCase{
		{"no question mark", []string{"can water damaged phones be fixed, and roughly what does that cost"}, []string{"ask_repair"}},
		{"a question", []string{"book a drop-off slot for my laptop on monday, how much will it cost?"}, []string{"ask_repair"}},
		{"after a wish", []string{"I'd like to book a drop-off slot for my laptop on monday, what would that cost?"}, []string{"ask_repair"}},
		{"a price of its own", []string{"book a drop-off slot for my laptop on monday, and how much does a playstation 5 cost?"}, []string{"ask_repair", "ask_shop"}},
	})
}

// A topic named for one agent, then a question about it that reaches another only in passing
// (the gym "schedules" sessions), asks the topic's agent.
func TestRouteTopicThenQuestionAboutIt(t *testing.T) {
	checkRoutes(t, append([]agentFixture{gymAgent}, conciergeAgents...), []routeCase{
		{"after another request", []string{"what tier am i? also my delivery, can I schedule it for the afternoon"}, []string{"ask_rewards", "ask_support"}},
	})
}

// "new" says which one of a thing, not what: it asks no agent whose texts offer new things.
func TestRouteNewIsNoTradeWord(t *testing.T) {
	cinema := agentFixture{id: "cinema", description: "Cinema tickets: showtimes, new films this week, booking and cancelling seats.", examples: []string{"what new films are showing this week", "book two seats for the 8pm showing", "cancel my tickets for friday"}}
	checkRoutes(t, append([]agentFixture{cinema}, conciergeAgents...), []routeCase{
		{"a new product", []string{"how much r the new galaxy buds"}, []string{"ask_shop"}},
	})
}

// A follow-up whose words name its earlier subject nearly as strongly as another agent keeps
// the earlier subject.
func TestRouteFollowUpKeepsASubjectTheWordsLeaveOpen(t *testing.T) {
	cinema := agentFixture{id: "cinema", description: "Cinema tickets: showtimes at your cinema, booking and cancelling seats, and your bookings.", examples: []string{"what's on tonight", "book two seats for the 8pm showing"}}
	tutoring := agentFixture{id: "tutoring", description: "Private tutoring for your children: book lessons with a tutor, the lesson schedule and progress reports.", examples: []string{"book a maths lesson for sam on monday", "how is sam doing in french"}}
	checkRoutes(t, []agentFixture{cinema, tutoring}, []routeCase{
		{"after showtimes", []string{"what's on at the cinema saturday", "ok book 2 for the 7.30 one"}, []string{"ask_cinema"}},
		{"after a lesson", []string{"how is sam doing in french", "ok book 2 for the 7.30 one"}, []string{"ask_tutoring"}},
	})
}

// An agent's name counts in full even where it only narrows the request.
func TestRouteAgentNameCountsInFull(t *testing.T) {
	tutoring := agentFixture{id: "tutoring", description: "Private tutoring for the user's children: books, moves or cancels lessons with a tutor, shows the lesson schedule, tutor feedback and progress reports, and lists tutoring invoices and what is still owed.", examples: []string{"book a maths lesson for emma on tuesday", "when is jack's next session with his tutor", "have i paid the tutoring invoice for october"}}
	rewards := agentFixture{id: "rewards", description: "Loyalty points: your points balance, pending balance and points about to expire, your tier, and rewards to redeem.", examples: []string{"what's my points balance", "how much balance is pending", "what can i redeem"}}
	checkRoutes(t, []agentFixture{rewards, tutoring}, []routeCase{
		{"name after for", []string{"whats the outstanding balance for tutoring"}, []string{"ask_tutoring"}},
	})
}

// An agent's name before another noun says what kind of thing is meant, not who is asked:
// "a camping stove" is still shopping.
func TestRouteNameAsModifierCountsAsScoped(t *testing.T) {
	camping := agentFixture{id: "camping", description: "Campsites and glamping: books pitches and cabins, shows site facilities and check-in times, cancels stays and hires out camping equipment.", examples: []string{"book a pitch for two nights in august", "can i hire a tent at the lake site", "what time is check-in at the forest site"}}
	checkRoutes(t, append([]agentFixture{camping}, conciergeAgents...), []routeCase{
		{"a modifier", []string{"any deals on a camping stove?"}, []string{"ask_shop"}},
		{"a head noun", []string{"any deals on camping?"}, []string{"ask_camping"}},
		{"before a word of the calendar", []string{"any deals on camping tomorrow?"}, []string{"ask_camping"}},
		{"before next", []string{"any deals on camping next weekend?"}, []string{"ask_camping"}},
		{"a modifier after a request to the agent", []string{"when is my pitch booked? then look for a discount on a camping chair"}, []string{"ask_camping", "ask_shop"}},
	})
}

// Words no agent's texts use can say what a message is about when the sentence agrees: the
// louvre is a museum.
func TestRouteUnmatchedWordsByMeaning(t *testing.T) {
	museum := agentFixture{id: "museum", description: "Museum and gallery specialist: buys timed entry tickets for a date and time slot, and shows the user's upcoming museum visits. Lists the exhibitions on now or opening soon, with opening hours, and changes or cancels a booked visit.", examples: []string{"two tickets for the natural history museum saturday at 11", "whats on at the modern art gallery this month", "can i move my museum visit to next sunday"}}
	optician := agentFixture{id: "optician", description: "Eye care specialist at the user's optician: books, moves or cancels an eye test. Tracks glasses and contact lens orders and says when they are ready to collect, and shows the latest prescription.", examples: []string{"book me an eye test next week", "are my new glasses ready yet", "when am i due for my next eye exam"}}
	checkRoutes(t, append([]agentFixture{museum, optician}, conciergeAgents...), []routeCase{
		{"a museum by name", []string{"can you get me into the louvre the next morning"}, []string{"ask_museum"}},
		{"the words stand", []string{"book me an eye test friday morning"}, []string{"ask_optician"}},
	})
}

// A message that reads as chat or a question about the world (see package style), asked
// impersonally, is answered directly though it shares an agent's words; a question about
// what is on offer, or about someone in particular, still routes.
func TestRouteAnswersWhatSoundsLikeAnAside(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"sport", []string{"how are points counted in a game of darts"}, nil},
		{"an opinion", []string{"beach holiday or city break, what do you reckon"}, nil},
		{"how the world works", []string{"how do airlines decide what a flight costs"}, nil},
		{"what is on offer", []string{"are there any deals on hotels in paris"}, []string{"ask_travel"}},
		{"a tier", []string{"what do gold members get"}, []string{"ask_rewards"}},
		{"the programme", []string{"whats on at the travel show this month"}, []string{"ask_travel"}},
		{"a discount on offer", []string{"what's on discount in garden tools at the moment"}, []string{"ask_shop"}},
		{"tips", []string{"any tips for sleeping on a long flight"}, nil},
		{"deals", []string{"any deals on neck pillows for sleeping on a plane"}, []string{"ask_shop"}},

		{"someone's order", []string{"what did bob's refund come to"}, []string{"ask_support"}},
	})
}

// A question whose words name two agents alike is settled by meaning when it stands among
// other clauses, unless one of the two is asked elsewhere in the message: then it is that
// request's detail.
func TestRouteSettlesATiedQuestionAmongClauses(t *testing.T) {
	mailroom := agentFixture{id: "coworking", description: "Coworking space: books desks and meeting rooms for members, and keeps the parcels that couriers leave at reception.", examples: []string{"book me a desk for thursday", "has a parcel come for me at reception"}}
	courier := agentFixture{id: "support", description: "Online shop support: tracks the parcel for an order, and handles returns and refunds.", examples: []string{"has my refund gone through", "where is the parcel with my order"}}
	dentist := agentFixture{id: "dentist", description: "Dental clinic: books, moves or cancels dental appointments and cleanings.", examples: []string{"book me a cleaning next week", "move my dentist appointment"}}
	agents := []agentFixture{mailroom, courier, dentist}
	checkRoutes(t, agents, []routeCase{
		{"a tie after a scene", []string{"I had a cleaning at the dentist this morning. where is my parcel?"}, []string{"ask_support"}},
		{"a tie with an agent asked already", []string{"book me a desk for thursday. where is my parcel?"}, []string{"ask_coworking"}},
	})
}

// About the user's own life, a message must read as chat to the classifier more surely still:
// most requests are in the first person.
func TestRouteAnswersPersonalChat(t *testing.T) {
	agents := append([]agentFixture{streamingAgent, gardenAgent, dentistAgent}, conciergeAgents...)
	checkRoutes(t, agents, []routeCase{
		{"a fear", []string{"I'm scared of the dentist, is that something people grow out of"}, nil},
		{"a request", []string{"I have 12000 points, what's the best thing to redeem them for"}, []string{"ask_rewards"}},
		{"a complaint", []string{"my tomatoes never ripen and honestly I'm starting to think I'm cursed"}, []string{"ask_garden"}},
		{"a feeling about the agent's subject", []string{"I can never decide what to plant first in spring, it stresses me out"}, nil},
	})
}

// A question about what is on at a venue is for the venue's agent, however much it sounds
// like chat.
func TestRouteWhatIsOnIsNoAside(t *testing.T) {
	museum := agentFixture{id: "museum", description: "Museum and gallery visits: timed entry tickets, exhibitions on now, membership and guest passes.", examples: []string{"two tickets for the natural history museum saturday", "is the dinosaur exhibition still on", "how many guest passes do i have left"}}
	checkRoutes(t, append([]agentFixture{museum}, conciergeAgents...), []routeCase{
		{"what's on", []string{"whats on at the museum over half term"}, []string{"ask_museum"}},
	})
}

// A short question whose subject points back asks about the earlier thing, whatever another
// agent's texts say about its other words, and so does the next one after it.
func TestRoutePointerFollowUpKeepsTheAgent(t *testing.T) {
	phone := agentFixture{id: "phone", description: "Mobile phone plan: data used on each line, the phone bill and its charges, other plans.", examples: []string{"how much data have i used", "whats on my phone bill"}}
	subs := agentFixture{id: "subs", description: "Streaming and app subscriptions: what they cost, when they renew, autopay and cancelling.", examples: []string{"when does netflix renew", "is spotify on autopay"}}
	shop := agentFixture{id: "shop", description: "Deals and prices on products to buy, in stores near the user: opening hours, saturday sales.", examples: []string{"any deals on tvs"}}
	checkRoutes(t, []agentFixture{phone, subs, shop}, []routeCase{
		{"after the bill", []string{"why is my phone bill so high", "is it on autopay"}, []string{"ask_phone"}},
		{"two pointers on", []string{"why is my phone bill so high", "when do i have to pay it", "is it on autopay"}, []string{"ask_phone"}},
		{"a thing of the user's moves on", []string{"why is my phone bill so high", "is my netflix on autopay"}, []string{"ask_subs"}},
		{"a follow-up lead moves on", []string{"why is my phone bill so high", "and netflix, is it on autopay"}, []string{"ask_subs"}},
		{"a thing the question asks for moves on", []string{"why is my phone bill so high", "how many streaming subscriptions renew with it"}, []string{"ask_subs"}},
		{"a second clause moves on", []string{"why is my phone bill so high", "does it have roaming... nvm, any deals on tvs"}, []string{"ask_shop"}},
	})
}

// "What happens next" names no thing of its own: its -s word is a verb, and the follow-up
// stays with the claim; "what plans do i have" names plans.
func TestRouteWhatHappensKeepsTheAgent(t *testing.T) {
	claims := agentFixture{id: "claims", description: "Insurance claims: the status of a claim, its payout and next step.", examples: []string{"what's the status of my claim"}}
	support := agentFixture{id: "support", description: "Order support: what's happening with an order or a return, deliveries and refunds.", examples: []string{"what's happening with my return"}}
	phone := agentFixture{id: "phone", description: "Mobile phone plans: the plans the user has and can switch to.", examples: []string{"what plans can i switch to"}}
	checkRoutes(t, []agentFixture{claims, support, phone}, []routeCase{
		{"a verb after what", []string{"what's the status of my claim", "what happens next"}, []string{"ask_claims"}},
		{"a thing after what", []string{"what's the status of my claim", "what plans do i have"}, []string{"ask_phone"}},
	})
}

// An agent a team added by YAML with no examples is reached through what its tools say they
// do, which the orchestrator's prompt lists apart from its examples.
func TestRoutesByToolDescriptions(t *testing.T) {
	agents := append(slices.Clone(conciergeAgents), agentFixture{id: "dental", description: "Help for patients of the family's dental practice and their visits."})
	tools := "What each specialist can look up:\n" +
		"- ask_dental: get_treatment_plan: The treatment the dentist recommended (fillings, braces, root canal).\n"
	const message = "has the root canal been booked"
	for _, tt := range []struct {
		hints string
		want  []string
	}{
		{"", nil},
		{tools, []string{"ask_dental"}},
	} {
		system := orchestratorPrompt(3, agents...) + tt.hints
		resp, err := New().GenerateContent(t.Context(), routeMessages(system, message), llms.WithTools(askTools(agents...)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range routedCalls(t, resp.Choices[0]) {
			got = append(got, r.Tool)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GenerateContent(%q) with hints %q called %v, want %v", message, tt.hints, got, tt.want)
		}
	}
}

// A follow-up that names nothing of its own stays with the agent the turn before it went to,
// even when that turn was itself a follow-up, and however it opens.
func TestRouteSubjectlessFollowUpsKeepTheAgent(t *testing.T) {
	agents := append([]agentFixture{dentistAgent}, conciergeAgents...)
	checkRoutes(t, agents, []routeCase{
		{"a follow-up of a follow-up", []string{"how many points have i got", "when do they run out", "what can i get with them"}, []string{"ask_rewards"}},
		{"no word of its own", []string{"how much is my filling going to cost", "how much is left to pay"}, []string{"ask_dentist"}},
		{"a verb on the earlier thing", []string{"book me a cleaning next week", "actually make it friday"}, []string{"ask_dentist"}},
		{"a time after a preposition", []string{"book me a cleaning next week", "can we push that to after school?"}, []string{"ask_dentist"}},
		{"a subject of its own", []string{"book me a cleaning next week", "and is my flight to rome on time"}, []string{"ask_travel"}},
		{"what the user does", []string{"how many points do i have", "can i pay by card"}, []string{"ask_rewards"}},
		{"what the assistant is asked to do", []string{"is my flight to rome on time", "can you send me the details"}, []string{"ask_travel"}},
		{"a closing superlative", []string{"book me a cleaning next week", "whats the earliest"}, []string{"ask_dentist"}},
		{"a degree", []string{"any deals on headphones", "why so expensive"}, []string{"ask_shop"}},
		{"what the earlier thing costs", []string{"book me a cleaning next week", "how much do i owe"}, []string{"ask_dentist"}},
		{"what a new thing costs", []string{"is my flight to rome on time", "how much are neck pillows"}, []string{"ask_shop"}},
		{"chat is no follow-up", []string{"book me a cleaning next week", "im bored"}, nil},
		{"nor a thing no agent has", []string{"book me a cleaning next week", "can you help me with my python code"}, nil},
	})
}

// A question that names someone ("lily's") is about the user's affairs, not the world, however
// close its sentence comes to a question no agent answers.
func TestRouteQuestionNamingSomeoneIsNoWorldQuestion(t *testing.T) {
	tutoring := agentFixture{id: "tutoring", description: "After-school tutoring for your children: the lesson timetable for each child and subject (maths, reading, science), booking or moving a session, and the term fees."}
	checkRoutes(t, append([]agentFixture{tutoring, dentistAgent}, conciergeAgents...), []routeCase{
		{"a possessive", []string{"when's lily's next maths lesson"}, []string{"ask_tutoring"}},
		{"no one named", []string{"what is the history of maths"}, nil},
	})
}

// A message that names an agent by its own name is read as chat only when its style is very
// sure: "the tutor never tells me anything" complains to the tutoring agent.
func TestRouteNamingAnAgentIsSeldomChat(t *testing.T) {
	tutoring := agentFixture{id: "tutoring", description: "After-school tutoring for your children: the lesson timetable for each child and subject (maths, reading, science), the tutor's progress notes, booking or moving a session, and the term fees."}
	checkRoutes(t, append([]agentFixture{tutoring, dentistAgent}, conciergeAgents...), []routeCase{
		{"a complaint to the agent", []string{"is sam getting any better at reading? the tutor never tells me anything"}, []string{"ask_tutoring"}},
		{"chat that names it", []string{"I'm scared of the dentist, is that something people grow out of"}, nil},
	})
}

// A short message that names a thing an earlier message named goes back to that message's
// agent, though a turn about something else came between.
func TestRouteBackToAnEarlierThing(t *testing.T) {
	laundry := agentFixture{id: "laundry", description: "Laundry and dry cleaning pickup service: scheduling a pickup of clothes, the status of garments being cleaned, the price list, and stains or damage claims."}
	agents := append([]agentFixture{laundry}, conciergeAgents...)
	checkRoutes(t, agents, []routeCase{
		{"back to the shirts", []string{"are my shirts ready from the dry cleaning", "is my flight to rome on time", "so will the shirts be done by thursday"}, []string{"ask_laundry"}},
		{"a new thing", []string{"are my shirts ready from the dry cleaning", "is my flight to rome on time", "any deals on suitcases"}, []string{"ask_shop"}},
		{"a thing named before, asked of another agent", []string{"is my flight to rome on time", "what tier am i", "rome guidebooks, any deals going?"}, []string{"ask_shop"}},
	})
}

// A follow-up whose only words are a contraction of a function word ("when's") and words that
// point back names no subject of its own: it stays with the earlier agent, though "next" is
// the travel and rewards agents' word too.
func TestRouteContractionNamesNoSubject(t *testing.T) {
	tutoring := agentFixture{id: "tutoring", description: "Private tutoring for your children: lessons with a tutor, the lesson schedule and progress reports.", examples: []string{"book a maths lesson for sam on monday", "when is jack's next session with his tutor"}}
	travel := agentFixture{id: "travel", description: "Trips: the upcoming itinerary with flights and hotels.", examples: []string{"when is my next trip", "whats on my itinerary next week"}}
	checkRoutes(t, []agentFixture{tutoring, travel, conciergeAgents[1]}, []routeCase{
		{"after a lesson", []string{"how did max get on in his last english lesson", "and when's the next one?"}, []string{"ask_tutoring"}},
	})
}

// In a conversation, a message that opens as a follow-up ("and what would ...") continues it:
// it is not read for whether it sounds like chat.
func TestRouteFollowUpLeadIsNoAside(t *testing.T) {
	marina := agentFixture{id: "marina", description: "Marina: annual and seasonal berths and moorings for boats, visitor berths per night and the nightly rate, the fuel dock and harbour fees.", examples: []string{"do you have a visitor berth for two nights this weekend", "what are the harbour fees for a visiting boat"}}
	checkRoutes(t, append([]agentFixture{marina}, conciergeAgents...), []routeCase{
		{"after a berth", []string{"is there a visitor berth free this saturday for a 9 metre boat", "and what would two nights come to?"}, []string{"ask_marina"}},
	})
}

// An agent described without examples is read phrase by phrase: its description as one
// sentence is far from any question about one of its subjects, and agents with examples
// (questions, as users ask) would win every contest of sentences. A world question is still
// told against what agents say of themselves as a whole.
func TestRouteReadsADescriptionPhraseByPhrase(t *testing.T) {
	pets := agentFixture{id: "pets", description: "Pet care assistant for the user's registered pets (dogs, cats): their profiles, vaccination and booster shots with due dates, vet appointments and check-ups, medication and flea or worm treatments."}
	dental := agentFixture{id: "dental", description: "Dental care assistant for the user's dentist: upcoming and past dental visits (cleanings, fillings, check-ups), the treatment plan with cost estimates and insurance coverage, and the balance owed to the dental office."}
	checkRoutes(t, append([]agentFixture{pets, dental}, conciergeAgents...), []routeCase{
		{"shots", []string{"when does rex need his shots"}, []string{"ask_pets"}},
		{"vaccines", []string{"is luna up to date on her vaccines"}, []string{"ask_pets"}},
		{"a crown", []string{"what will my crown cost and does insurance cover it"}, []string{"ask_dental"}},
		{"a world question", []string{"why do airlines overbook flights"}, nil},
	})
}

// A follow-up names no subject of its own in what the earlier thing costs ("fee", "pay"), when
// or in what order ("first", "last") or someone named before ("she"): it stays with the
// earlier agent, though another agent's texts use its words.
func TestRouteFollowUpWithoutASubjectStays(t *testing.T) {
	vehicle := agentFixture{id: "vehicle", description: "Car owner assistant for the user's registered vehicles: registration renewal, the next service and oil change, and the monthly car loan payment.", examples: []string{"when is my car due for service", "when do i need to renew my car registration"}}
	gym := agentFixture{id: "gym", description: "Gym membership help: the membership plan, monthly fee, freezing or pausing the membership and its fee, cancelling and the notice period.", examples: []string{"how do i cancel my gym membership"}}
	dental := agentFixture{id: "dental", description: "Dental care: upcoming dental visits, the treatment plan with cost estimates, and the balance owed to the dental office.", examples: []string{"do i owe the dentist anything"}}
	insurance := agentFixture{id: "insurance", description: "Home and car insurance: the user's policies and what they cover, the deductible and premium, and claims.", examples: []string{"does my home policy cover water damage"}}
	subs := agentFixture{id: "subscriptions", description: "Streaming and app subscriptions: which services the user pays for, what each costs per month and when it renews.", examples: []string{"how much am i paying for netflix"}}
	school := agentFixture{id: "school", description: "School portal for the user's children: grades per subject, teachers and absences, homework and the lunch account.", examples: []string{"how is my son doing in math"}}
	checkRoutes(t, []agentFixture{vehicle, gym, insurance, subs, school, dental}, []routeCase{
		{"a fee", []string{"when does the registration on my truck expire", "how much is the renewal fee"}, []string{"ask_vehicle"}},
		{"pay first", []string{"does my car policy cover a windscreen", "how much would i pay first"}, []string{"ask_insurance"}},
		{"last pay", []string{"do i owe the dentist money", "when did i last pay"}, []string{"ask_dental"}},
		{"she, days", []string{"how is my daughter doing in science", "has she missed any days"}, []string{"ask_school"}},
	})
}

// In a conversation "he" or "she" is someone named before, so a question with one is about
// the user's affairs; "that" or "their" in a question about the world points back at nothing,
// and it is still answered directly.
func TestRouteWorldQuestionInAConversation(t *testing.T) {
	school := agentFixture{id: "school", description: "School portal for the user's children: grades per subject, teachers and absences, homework and the lunch account.", examples: []string{"how is my son doing in math"}}
	agents := append([]agentFixture{streamingAgent, gardenAgent, dentistAgent, school}, conciergeAgents...)
	checkRoutes(t, agents, []routeCase{
		{"that, after a flight", []string{"is my flight to rome on time", "is flying that often bad for the environment"}, nil},
		{"that, after a cleaning", []string{"book me a cleaning next week", "is coffee that strong bad for your teeth"}, nil},
		{"their, after a plan", []string{"how much is the premium plan", "how do streaming services pay their actors"}, nil},
		{"she, after a child", []string{"how is my daughter doing in science", "has she missed any days"}, []string{"ask_school"}},
	})
}

// In a conversation "he" or "she" is someone named before, so a question about them asks
// the earlier agent, however much it sounds like chat to the style classifier.
func TestRouteSomeoneNamedBeforeIsNoAside(t *testing.T) {
	driving := agentFixture{id: "driving", description: "Driving school: lessons with an instructor, the lesson schedule, theory and practical test bookings and what a learner still needs to pass.", examples: []string{"book a driving lesson for saturday", "when is my practical test"}}
	vet := agentFixture{id: "vet", description: "Vet clinic: appointments, vaccinations and check-ups for the user's pets, and the bills.", examples: []string{"when is rex's next vaccination", "book a check-up for my cat"}}
	checkRoutes(t, append([]agentFixture{driving, vet}, conciergeAgents...), []routeCase{
		{"he, after a test", []string{"has my son's practical test been booked", "what does he still have to do"}, []string{"ask_driving"}},
		{"she, after a check-up", []string{"is bella booked in for her check-up", "what does she need to do before"}, []string{"ask_vet"}},
	})
}

// A question about kinds of things ("tyres", "a ten year old") is about the world even when its
// sentence comes a little nearer an agent's texts than the questions no agent answers; one
// about a particular thing, a price or the user's own affairs still asks the agent.
func TestRouteQuestionAboutKindsIsTheWorlds(t *testing.T) {
	tyres := agentFixture{id: "tyres", description: "Mobile tyre fitting: tyre quotes, fitting appointments at home or work, puncture repairs and wheel alignment.", examples: []string{"when is my tyre fitting", "how much for two new front tyres"}}
	checkRoutes(t, append([]agentFixture{tyres}, conciergeAgents...), []routeCase{
		{"kinds", []string{"how often should tyres be checked for pressure"}, nil},
		{"a particular thing", []string{"when is the tyre fitter coming"}, []string{"ask_tyres"}},
		{"a price", []string{"how much is a puncture repair"}, []string{"ask_tyres"}},
	})
	// A modal opens such a question too, and a request about a particular visit still routes.
	checkRoutes(t, append([]agentFixture{streamingAgent, gardenAgent, dentistAgent}, conciergeAgents...), []routeCase{
		{"kinds, after a modal", []string{"could a dog need a filling"}, nil},
		{"a particular visit, after a modal", []string{"can the dentist fit in a cleaning on thursday"}, []string{"ask_dentist"}},
	})
}

// A question about someone's thing is about the user's affairs, whatever frame it opens with:
// "why is ..." asks the agent that keeps the thing, not the world.
func TestRouteSomeonesThingIsNoWorldQuestion(t *testing.T) {
	fuel := agentFixture{id: "fuelcards", description: "Fleet fuel cards: each driver's card, its spending limits, blocked or frozen cards and replacements, and fuel transactions.", examples: []string{"what's the limit on my card", "order a replacement card"}}
	school := agentFixture{id: "school", description: "School portal for the user's children: grades per subject, teachers and absences, homework and the lunch account.", examples: []string{"how is my son doing in math"}}
	checkRoutes(t, append([]agentFixture{fuel, school}, conciergeAgents...), []routeCase{
		{"a driver's card", []string{"why is dan's card declined"}, []string{"ask_fuelcards"}},
		{"a child's account", []string{"why is mia's lunch account empty"}, []string{"ask_school"}},
	})
}

// A unit after "per" and an -ing word after a form of "be" name no subject: "how much per head"
// after a catering menu and "who's teaching" after a lesson stay with the earlier agent.
func TestRouteFollowUpUnitsAndProgressives(t *testing.T) {
	catering := agentFixture{id: "catering", description: "Event and office catering: the catering menus (breakfasts, working lunches, sandwich and buffet platters) with their dietary options, and prices a catering quote.", examples: []string{"what's on the working lunch menu", "quote me sandwich platters for 20"}}
	ski := agentFixture{id: "ski", description: "Ski resort: lift passes, ski and snowboard rental, and ski and snowboard lessons (group, private, kids).", examples: []string{"book a private snowboard lesson for saturday", "how much is a 3 day lift pass"}}
	checkRoutes(t, append([]agentFixture{catering, ski}, conciergeAgents...), []routeCase{
		{"per head", []string{"what's on the working lunch menu", "how much per head"}, []string{"ask_catering"}},
		{"who's teaching", []string{"book a private snowboard lesson for my son on tuesday", "who's teaching"}, []string{"ask_ski"}},
	})
}

// A closing "more" stands for more of the earlier thing: "can i buy more" after meeting room
// credits is no shopping.
func TestRouteFollowUpMoreOfTheSame(t *testing.T) {
	coworking := agentFixture{id: "coworking", description: "Coworking space: books desks and meeting rooms, shows the membership plan, and the desk days and room credits left this month.", examples: []string{"book me a desk for thursday", "how many room credits do i have left"}}
	shop := agentFixture{id: "shop", description: "Shopping deals: current offers and discounts, and the cheapest place to buy a product.", examples: []string{"where can i buy airpods cheapest", "any deals on tvs"}}
	checkRoutes(t, []agentFixture{coworking, shop}, []routeCase{
		{"buy more", []string{"how many room credits have i got left this month", "can i buy more"}, []string{"ask_coworking"}},
	})
}

// A follow-up in chat shorthand, with an adverb, or that sounds like a question about the
// world stays with the previous turn's agent; a reaction made only of colour words is
// answered directly.
func TestRouteColloquialFollowUps(t *testing.T) {
	school := agentFixture{id: "school", description: "School portal assistant for the user's children: their grades per subject, teachers and absences, homework and assignments with due dates, and the school lunch account balance.", examples: []string{"how is my son doing in math", "does my daughter have homework due"}}
	checkRoutes(t, append([]agentFixture{school}, conciergeAgents...), []routeCase{
		{"shorthand", []string{"is my flight delayed?", "why tho"}, []string{"ask_travel"}},
		{"shorthand after a price word", []string{"did my refund go through", "when?", "how much tho"}, []string{"ask_support"}},
		{"an adverb", []string{"does my daughter have homework due", "and her brother?", "when exactly"}, []string{"ask_school"}},
		{"an adverb after points", []string{"how many points do i have", "how quickly"}, []string{"ask_rewards"}},
		{"sounds like the world", []string{"does my daughter have homework due", "why so many absences"}, []string{"ask_school"}},
		{"a reaction", []string{"how many points do i have", "lol nice"}, nil},
	})
	banking := agentFixture{id: "banking", description: "Everyday banking: balances of the user's checking and savings accounts, recent card transactions and payments, pending charges and transfers between accounts.", examples: []string{"whats my checking balance", "show my recent card payments"}}
	checkRoutes(t, append([]agentFixture{banking}, conciergeAgents...), []routeCase{
		{"you in shorthand", []string{"whats in my checking account", "can u move 200 over"}, []string{"ask_banking"}},
	})
}

// A short follow-up that reaches another agent through one word its texts use once, or that
// is a question made of acknowledging words ("fine"), stays with the previous turn's agent;
// one that names a thing of its own moves on.
func TestRouteFollowUpReachingAnotherInPassing(t *testing.T) {
	daycare := agentFixture{id: "daycare", description: "Childcare centre assistant for parents: each child's room, teacher, hours and pick-up time, who is allowed to pick a child up, the monthly tuition invoices, and the weekly lunch menu.", examples: []string{"what time is pickup at daycare", "how much is the daycare bill this month"}}
	parking := agentFixture{id: "parking", description: "City parking assistant: the user's residential zone permits with the expiry date and renewal fee, and parking tickets issued to the user's plates with the fine, due date and dispute status.", examples: []string{"when does my parking permit expire", "did i get a parking ticket"}}
	library := agentFixture{id: "library", description: "Public library account: the books the user has borrowed with their due dates, overdue fines owed, and holds waiting for pickup.", examples: []string{"when are my library books due", "do i have any library fines"}}
	support := agentFixture{id: "support", description: "Customer support for orders: order status, delivery and tracking, a late, lost, damaged or missing package, returns and refunds.", examples: []string{"where is my order", "my package hasnt arrived yet"}}
	checkRoutes(t, []agentFixture{daycare, parking, library, support}, []routeCase{
		{"a word in passing", []string{"what time do i have to get ivy from daycare", "what if im late"}, []string{"ask_daycare"}},
		{"a question of acknowledging words", []string{"did i get a parking ticket last week", "how much is the fine"}, []string{"ask_parking"}},
		{"a thing of its own", []string{"what time do i have to get ivy from daycare", "has my package arrived yet"}, []string{"ask_support"}},
	})
}
