package assembly

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// These tests run the whole service (config -> registry -> orchestrator and sub-agents ->
// turn service -> HTTP + SSE) against wire-level fake OpenAI, Anthropic and Gemini servers.
// The same fake answers the orchestrator and every sub-agent; the scripts tell their requests
// apart by the tools offered (ask_* for the orchestrator, CCS tools for a sub-agent) and by
// the tool results carried (a second step of a loop answers a call the first step made).

// subScript is one sub-agent's part of a script: the ask_<id> call the orchestrator makes,
// the CCS tool call the sub-agent's LLM makes, and its answer once the tool result is back.
type subScript struct {
	request string // the ask_<id> call's request argument
	tool    string // a CCS tool of the agent's definition
	args    string
	answer  string
}

var subScripts = map[string]subScript{
	"shop": {request: "any deals on running shoes?", tool: "search_offers", args: `{"query":"running shoes"}`,
		answer: "Nike has the Pegasus 41 road running shoes at $104, 20% off for the next six days."},
	"rewards": {request: "how many points do I have?", tool: "get_points_balance", args: `{}`,
		answer: "You have 12,450 points; 1,200 of them expire in three weeks."},
	"support": {request: "where is my order?", tool: "list_recent_orders", args: `{}`,
		answer: "Your Nike Pegasus 41 order has shipped and arrives in two days."},
	"travel": {request: "when is my next trip?", tool: "list_upcoming_trips", args: `{}`,
		answer: "Your Boston trip starts in thirty days."},
}

func askCallID(agent string) string  { return "call_ask_" + agent }
func toolCallID(agent string) string { return "call_tool_" + agent }

// askResult and toolResult are the keys under which a request carries the result of
// agent's ask_<id> call and of its CCS tool call: the call id, or for protocols without
// ids the function name (see [toolResults]).
func (w wire) askResult(agent string) string {
	if w.byName {
		return "ask_" + agent
	}
	return askCallID(agent)
}

func (w wire) toolResult(agent string) string {
	if w.byName {
		return subScripts[agent].tool
	}
	return toolCallID(agent)
}

// hasResult matches requests that carry the result with this key.
func (w wire) hasResult(key string) llmtest.Matcher {
	if w.byName {
		return llmtest.HasToolResultNamed(key)
	}
	return llmtest.HasToolResult(key)
}

// routeRequest matches the orchestrator's routing call: ask_ tools offered, no tool results
// carried yet. (Streaming does not tell it from the composition call on every wire: the
// Gemini client streams both.)
var routeRequest = llmtest.And(llmtest.HasTool("ask_shop"), func(r llmtest.Request) bool { return len(toolResults(r)) == 0 })

// routeStep answers the routing call with one ask_<id> call per agent, all in one response.
func routeStep(agents ...string) llmtest.Step {
	st := llmtest.Step{Match: routeRequest, Times: 1}
	for _, a := range agents {
		args, _ := json.Marshal(map[string]string{"request": subScripts[a].request})
		st.ToolCalls = append(st.ToolCalls, llmtest.ToolCall{ID: askCallID(a), Name: "ask_" + a, Arguments: string(args)})
	}
	return st
}

// composeStep streams text to the composition call that carries the results of agents' calls.
func (w wire) composeStep(text string, agents ...string) llmtest.Step {
	m := []llmtest.Matcher{llmtest.HasTool("ask_shop"), llmtest.Streaming()}
	for _, a := range agents {
		m = append(m, w.hasResult(w.askResult(a)))
	}
	return llmtest.Step{Match: llmtest.And(m...), Times: 1, Text: text}
}

// subSteps script one sub-agent: a CCS tool call, then its answer after the tool result.
func (w wire) subSteps(agent string) []llmtest.Step {
	s := subScripts[agent]
	done := w.hasResult(w.toolResult(agent))
	return []llmtest.Step{
		{Match: llmtest.And(llmtest.HasTool(s.tool), llmtest.Not(done)), Times: 1,
			ToolCalls: []llmtest.ToolCall{{ID: toolCallID(agent), Name: s.tool, Arguments: s.args}}},
		{Match: llmtest.And(llmtest.HasTool(s.tool), done), Times: 1, Text: s.answer},
	}
}

// script is a full turn: routing to agents, each agent's loop, and the composition.
func (w wire) script(composed string, agents ...string) []llmtest.Step {
	steps := []llmtest.Step{routeStep(agents...), w.composeStep(composed, agents...)}
	for _, a := range agents {
		steps = append(steps, w.subSteps(a)...)
	}
	return steps
}

// composedReply is long enough that the stream guard, which holds back a tail to catch
// internals split across deltas, passes it on in several deltas.
const composedReply = "Good news on both fronts! For your runs, Nike has the Pegasus 41 road running shoes " +
	"at $104, which is 20% off for the next six days, so it is a nice moment to replace a worn pair. " +
	"On the rewards side, you have 12,450 points in your account. Keep in mind that 1,200 of them " +
	"expire in about three weeks, so you may want to redeem something soon: a gift card or a perk " +
	"from the catalog would put them to use before they lapse. If you would like, I can look for " +
	"matching running socks or check which rewards fit your balance best. Happy running, and enjoy " +
	"the new shoes when they arrive!"

const twoIntentMessage = "any deals on running shoes? and how many points do I have?"

// Issue 5 acceptance: a two-intent turn for alice over each real provider protocol, end to end.
func TestTwoIntentTurnOverProviderWire(t *testing.T) {
	agents := readAgents(t)
	aliceOffers := demoFor[ccsdemo.OfferList](t, "alice", "offers.search", map[string]any{"query": "running shoes"})
	alicePoints := demoFor[ccsdemo.PointsBalance](t, "alice", "points.balance", nil)
	// Another user's data, which must never reach any request: bob's offers and balance.
	bobOffers := demoFor[ccsdemo.OfferList](t, "bob", "offers.search", map[string]any{"query": "running shoes"})
	bobPoints := demoFor[ccsdemo.PointsBalance](t, "bob", "points.balance", nil)
	if !slices.Contains(offerTitles(aliceOffers), "Nike Pegasus 41 road running shoes") {
		t.Fatalf("demo fixtures changed: alice's offers are %v", offerTitles(aliceOffers))
	}

	for _, w := range providerWires {
		t.Run(w.name, func(t *testing.T) {
			ta, fake := newProviderApp(t, w, w.script(composedReply, "shop", "rewards")...)
			v := viewTurn(t, ta.streamTurn(t, ta.token(t, "alice"), "", twoIntentMessage))

			// What the client saw: the composed text, streamed as several deltas.
			if v.outcome != stream.OutcomeOK {
				t.Errorf("outcome = %q, want ok", v.outcome)
			}
			if len(v.deltas) < 2 {
				t.Errorf("reply.delta events = %d, want several", len(v.deltas))
			}
			if got := strings.Join(v.deltas, ""); got != composedReply {
				t.Errorf("deltas concatenate to %q, want the streamed composition %q", got, composedReply)
			}
			if v.completed != composedReply {
				t.Errorf("reply.completed = %q, want %q", v.completed, composedReply)
			}
			if !v.statusBy["shop"] || !v.statusBy["rewards"] {
				t.Errorf("status sources = %v, want shop and rewards", v.statusBy)
			}

			// What the provider saw.
			reqs := fake.Requests()
			for i, r := range reqs {
				if r.APIKey != fakeKey || r.Model != w.model {
					t.Errorf("request %d: key %q model %q, want the configured %q and %q", i, r.APIKey, r.Model, fakeKey, w.model)
				}
			}
			by := byCaller(t, agents, reqs)
			if got := map[string]int{"orchestrator": len(by["orchestrator"]), "shop": len(by["shop"]), "rewards": len(by["rewards"])}; !cmp.Equal(got, map[string]int{"orchestrator": 2, "shop": 2, "rewards": 2}) || len(by) != 3 {
				t.Fatalf("requests per caller = %v (callers %d), want orchestrator 2, shop 2, rewards 2", got, len(by))
			}

			route, compose := by["orchestrator"][0], by["orchestrator"][1]
			for name, r := range map[string]llmtest.Request{"routing": route, "composition": compose} {
				if diff := cmp.Diff(askTools(agents), toolsOf(r)); diff != "" {
					t.Errorf("%s request tools mismatch (-want +got):\n%s", name, diff)
				}
			}
			if route.Stream && !w.streamsAll || !compose.Stream {
				t.Errorf("stream flags: routing %v, composition %v; want false, true", route.Stream, compose.Stream)
			}
			if got := route.LastUserText(); got != twoIntentMessage {
				t.Errorf("routing request user text = %q, want %q", got, twoIntentMessage)
			}
			wantResults := map[string]string{w.askResult("shop"): subScripts["shop"].answer, w.askResult("rewards"): subScripts["rewards"].answer}
			if diff := cmp.Diff(wantResults, toolResults(compose)); diff != "" {
				t.Errorf("composition request tool results mismatch (-want +got):\n%s", diff)
			}

			for _, id := range []string{"shop", "rewards"} {
				var want []string
				for _, tl := range agents[id].Tools {
					want = append(want, tl.Name)
				}
				slices.Sort(want)
				for i, r := range by[id] {
					if diff := cmp.Diff(want, toolNames(r)); diff != "" {
						t.Errorf("%s request %d tools mismatch (-want +got):\n%s", id, i, diff)
					}
				}
				if got := by[id][0].LastUserText(); got != subScripts[id].request {
					t.Errorf("%s asked %q, want the ask_%s request %q", id, got, id, subScripts[id].request)
				}
			}

			// The sub-agents' tool results are alice's data from the demo CCS.
			status, offers := toolData[ccsdemo.OfferList](t, toolResults(by["shop"][1])[w.toolResult("shop")])
			if status != "ok" {
				t.Errorf("shop tool result status = %q, want ok", status)
			}
			if diff := cmp.Diff(offerTitles(aliceOffers), offerTitles(offers)); diff != "" {
				t.Errorf("shop tool result offers are not alice's (-want +got):\n%s", diff)
			}
			status, points := toolData[ccsdemo.PointsBalance](t, toolResults(by["rewards"][1])[w.toolResult("rewards")])
			if status != "ok" || points.Points != alicePoints.Points || points.ExpiringSoon != alicePoints.ExpiringSoon {
				t.Errorf("rewards tool result = %s %+v, want ok with alice's balance %+v", status, points, alicePoints)
			}
			for i, r := range reqs {
				if leak := containsAny(requestText(r), append(offerTitles(bobOffers), itoa(bobPoints.Points))...); leak != "" {
					t.Errorf("request %d carries bob's data %q", i, leak)
				}
			}
			for _, c := range ta.Demo.Calls() {
				if c.Principal != "alice" || c.HeaderPrincipal != "alice" {
					t.Errorf("demo CCS call %s for principal %q (header %q), want alice", c.EnricherID, c.Principal, c.HeaderPrincipal)
				}
			}

			rec, err := ta.Service.Turn(t.Context(), "alice", v.turnID)
			if err != nil || rec.Decision == nil {
				t.Fatalf("stored turn = %+v, %v", rec, err)
			}
			want := routing{Invoked: []string{"shop", "rewards"}, IntentCount: 2, Cap: 3, CapBehaviour: orchestrator.CapWithin,
				Outcomes: map[string]ask.Outcome{"shop": ask.OutcomeOK, "rewards": ask.OutcomeOK}}
			if diff := cmp.Diff(want, routingOf(rec.Decision), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("stored routing record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Provider failures on the orchestrator's routing call, through the service: retried when
// retryable, given up on within the deadline, and never shown to the user as codes.
func TestProviderFailuresThroughService(t *testing.T) {
	const oneIntent = "how many points do I have?"
	const pointsReply = "You have 12,450 points, and 1,200 of them expire in about three weeks."
	for _, w := range providerWires {
		for _, tc := range []struct {
			name     string
			script   []llmtest.Step
			outcome  stream.Outcome
			reply    string // "" when any natural-language reply will do
			requests int    // at the fake, in all
			minTime  time.Duration
		}{
			{
				// Retry-After: 1 is honoured: the default first backoff is at most 250 ms.
				name: "429 then success",
				script: append([]llmtest.Step{{Match: routeRequest, Status: http.StatusTooManyRequests, RetryAfter: "1", Times: 1}},
					w.script(pointsReply, "rewards")...),
				outcome: stream.OutcomeOK, reply: pointsReply, requests: 5, minTime: time.Second,
			},
			{
				name:    "500 three times",
				script:  []llmtest.Step{{Match: routeRequest, Status: http.StatusInternalServerError, Times: 3}},
				outcome: stream.OutcomeFailed, requests: 3,
			},
			{
				name:    "400 is not retried",
				script:  []llmtest.Step{{Match: routeRequest, Status: http.StatusBadRequest, Times: 1}},
				outcome: stream.OutcomeFailed, requests: 1,
			},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				// A request beyond the script matches no step, which fails the test at the fake.
				ta, fake := newProviderApp(t, w, tc.script...)
				start := time.Now()
				v := viewTurn(t, ta.streamTurn(t, ta.token(t, "alice"), "", oneIntent))
				elapsed := time.Since(start)

				if v.outcome != tc.outcome {
					t.Errorf("outcome = %q, want %q", v.outcome, tc.outcome)
				}
				if got := len(fake.Requests()); got != tc.requests {
					t.Errorf("requests at the fake = %d, want %d", got, tc.requests)
				}
				if tc.reply != "" && v.completed != tc.reply {
					t.Errorf("reply = %q, want %q", v.completed, tc.reply)
				}
				if len(strings.Fields(v.completed)) < 4 || strings.Join(v.deltas, "") != v.completed {
					t.Errorf("reply = %q streamed as %q, want a sentence streamed whole", v.completed, v.deltas)
				}
				for _, text := range v.userTexts {
					if bad := containsAny(strings.ToLower(text), "500", "429", "400", "unavailable", "internal server error",
						"too many requests", "bad request", "http", "status", "llmtest", "model \""); bad != "" {
						t.Errorf("user-visible text %q shows %q", text, bad)
					}
				}
				if elapsed < tc.minTime {
					t.Errorf("turn took %s, want at least %s (Retry-After)", elapsed, tc.minTime)
				}
				// The model gives up by itself, well inside its 10 s call timeout and the 20 s
				// turn deadline: no deadline error is sent.
				if n := v.count("error"); n != 0 {
					t.Errorf("%d error events, want none: the model's give-up is answered as a reply", n)
				}
				rec, err := ta.Service.Turn(t.Context(), "alice", v.turnID)
				if err != nil || rec.Outcome != tc.outcome {
					t.Errorf("stored turn outcome = %q, %v; want %q", rec.Outcome, err, tc.outcome)
				}
			})
		}
	}
}

// The cap rule and the failure rule travel in the orchestrator's system prompt, and over-cap
// calls in a real-protocol response are dropped before anything runs.
func TestFanOutCapOverProviderWire(t *testing.T) {
	agents := readAgents(t)
	if agents["concierge"].FanOutCap != 3 {
		t.Fatalf("concierge fan_out_cap = %d, this test assumes 3", agents["concierge"].FanOutCap)
	}
	const composed = "Here is what I found for your shoes, your points and your order."
	for _, w := range providerWires {
		t.Run(w.name, func(t *testing.T) {
			steps := []llmtest.Step{
				routeStep("shop", "rewards", "support", "travel"),
				w.composeStep(composed, "shop", "rewards", "support"),
			}
			for _, a := range []string{"shop", "rewards", "support"} { // travel has no steps: a request from it fails the test
				steps = append(steps, w.subSteps(a)...)
			}
			ta, fake := newProviderApp(t, w, steps...)
			v := viewTurn(t, ta.streamTurn(t, ta.token(t, "alice"), "",
				"deals on running shoes, my points, where is my order, and when is my next trip?"))
			if v.outcome != stream.OutcomeOK || v.completed != composed {
				t.Errorf("turn = %q %q, want ok with the composed reply", v.outcome, v.completed)
			}

			by := byCaller(t, agents, fake.Requests())
			sys := strings.ToLower(systemText(by["orchestrator"][0]))
			for _, rule := range []string{"at most 3", `"unavailable:"`, "acknowledge", "never show error codes"} {
				if !strings.Contains(sys, rule) {
					t.Errorf("orchestrator system prompt lacks %q:\n%s", rule, sys)
				}
			}
			got := map[string]int{}
			for caller, rs := range by {
				got[caller] = len(rs)
			}
			want := map[string]int{"orchestrator": 2, "shop": 2, "rewards": 2, "support": 2}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("requests per caller mismatch (-want +got):\n%s", diff)
			}
			compose := by["orchestrator"][1]
			for _, m := range compose.Messages {
				for _, c := range m.ToolCalls {
					if c.Name == "ask_travel" {
						t.Errorf("composition request carries the dropped call %+v", c)
					}
				}
			}
			if n := len(toolResults(compose)); n != 3 {
				t.Errorf("composition request has %d tool results, want 3", n)
			}
			for _, c := range ta.Demo.Calls() {
				if c.EnricherID == "trips.upcoming" {
					t.Error("the dropped travel agent reached the CCS")
				}
			}

			rec, err := ta.Service.Turn(t.Context(), "alice", v.turnID)
			if err != nil || rec.Decision == nil {
				t.Fatalf("stored turn = %+v, %v", rec, err)
			}
			wantRouting := routing{Invoked: []string{"shop", "rewards", "support"}, Dropped: []string{"ask_travel"},
				IntentCount: 4, Cap: 3, CapBehaviour: orchestrator.CapOver,
				Outcomes: map[string]ask.Outcome{"shop": ask.OutcomeOK, "rewards": ask.OutcomeOK, "support": ask.OutcomeOK}}
			if diff := cmp.Diff(wantRouting, routingOf(rec.Decision)); diff != "" {
				t.Errorf("stored routing record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// /readyz names the configured provider, model and host, and never the key.
func TestReadyzDescribesProviderWithoutKey(t *testing.T) {
	for _, w := range providerWires {
		t.Run(w.name, func(t *testing.T) {
			ta, fake := newProviderApp(t, w)
			resp := ta.do(t, http.MethodGet, "/readyz", "", nil, nil)
			body, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /readyz = %d %s, %v", resp.StatusCode, body, err)
			}
			if strings.Contains(string(body), fakeKey) || strings.Contains(string(body), "sk-test") {
				t.Errorf("/readyz body shows the API key: %s", body)
			}
			var ready struct {
				Providers []llm.ProviderInfo `json:"providers"`
			}
			if err := json.Unmarshal(body, &ready); err != nil {
				t.Fatalf("/readyz body %s: %v", body, err)
			}
			want := []llm.ProviderInfo{{Alias: llm.DefaultAlias, Provider: w.provider, Model: w.model, BaseURLHost: hostOf(t, fake.URL())}}
			if diff := cmp.Diff(want, ready.Providers); diff != "" {
				t.Errorf("/readyz providers mismatch (-want +got):\n%s", diff)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("readiness made %d model calls, want none", n)
			}
		})
	}
}
