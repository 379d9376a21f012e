package offline

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/demo"
)

// The agents below are invented for the tests, in the shape the orchestrator gives them to
// its model: an ask_<id> tool with the definition's description, and few-shot lines in the
// system prompt. The model's code knows none of them.

type agentFixture struct {
	id          string
	description string
	examples    []string
}

var conciergeAgents = []agentFixture{
	{
		id:          "shop",
		description: "Finds retail offers and deals, coupons and discount codes, and compares product prices across stores.",
		examples:    []string{"any deals on running shoes?", "do you have coupons for groceries?", "how much does a PlayStation 5 cost?", "compare prices for noise cancelling headphones"},
	},
	{
		id:          "rewards",
		description: "Tracks the member's loyalty points balance, membership tier status and the rewards catalog they can redeem points for.",
		examples:    []string{"how many points do I have?", "what tier am I in?", "what rewards can I get with 5000 points?", "am I close to gold status?"},
	},
	{
		id:          "support",
		description: "Handles customer support for orders and the account: recent orders and deliveries, return and refund status, and the account profile on file.",
		examples:    []string{"where is my order?", "what's the status of my return?", "has my refund gone through?", "what email is on my account?"},
	},
	{
		id:          "travel",
		description: "Plans and tracks travel: upcoming trips and bookings, live flight status, and hotel search in a city.",
		examples:    []string{"when is my next trip?", "is flight UA123 on time?", "find me a hotel in Lisbon", "what time does my flight board?"},
	},
}

// gardenAgent is a vertical nobody wrote code for: it must route on its text alone.
var gardenAgent = agentFixture{
	id:          "garden",
	description: "Gives gardening advice: watering schedules, plant care, pest control and the best time to sow seeds or prune.",
	examples:    []string{"when should I plant tomatoes?", "how often do I water succulents?", "aphids are eating my roses"},
}

// clinicAgent shares no word with "need to see a cardiologist".
var clinicAgent = agentFixture{
	id:          "clinic",
	description: "Books doctor appointments and answers questions about prescriptions and medicines.",
	examples:    []string{"book me a doctor appointment", "refill my prescription", "when is my next checkup"},
}

// gymAgent uses "schedule" once, as people do in many trades.
var gymAgent = agentFixture{
	id:          "gym",
	description: "Gym membership: class bookings, personal trainer sessions and club opening hours.",
	examples:    []string{"book me into tomorrow's spin class", "schedule a session with a personal trainer", "what time does the club open on sunday"},
}

// statusAgents both use the light noun "status".
var statusAgents = []agentFixture{
	{id: "orders", description: "Order status, deliveries, returns and refunds."},
	{id: "loyalty", description: "The member's points and tier status."},
}

func askTools(agents ...agentFixture) []llms.Tool {
	tools := make([]llms.Tool, len(agents))
	for i, a := range agents {
		tools[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name:        "ask_" + a.id,
			Description: a.description,
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{"request": map[string]any{"type": "string", "description": "what the user asks this agent"}},
				"required":   []any{"request"},
			},
		}}
	}
	return tools
}

func orchestratorPrompt(capN int, agents ...agentFixture) string {
	var b strings.Builder
	b.WriteString("You are a friendly concierge. Route each part of the user's message to the right specialist.\n")
	if capN > 0 {
		b.WriteString("Call at most ")
		b.WriteString(string(rune('0' + capN)))
		b.WriteString(" ask_ tools per turn, picking the most relevant.\n")
	}
	b.WriteString("Acknowledge failures in plain words; never show error codes.\nExamples:\n")
	for _, a := range agents {
		for _, e := range a.examples {
			b.WriteString("- \"" + e + "\" -> ask_" + a.id + "\n")
		}
	}
	return b.String()
}

func routeMessages(system string, humans ...string) []llms.MessageContent {
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, system)}
	for i, h := range humans {
		if i > 0 {
			msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeAI, "Sure, here is what I found."))
		}
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, h))
	}
	return msgs
}

// stringParam and friends build JSON-schema parameters the way YAML tool definitions do.
func schema(required []string, props map[string]any) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func fnTool(name, desc string, params map[string]any) llms.Tool {
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name, Description: desc, Parameters: params}}
}

var shopTools = []llms.Tool{
	fnTool("search_offers", "Search current offers and deals for the user", schema([]string{"query"}, map[string]any{"query": prop("string", "what to search offers for")})),
	fnTool("list_coupons", "List coupons and discount codes available to the user", schema(nil, map[string]any{"category": prop("string", "optional coupon category")})),
	fnTool("lookup_price", "Look up and compare the price of a product across stores", schema([]string{"product"}, map[string]any{"product": prop("string", "the product to price")})),
}

var travelTools = []llms.Tool{
	fnTool("upcoming_trips", "List the user's upcoming trips and bookings", schema(nil, map[string]any{})),
	fnTool("flight_status", "Live status of a flight: delays, gate and boarding time", schema(nil, map[string]any{"flight": prop("string", "flight number")})),
	fnTool("search_hotels", "Search hotels in a city", schema([]string{"city"}, map[string]any{"city": prop("string", "city to search")})),
}

var supportTools = []llms.Tool{
	fnTool("recent_orders", "List the user's recent orders and their delivery state", schema(nil, map[string]any{})),
	fnTool("return_status", "Status of a return or refund", schema(nil, map[string]any{"order_id": prop("string", "the order the return belongs to")})),
	fnTool("account_profile", "The account profile: name, email, address on file", schema(nil, map[string]any{})),
}

// orderTools are described as vertical teams write them: the return tool also speaks of orders.
var orderTools = []llms.Tool{
	fnTool("list_recent_orders", "List the user's recent orders with their delivery status and tracking numbers.", schema(nil, map[string]any{})),
	fnTool("get_return_status", "Get the status of a return and its refund, for one order or the latest return.", schema(nil, map[string]any{"order_id": prop("string", `The order number the user mentioned, e.g. "A1043"; omit for the latest return.`)})),
}

var rewardsTools = []llms.Tool{
	fnTool("points_balance", "The member's loyalty points balance", schema(nil, map[string]any{})),
	fnTool("tier_status", "The member's tier status and progress to the next tier", schema(nil, map[string]any{})),
	fnTool("rewards_catalog", "Browse rewards that can be redeemed with points", schema(nil, map[string]any{"max_points": prop("integer", "most points to spend")})),
}

// demoAgents returns the sub-agents of the demo's definitions (package demo).
func demoAgents(t *testing.T) []agentFixture {
	t.Helper()
	files, err := fs.Glob(demo.Agents, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []agentFixture
	for _, f := range files {
		b, err := fs.ReadFile(demo.Agents, f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Kind, ID, Description string
			Examples              []string
		}
		if err := yaml.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d.Kind == "sub_agent" {
			out = append(out, agentFixture{id: d.ID, description: d.Description, examples: d.Examples})
		}
	}
	return out
}
