package offline

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// FuzzRoute feeds arbitrary user text to the router and the sub-agent tool loop: it must
// never panic, and every call it makes must carry a JSON object of arguments.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{
		"", "and", "show offers and my points", "what about bob's?", "is UA 456 on time? $5k, 2,000 points",
		"hotels in paris; oh and btw also plus then", "\x00\xff", "’’'-- --'", "I'm in New York City (earlier: x",
		strings.Repeat("points and ", 200), "is", "why do", "tell me a joke about points", "how r u",
		"did the", "deals for my", "for my daughter", "DL 1402 ÄÖ1234 éa123", "thanks!! bye",
		"use my points to pay", "pay with", "use", "under 150 bucks", "up to", "kids under 12",
		"we're flying out, anyway how many points", "I moved house, can you", "send it back",
		"lovely day. anyway", "should i", "how do i say it in spanish", "what year did", "i'm",
		"a – b", "— —", " - ", "9am - 5pm - my points", "(yay) - deals",
		"Now: book me", "I need it before", "where is it? the headphones", "my actual problem:",
		"something else: what", "anyway anyway", "is there", "heading to the", "whats on at",
		"the flights are sorted, now I need", "I would really love", "I'm nervous, how do people cope with it",
		"refund my order now! points?", "!", "please!", "discounted", "was supposed", "supposed",
		"also my slot, can I move it", "any tips", "ordered them", "wat would it cost", "my my my",
	} {
		f.Add(s)
	}
	m := New()
	system := orchestratorPrompt(3, append(conciergeAgents, gardenAgent)...)
	ask := askTools(append(conciergeAgents, gardenAgent)...)
	f.Fuzz(func(t *testing.T, text string) {
		for _, tools := range [][]llms.Tool{ask, shopTools, travelTools, supportTools, rewardsTools} {
			resp, err := m.GenerateContent(t.Context(), routeMessages(system, "how many points do I have?", text), llms.WithTools(tools))
			if err != nil {
				t.Fatalf("GenerateContent(%q) error = %v", text, err)
			}
			c := resp.Choices[0]
			if len(c.ToolCalls) > 4 {
				t.Errorf("GenerateContent(%q) made %d calls, more than there are tools", text, len(c.ToolCalls))
			}
			if len(c.ToolCalls) == 0 && c.Content == "" {
				t.Errorf("GenerateContent(%q) returned neither calls nor text", text)
			}
			for _, tc := range c.ToolCalls {
				if tc.FunctionCall == nil {
					t.Fatalf("GenerateContent(%q) returned a call without a function", text)
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args); err != nil {
					t.Errorf("GenerateContent(%q) arguments %q: %v", text, tc.FunctionCall.Arguments, err)
				}
				if r, ok := args["request"].(string); ok && utf8.ValidString(text) && !utf8.ValidString(r) {
					t.Errorf("request %q is not valid UTF-8 though the input was", r)
				}
			}
		}
		summary := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "Summarise this."), llms.TextParts(llms.ChatMessageTypeHuman, text)}
		resp, err := New(WithSummaryWords(5)).GenerateContent(t.Context(), summary)
		if err != nil {
			t.Fatalf("GenerateContent(summary of %q) error = %v", text, err)
		}
		if n := len(strings.Fields(resp.Choices[0].Content)); n > 5 {
			t.Errorf("summary of %q has %d words, want at most 5", text, n)
		}
	})
}

// FuzzCompose feeds arbitrary tool results to the narrator: it must never panic and never
// echo a JSON wrapper back.
func FuzzCompose(f *testing.F) {
	for _, s := range []string{
		`{"status":"ok","data":{"a":1}}`, `{"status":"partial","note":"n","data":[1,{"b":[{"c":null}]}]}`,
		`{"status":"unavailable"}`, `unavailable:`, `[[[[[[[[[[]]]]]]]]]]`, `{"status":`, `"just a string"`,
		strings.Repeat("[", 100),
		`{"status":"ok","data":{"q":"a","currency":"USD","items":[{"id":"40213","price":1e400,"ends":"2026-01-02"},{"x_id":"b","n":1}]}}`,
		`{"status":"ok","data":{"discount":101,"per":1,"price per":2,"":{"":[]}}}`,
	} {
		f.Add(s)
	}
	m := New()
	f.Fuzz(func(t *testing.T, content string) {
		for _, turn := range [][]llms.MessageContent{
			turnWithResults("x", [3]string{"get_things", `{}`, content}),
			// the same content as an echoing data tool's result beside a sub-agent's reply
			turnWithResults("order 40213", [3]string{"search_things", `{"q":"a","n":1}`, content},
				[3]string{"ask_x", `{"request":"y"}`, "I found 1 thing:\n- a"}),
		} {
			resp, err := m.GenerateContent(t.Context(), turn)
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			got := resp.Choices[0].Content
			if strings.TrimSpace(got) == "" {
				t.Errorf("narration of %q is empty", content)
			}
			if strings.HasPrefix(strings.TrimSpace(content), "{") && strings.Contains(got, `"status"`) {
				t.Errorf("narration of %q echoes the wrapper: %q", content, got)
			}
		}
	})
}

func BenchmarkRoute(b *testing.B) {
	m := New()
	agents := append(append([]agentFixture(nil), conciergeAgents...), gardenAgent)
	benchRoute(b, m, agents, "what's my tier and any coupons for electronics, also is UA 456 on time?")
}

// benchRoute routes message among agents with m, per iteration.
func benchRoute(b *testing.B, m *Model, agents []agentFixture, message string) {
	msgs := routeMessages(orchestratorPrompt(3, agents...), message)
	opts := []llms.CallOption{llms.WithTools(askTools(agents...))}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(ctx, msgs, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoute10Agents routes a two-intent message among ten agents, the size a deployment
// with several vertical teams reaches.
func BenchmarkRoute10Agents(b *testing.B) {
	benchRoute(b, New(), tenAgents(), "any deals on running shoes? and how many points do I have?")
}

// BenchmarkRouteByMeaning routes, among ten agents, a message that shares no word with any of
// them, so the words choose nothing and closeness in meaning decides.
func BenchmarkRouteByMeaning(b *testing.B) {
	benchRoute(b, New(), tenAgents(), "need to see a cardiologist next week")
}

// BenchmarkRouteBySentence routes, among ten agents, messages that no word routes and that
// word vectors do not settle, so the sentence encoder reads each. Every iteration sends a
// new message (the encoder caches texts it has seen); the agents' texts are encoded once,
// before the timer, as they are after a deployment's first such turn.
func BenchmarkRouteBySentence(b *testing.B) {
	m, agents := New(), tenAgents()
	opts := []llms.CallOption{llms.WithTools(askTools(agents...))}
	system := orchestratorPrompt(3, agents...)
	ctx := b.Context()
	const message = "what freebies can i claim with what i've earned"
	if _, err := m.GenerateContent(ctx, routeMessages(system, message), opts...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	run := sentenceBenchRuns.Add(1) // with -count, each run sends messages not yet seen
	i := 0
	for b.Loop() {
		i++
		msgs := routeMessages(system, fmt.Sprintf("%s, take %d of %d", message, i, run))
		if _, err := m.GenerateContent(ctx, msgs, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

var sentenceBenchRuns atomic.Int64

func tenAgents() []agentFixture {
	return append(append([]agentFixture(nil), conciergeAgents...), gardenAgent,
		agentFixture{id: "bank", description: "Banking: account balances, card payments and transfers between the user's accounts.", examples: []string{"what's my checking balance", "transfer 50 to savings"}},
		agentFixture{id: "health", description: "Health: doctor appointments, prescriptions and refills, test results.", examples: []string{"book a checkup", "refill my prescription"}},
		agentFixture{id: "home", description: "Smart home: lights, thermostat, locks and cameras at the user's home.", examples: []string{"turn off the lights", "set the heating to 20"}},
		agentFixture{id: "energy", description: "Energy account: electricity and gas bills, meter readings, tariffs and outages.", examples: []string{"why is my bill so high", "submit a meter reading"}},
		agentFixture{id: "courses", description: "Online courses: enrolments, deadlines, grades and certificates.", examples: []string{"when is my essay due", "what did i get on the quiz"}},
	)
}

// BenchmarkRouteLongStory routes a rambling message of 400 clauses that tell what happened
// before one question: the scene-setting pass must stay linear in the clauses.
func BenchmarkRouteLongStory(b *testing.B) {
	story := strings.Repeat("we walked to the station, ", 400) + "how many points do i have?"
	benchRoute(b, New(), tenAgents(), story)
}
