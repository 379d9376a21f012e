package subagents_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/oteltest"
	"github.com/switchboard-ai/switchboard/subagents"
)

func alice(request string) ask.Question {
	return ask.Question{Request: request, Inherited: ask.Inherited{Principal: ccsdemo.Alice}}
}

// TestMaxSteps: a model that asks for tools on every step is stopped after the step bound;
// every step sends the tools (providers refuse tool history without them), the last one with
// tool choice "none", and the reply is still a plain answer.
func TestMaxSteps(t *testing.T) {
	tests := []struct {
		name      string
		opts      []subagents.Option
		wantSteps int
	}{
		{"default", nil, 4},
		{"three", []subagents.Option{subagents.WithMaxSteps(3)}, 3},
		{"one", []subagents.Option{subagents.WithMaxSteps(1)}, 1},
		{"zero means one", []subagents.Option{subagents.WithMaxSteps(0)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{alwaysTools: true, toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
			reply, err := h.agent("rewards", m, ccs.CheckOptions{}, tt.opts...).Ask(t.Context(), alice("points?"))
			if err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			calls := m.recorded()
			if len(calls) != tt.wantSteps {
				t.Fatalf("model calls = %d, want %d", len(calls), tt.wantSteps)
			}
			var choices []any
			for i, c := range calls {
				if len(c.Tools) == 0 {
					t.Errorf("step %d sent no tools", i)
				}
				choices = append(choices, c.ToolChoice)
			}
			want := make([]any, tt.wantSteps)
			want[tt.wantSteps-1] = "none"
			if diff := cmp.Diff(want, choices); diff != "" {
				t.Errorf("tool choice per step (-want +got):\n%s", diff)
			}
			if n := len(h.demo.Calls()); n != tt.wantSteps-1 {
				t.Errorf("CCS calls = %d, want %d", n, tt.wantSteps-1)
			}
			if reply.Text == "" {
				t.Error("Ask().Text is empty")
			}
		})
	}
}

// TestStatusEvents: every tool start emits the tool's declared event with the call's string
// arguments, in call order; unknown tools emit nothing.
func TestStatusEvents(t *testing.T) {
	type emission struct {
		Event  string
		Params map[string]string
	}
	tests := []struct {
		name  string
		agent string
		calls []llms.ToolCall
		want  []emission
	}{
		{
			name:  "shop tools with string parameters",
			agent: "shop",
			calls: []llms.ToolCall{
				call("c1", "search_offers", `{"query":"running shoes","limit":3}`),
				call("c2", "lookup_price", `{"product":"airpods pro"}`),
				call("c3", "list_coupons", `{}`),
			},
			want: []emission{
				{"searching_offers", map[string]string{"query": "running shoes"}},
				{"comparing_prices", map[string]string{"product": "airpods pro"}},
				{"checking_coupons", map[string]string{}},
			},
		},
		{
			name:  "numbers are not offered to templates",
			agent: "rewards",
			calls: []llms.ToolCall{call("c1", "browse_rewards", `{"max_points":5000}`)},
			want:  []emission{{"browsing_rewards", map[string]string{}}},
		},
		{
			name:  "malformed arguments give no parameters",
			agent: "travel",
			calls: []llms.ToolCall{call("c1", "search_hotels", `{"city":`)},
			want:  []emission{{"searching_hotels", nil}},
		},
		{
			name:  "null arguments give no string parameters, yet some",
			agent: "travel",
			calls: []llms.ToolCall{call("c1", "search_hotels", `null`)},
			want:  []emission{{"searching_hotels", map[string]string{}}},
		},
		{
			name:  "unknown tool emits nothing",
			agent: "travel",
			calls: []llms.ToolCall{call("c1", "book_flight", `{}`), call("c2", "list_upcoming_trips", `{}`)},
			want:  []emission{{"loading_trips", map[string]string{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{toolCalls: tt.calls}
			var mu sync.Mutex
			var got []emission
			req := alice("help")
			req.Emit = func(event string, params map[string]string) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, emission{event, params})
			}
			if _, err := h.agent(tt.agent, m, ccs.CheckOptions{}).Ask(t.Context(), req); err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("emitted events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolCallArguments: malformed or unknown calls from the model become unavailable results,
// never a crash or a CCS call with garbage.
func TestToolCallArguments(t *testing.T) {
	tests := []struct {
		name      string
		agent     string
		call      llms.ToolCall
		want      parsedResult
		outcome   ask.Outcome
		ccsParams []map[string]any // params of each CCS call; nil for no call
	}{
		{
			name:      "well-formed",
			agent:     "shop",
			call:      call("c1", "search_offers", `{"query":"running shoes"}`),
			want:      parsedResult{Status: "ok", HasData: true},
			outcome:   ask.OutcomeOK,
			ccsParams: []map[string]any{{"query": "running shoes"}},
		},
		{
			name:      "truncated JSON is sent as no parameters and the enricher refuses",
			agent:     "shop",
			call:      call("c1", "search_offers", `{"query":"runn`),
			want:      parsedResult{Status: "unavailable", HasNote: true},
			outcome:   ask.OutcomeUnavailable,
			ccsParams: []map[string]any{nil},
		},
		{
			name:      "not an object",
			agent:     "shop",
			call:      call("c1", "search_offers", `["running shoes"]`),
			want:      parsedResult{Status: "unavailable", HasNote: true},
			outcome:   ask.OutcomeUnavailable,
			ccsParams: []map[string]any{nil},
		},
		{
			name:      "wrong type is refused by the enricher",
			agent:     "shop",
			call:      call("c1", "search_offers", `{"query":42}`),
			want:      parsedResult{Status: "unavailable", HasNote: true},
			outcome:   ask.OutcomeUnavailable,
			ccsParams: []map[string]any{{"query": float64(42)}},
		},
		{
			name:      "garbage arguments to a tool that needs none",
			agent:     "rewards",
			call:      call("c1", "get_points_balance", `not json at all`),
			want:      parsedResult{Status: "ok", HasData: true},
			outcome:   ask.OutcomeOK,
			ccsParams: []map[string]any{nil},
		},
		{
			name:    "unknown tool",
			agent:   "rewards",
			call:    call("c1", "transfer_points", `{"to":"bob"}`),
			want:    parsedResult{Status: "unavailable", HasNote: true},
			outcome: ask.OutcomeUnavailable,
		},
		{
			name:    "another agent's tool",
			agent:   "rewards",
			call:    call("c1", "get_account_profile", `{}`),
			want:    parsedResult{Status: "unavailable", HasNote: true},
			outcome: ask.OutcomeUnavailable,
		},
		{
			name:      "call without id or type",
			agent:     "rewards",
			call:      llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: "get_tier", Arguments: `{}`}},
			want:      parsedResult{Status: "ok", HasData: true},
			outcome:   ask.OutcomeOK,
			ccsParams: []map[string]any{nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{toolCalls: []llms.ToolCall{tt.call}}
			reply, err := h.agent(tt.agent, m, ccs.CheckOptions{}).Ask(t.Context(), alice("help"))
			if err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			results := m.toolResults("")
			if len(results) != 1 {
				t.Fatalf("tool results = %q, want one", results)
			}
			if diff := cmp.Diff(tt.want, parseResult(t, results[0])); diff != "" {
				t.Errorf("tool result %s (-want +got):\n%s", results[0], diff)
			}
			if reply.Outcome != tt.outcome {
				t.Errorf("Ask().Outcome = %q, want %q", reply.Outcome, tt.outcome)
			}
			var params []map[string]any
			for _, c := range h.demo.Calls() {
				params = append(params, c.Params)
			}
			if diff := cmp.Diff(tt.ccsParams, params); diff != "" {
				t.Errorf("CCS call params (-want +got):\n%s", diff)
			}
			// The tool call the LLM made and its result go back as the portable pair.
			last := m.recorded()[len(m.recorded())-1].Messages
			if n := len(last); n != 4 || last[2].Role != llms.ChatMessageTypeAI || last[3].Role != llms.ChatMessageTypeTool {
				t.Fatalf("last model call messages = %d %v, want system, human, AI tool call, tool result", n, roles(last))
			}
			tc, ok := last[2].Parts[0].(llms.ToolCall)
			if !ok || tc.Type != "function" {
				t.Errorf("AI message part = %#v, want a tool call of type function", last[2].Parts[0])
			}
			if tr, ok := last[3].Parts[0].(llms.ToolCallResponse); !ok || tr.ToolCallID != tt.call.ID || tr.Name != tt.call.FunctionCall.Name {
				t.Errorf("tool message part = %#v, want the response to %s", last[3].Parts[0], tt.call.FunctionCall.Name)
			}
		})
	}
}

func roles(msgs []llms.MessageContent) []llms.ChatMessageType {
	var out []llms.ChatMessageType
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

// TestModelError: a failing sub-agent model makes Ask fail with ErrModel and the cause, on the
// first step or after tools ran.
func TestModelError(t *testing.T) {
	boom := errors.New("provider said 500")
	for _, failOn := range []int{1, 2} {
		t.Run(map[int]string{1: "first step", 2: "after tool results"}[failOn], func(t *testing.T) {
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{failOn: failOn, failErr: boom, toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
			_, err := h.agent("rewards", m, ccs.CheckOptions{}).Ask(t.Context(), alice("points?"))
			if !errors.Is(err, subagents.ErrModel) || !errors.Is(err, boom) {
				t.Errorf("Ask() error = %v, want %v wrapping %v", err, subagents.ErrModel, boom)
			}
			if n := len(h.demo.Calls()); n != failOn-1 {
				t.Errorf("CCS calls = %d, want %d", n, failOn-1)
			}
		})
	}
}

// TestNilModelResponse: a provider that answers nothing at all is a model failure, not a panic.
func TestNilModelResponse(t *testing.T) {
	h := newBareHarness(t)
	def, _ := h.defs.Get("rewards")
	a, err := subagents.New(subagents.Config{Definition: def, Model: nilModel{}, CCS: unreachable{}, Registry: h.reg}, h.opts...)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	if _, err := a.Ask(t.Context(), alice("points?")); !errors.Is(err, subagents.ErrModel) {
		t.Errorf("Ask() error = %v, want %v", err, subagents.ErrModel)
	}
}

type nilModel struct{}

func (nilModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, nil
}

func (m nilModel) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, o...)
}

// unreachable is a CCS no test expects to be called.
type unreachable struct{}

func (unreachable) Enrich(context.Context, ccs.EnricherRequest) (*ccs.RawResponse, error) {
	return nil, ccs.ErrUnavailable
}

// TestInheritedContextReachesLLM: the definition's prompt plus the inherited locale, location
// and prior context make the system message; the request is the human message.
func TestInheritedContextReachesLLM(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	m := &scriptedModel{text: "You have 12,450 points."}
	req := ask.Question{Request: "and my tier?", Inherited: ask.Inherited{
		Principal: ccsdemo.Alice, EpisodeID: "ep-9", TurnID: "turn-9",
		Locale: "de-DE", Location: "Berlin", PriorContext: "The user asked about running shoe deals.",
	}}
	reply, err := h.agent("rewards", m, ccs.CheckOptions{}).Ask(t.Context(), req)
	if err != nil {
		t.Fatalf("Ask() error = %v", err)
	}
	if reply.Text != m.text {
		t.Errorf("Ask().Text = %q, want %q", reply.Text, m.text)
	}
	calls := m.recorded()
	if len(calls) != 1 || len(calls[0].Messages) != 2 {
		t.Fatalf("model calls = %+v, want one with system and human messages", calls)
	}
	sys, human := calls[0].Messages[0], calls[0].Messages[1]
	if sys.Role != llms.ChatMessageTypeSystem || human.Role != llms.ChatMessageTypeHuman {
		t.Fatalf("roles = %v, want system, human", roles(calls[0].Messages))
	}
	def, _ := h.defs.Get("rewards")
	for _, want := range []string{strings.TrimSpace(def.Prompt), "de-DE", "Berlin", req.Inherited.PriorContext} {
		if !strings.Contains(messageText(sys), want) {
			t.Errorf("system message lacks %q:\n%s", want, messageText(sys))
		}
	}
	if got := messageText(human); got != req.Request {
		t.Errorf("human message = %q, want %q", got, req.Request)
	}
	var names []string
	for _, tool := range calls[0].Tools {
		names = append(names, tool.Function.Name)
	}
	if diff := cmp.Diff([]string{"get_points_balance", "get_tier", "browse_rewards"}, names); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if n := len(h.demo.Calls()); n != 0 {
		t.Errorf("CCS calls = %d, want 0 when the model asks for none", n)
	}
}

// TestNew checks the configuration errors of New.
func TestNew(t *testing.T) {
	h := newBareHarness(t)
	rewards, _ := h.defs.Get("rewards")
	concierge, _ := h.defs.Get("concierge")
	noTools := &definitions.Definition{Kind: definitions.KindSubAgent, ID: "chat"}
	m := &scriptedModel{}
	tests := []struct {
		name string
		cfg  subagents.Config
		want error
	}{
		{"ok", subagents.Config{Definition: rewards, Model: m, CCS: unreachable{}, Registry: h.reg}, nil},
		{"no tools needs no CCS", subagents.Config{Definition: noTools, Model: m}, nil},
		{"nil definition", subagents.Config{Model: m}, subagents.ErrNotSubAgent},
		{"orchestrator", subagents.Config{Definition: concierge, Model: m}, subagents.ErrNotSubAgent},
		{"no model", subagents.Config{Definition: rewards, CCS: unreachable{}, Registry: h.reg}, subagents.ErrNoModel},
		{"no CCS", subagents.Config{Definition: rewards, Model: m, Registry: h.reg}, subagents.ErrNoCCS},
		{"no registry", subagents.Config{Definition: rewards, Model: m, CCS: unreachable{}}, subagents.ErrNoCCS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := subagents.New(tt.cfg)
			if !errors.Is(err, tt.want) {
				t.Errorf("New() error = %v, want %v", err, tt.want)
			}
			if (err == nil) != (a != nil) {
				t.Errorf("New() = %v, %v: want exactly one of agent and error", a, err)
			}
		})
	}
}

// TestModelSpanAttributes: each model call's span carries the operation, its agent and its own
// turn's id, for invocations one after another and at once (their attributes are laid out in
// arrays invocations reuse).
func TestModelSpanAttributes(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	ag := h.agent("rewards", m, ccs.CheckOptions{})
	var wg sync.WaitGroup
	const turns = 6
	for round := range 2 {
		for i := range turns / 2 {
			wg.Go(func() {
				q := alice("points?")
				q.Inherited.TurnID = fmt.Sprintf("turn_%d", round*turns/2+i)
				if _, err := ag.Ask(t.Context(), q); err != nil {
					t.Errorf("Ask(%s) = %v", q.Inherited.TurnID, err)
				}
			})
		}
		wg.Wait()
	}
	perTurn := map[string]int{}
	for _, s := range h.spans.Ended() {
		if s.Name() != "llm.subagent" {
			continue
		}
		got := map[string]string{}
		for _, kv := range s.Attributes() {
			got[string(kv.Key)] = kv.Value.AsString()
		}
		turn := got["switchboard.turn_id"]
		perTurn[turn]++
		want := map[string]string{"gen_ai.operation.name": "chat", "switchboard.agent_id": "rewards", "switchboard.turn_id": turn}
		if diff := cmp.Diff(want, got); diff != "" || !strings.HasPrefix(turn, "turn_") {
			t.Errorf("llm.subagent span attributes (-want +got):\n%s", diff)
		}
	}
	for i := range turns {
		if id := fmt.Sprintf("turn_%d", i); perTurn[id] != 2 { // the tool call, then the answer
			t.Errorf("turn %s has %d model spans, want 2", id, perTurn[id])
		}
	}
}

// TestModelSpanAttributesKept: a tracer provider may keep the attribute slices it is given
// (the API allows it); what it keeps of one invocation's spans must still name that
// invocation's turn after later invocations ran.
func TestModelSpanAttributesKept(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	tp := &oteltest.KeepingProvider{}
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	ag := h.agent("rewards", m, ccs.CheckOptions{}, subagents.WithTelemetry(ask.Telemetry{Tracers: tp, Logger: slog.New(slog.DiscardHandler)}))
	for i := range 3 {
		q := alice("points?")
		q.Inherited.TurnID = fmt.Sprintf("turn_%d", i)
		if _, err := ag.Ask(t.Context(), q); err != nil {
			t.Fatalf("Ask(%s) = %v", q.Inherited.TurnID, err)
		}
	}
	var turns []string
	for _, s := range tp.Spans() {
		if s.Name() == "llm.subagent" {
			turns = append(turns, s.Attributes()["switchboard.turn_id"])
		}
	}
	want := []string{"turn_0", "turn_0", "turn_1", "turn_1", "turn_2", "turn_2"} // the tool call, then the answer
	if diff := cmp.Diff(want, turns); diff != "" {
		t.Errorf("turn ids kept by llm.subagent spans (-want +got):\n%s", diff)
	}
}

// TestAnswerNamesToolsCalled: the answer names the definition's tools the model called, in
// call order and as often as called, for the routing record; a name the definition does not
// have (a model inventing one) is not recorded.
func TestAnswerNamesToolsCalled(t *testing.T) {
	tests := []struct {
		name  string
		calls []llms.ToolCall
		want  []string
	}{
		{"none", nil, nil},
		{"one", []llms.ToolCall{call("c1", "get_tier", "{}")}, []string{"get_tier"}},
		{"in order, twice", []llms.ToolCall{call("c1", "get_tier", "{}"), call("c2", "get_points_balance", "{}"), call("c3", "get_tier", "{}")},
			[]string{"get_tier", "get_points_balance", "get_tier"}},
		{"an invented name", []llms.ToolCall{call("c1", "drop_tables", "{}"), call("c2", "get_tier", "{}")}, []string{"get_tier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
			m := &scriptedModel{toolCalls: tt.calls}
			ans, err := h.agent("rewards", m, ccs.CheckOptions{}).Ask(t.Context(), alice("what tier am i"))
			if err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, ans.Tools); diff != "" {
				t.Errorf("Answer.Tools (-want +got):\n%s", diff)
			}
		})
	}
}
