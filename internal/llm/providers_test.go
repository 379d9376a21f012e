package llm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
)

// wire describes one provider under test: how to start its fake server and configure it.
type wire struct {
	name      string
	newServer func(testing.TB, ...llmtest.Step) *llmtest.Server
	config    func(s *llmtest.Server) ModelConfig
	// history is the portable tool-result history as that provider puts it on the wire.
	history func(c1, c2 string) []llmtest.Message
	// byName is set for protocols without call ids (Gemini): the wrapper synthesises
	// IDs for the calls a reply makes, and results travel matched by function name.
	byName bool
}

// resultFor matches requests that carry the result of call id of function name, the way
// w's protocol identifies it.
func (w wire) resultFor(id, name string) llmtest.Matcher {
	if w.byName {
		return llmtest.HasToolResultNamed(name)
	}
	return llmtest.HasToolResult(id)
}

const testKey = "sk-test-0123456789abcdef"

var wires = []wire{
	{
		name:      "openai",
		newServer: llmtest.NewOpenAI,
		config: func(s *llmtest.Server) ModelConfig {
			return ModelConfig{Provider: ProviderOpenAI, Model: "gpt-test", BaseURL: s.URL(), APIKey: testKey}
		},
		history: openAIHistory,
	},
	{
		name:      "ollama",
		newServer: llmtest.NewOpenAI,
		config: func(s *llmtest.Server) ModelConfig {
			// Ollama is configured with its host; New adds the /v1 of its OpenAI API.
			return ModelConfig{Provider: ProviderOllama, Model: "llama-test", BaseURL: strings.TrimSuffix(s.URL(), "/v1")}
		},
		history: openAIHistory,
	},
	{
		name:      "anthropic",
		newServer: llmtest.NewAnthropic,
		config: func(s *llmtest.Server) ModelConfig {
			return ModelConfig{Provider: ProviderAnthropic, Model: "claude-test", BaseURL: s.URL(), APIKey: testKey}
		},
		history: func(c1, c2 string) []llmtest.Message {
			return []llmtest.Message{
				{Role: "user", Text: "deals and points?"},
				{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: c1, Name: "ask_shop", Arguments: `{"query":"shoes"}`}}},
				{Role: "user", ToolResults: []llmtest.ToolResult{{CallID: c1, Content: "2 offers"}}},
				{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: c2, Name: "ask_rewards", Arguments: `{}`}}},
				{Role: "user", ToolResults: []llmtest.ToolResult{{CallID: c2, Content: "120 points"}}},
			}
		},
	},
	{
		name:      "googleai",
		newServer: llmtest.NewGemini,
		config: func(s *llmtest.Server) ModelConfig {
			return ModelConfig{Provider: ProviderGoogleAI, Model: "gemini-test", BaseURL: s.URL(), APIKey: testKey}
		},
		byName: true,
		history: func(string, string) []llmtest.Message {
			return []llmtest.Message{
				{Role: "user", Text: "deals and points?"},
				{Role: "assistant", ToolCalls: []llmtest.ToolCall{{Name: "ask_shop", Arguments: `{"query":"shoes"}`}}},
				{Role: "tool", ToolResults: []llmtest.ToolResult{{Name: "ask_shop", Content: "2 offers"}}},
				{Role: "assistant", ToolCalls: []llmtest.ToolCall{{Name: "ask_rewards", Arguments: `{}`}}},
				{Role: "tool", ToolResults: []llmtest.ToolResult{{Name: "ask_rewards", Content: "120 points"}}},
			}
		},
	},
}

func openAIHistory(c1, c2 string) []llmtest.Message {
	return []llmtest.Message{
		{Role: "user", Text: "deals and points?"},
		{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: c1, Name: "ask_shop", Arguments: `{"query":"shoes"}`}}},
		{Role: "tool", ToolResults: []llmtest.ToolResult{{CallID: c1, Content: "2 offers"}}},
		{Role: "assistant", ToolCalls: []llmtest.ToolCall{{ID: c2, Name: "ask_rewards", Arguments: `{}`}}},
		{Role: "tool", ToolResults: []llmtest.ToolResult{{CallID: c2, Content: "120 points"}}},
	}
}

var testTools = []llms.Tool{
	{Type: "function", Function: &llms.FunctionDefinition{
		Name: "ask_shop", Description: "Finds offers and prices",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
	}},
	{Type: "function", Function: &llms.FunctionDefinition{
		Name: "ask_rewards", Description: "Loyalty points balance",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
	}},
}

var twoCalls = []llmtest.ToolCall{
	{ID: "c_shop", Name: "ask_shop", Arguments: `{"query":"shoes"}`},
	{ID: "c_rewards", Name: "ask_rewards", Arguments: `{}`},
}

// sleeps records the retry delays the wrapper asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) option() Option {
	return func(o *options) {
		o.sleep = func(ctx context.Context, d time.Duration) error {
			s.mu.Lock()
			s.d = append(s.d, d)
			s.mu.Unlock()
			return ctx.Err()
		}
	}
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newModel(t *testing.T, cfg ModelConfig, opts ...Option) llms.Model {
	t.Helper()
	m, err := New(t.Context(), "test", cfg, opts...)
	if err != nil {
		t.Fatalf("New(%v) error = %v", cfg, err)
	}
	return m
}

func human(text string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
}

// collector is a streaming callback that keeps every chunk it receives.
type collector struct {
	mu     sync.Mutex
	chunks []string
}

func (c *collector) fn(_ context.Context, chunk []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chunks = append(c.chunks, string(chunk))
	return nil
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.chunks...)
}

func wantCalls() []llms.ToolCall {
	return []llms.ToolCall{
		{ID: "c_shop", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_shop", Arguments: `{"query":"shoes"}`}},
		{ID: "c_rewards", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_rewards", Arguments: `{}`}},
	}
}

func TestProviderText(t *testing.T) {
	for _, w := range wires {
		for _, stream := range []bool{false, true} {
			t.Run(w.name+streamName(stream), func(t *testing.T) {
				srv := w.newServer(t, llmtest.Step{Match: llmtest.LastUserContains("hello"), Text: "Hi there, how can I help?"})
				cfg := w.config(srv)
				m := newModel(t, cfg)
				var col collector
				var opts []llms.CallOption
				if stream {
					opts = append(opts, llms.WithStreamingFunc(col.fn))
				}
				resp, err := m.GenerateContent(t.Context(), human("hello"), opts...)
				if err != nil {
					t.Fatalf("GenerateContent() error = %v", err)
				}
				if len(resp.Choices) != 1 || resp.Choices[0].Content != "Hi there, how can I help?" {
					t.Fatalf("GenerateContent() choices = %+v, want one with the reply", resp.Choices)
				}
				if stream {
					chunks := col.got()
					if len(chunks) < 2 {
						t.Errorf("streamed %d chunks, want one per word", len(chunks))
					}
					if got := strings.Join(chunks, ""); got != "Hi there, how can I help?" {
						t.Errorf("streamed text = %q, want the reply", got)
					}
				}
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("server got %d requests, want 1", len(reqs))
				}
				wantKey := cfg.APIKey
				if wantKey == "" {
					wantKey = noKey
				}
				if reqs[0].Model != cfg.Model || reqs[0].Stream != stream || reqs[0].APIKey != wantKey {
					t.Errorf("request model/stream/key = %q/%v/%q, want %q/%v/%q",
						reqs[0].Model, reqs[0].Stream, reqs[0].APIKey, cfg.Model, stream, wantKey)
				}
			})
		}
	}
}

// checkCalls compares got with [wantCalls]. For a protocol without call ids the IDs are
// the wrapper's own: only their shape and uniqueness are checked.
func checkCalls(t *testing.T, w wire, got []llms.ToolCall) {
	t.Helper()
	var opts []cmp.Option
	if w.byName {
		opts = append(opts, cmpopts.IgnoreFields(llms.ToolCall{}, "ID"))
		seen := map[string]bool{}
		for _, c := range got {
			if !strings.HasPrefix(c.ID, "call_") || len(c.ID) <= len("call_") || seen[c.ID] {
				t.Errorf("synthesised call ids = %q, want distinct call_<hex> ids", callIDs(got))
				break
			}
			seen[c.ID] = true
		}
	}
	if diff := cmp.Diff(wantCalls(), got, opts...); diff != "" {
		t.Errorf("Choices[0].ToolCalls mismatch (-want +got):\n%s", diff)
	}
}

func callIDs(calls []llms.ToolCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.ID
	}
	return out
}

func streamName(stream bool) string {
	if stream {
		return "/stream"
	}
	return "/plain"
}

// TestProviderParallelToolCalls checks that two tool calls in one response come back
// in Choices[0].ToolCalls, and that only text reaches the streaming callback.
func TestProviderParallelToolCalls(t *testing.T) {
	for _, w := range wires {
		for _, stream := range []bool{false, true} {
			t.Run(w.name+streamName(stream), func(t *testing.T) {
				srv := w.newServer(t, llmtest.Step{
					Match: llmtest.And(llmtest.HasTool("ask_shop"), llmtest.HasTool("ask_rewards")),
					Text:  "Let me check both.", ToolCalls: twoCalls,
				})
				m := newModel(t, w.config(srv))
				var col collector
				opts := []llms.CallOption{llms.WithTools(testTools)}
				if stream {
					opts = append(opts, llms.WithStreamingFunc(col.fn))
				}
				resp, err := m.GenerateContent(t.Context(), human("any deals on shoes, and my points?"), opts...)
				if err != nil {
					t.Fatalf("GenerateContent() error = %v", err)
				}
				if len(resp.Choices) != 1 {
					t.Fatalf("GenerateContent() returned %d choices, want 1", len(resp.Choices))
				}
				checkCalls(t, w, resp.Choices[0].ToolCalls)
				if got := resp.Choices[0].Content; got != "Let me check both." {
					t.Errorf("Choices[0].Content = %q, want %q", got, "Let me check both.")
				}
				if stream {
					if diff := cmp.Diff([]string{"Let ", "me ", "check ", "both."}, col.got()); diff != "" {
						t.Errorf("streamed chunks mismatch (-want +got):\n%s", diff)
					}
				}
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("server got %d requests, want 1", len(reqs))
				}
				rewardsParams := testTools[1].Function.Parameters.(map[string]any)
				wantTools := []llmtest.Tool{
					{Name: "ask_shop", Description: "Finds offers and prices", Parameters: testTools[0].Function.Parameters.(map[string]any)},
					{Name: "ask_rewards", Description: "Loyalty points balance", Parameters: rewardsParams},
				}
				if strings.Contains(string(reqs[0].Body), "parallel_tool_calls") {
					t.Errorf("request body sets parallel_tool_calls, want the provider default (parallel allowed)")
				}
				if diff := cmp.Diff(wantTools, reqs[0].Tools); diff != "" {
					t.Errorf("tools on the wire mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestProviderToolResultsPortableShape sends results for two parallel calls in the
// portable shape (one AI message per call, each followed by its result) and checks
// that every call and result reaches the wire.
func TestProviderToolResultsPortableShape(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{
				Match: llmtest.And(w.resultFor("c_shop", "ask_shop"), w.resultFor("c_rewards", "ask_rewards")),
				Text:  "Two offers, and you have 120 points.",
			})
			m := newModel(t, w.config(srv))
			history := human("deals and points?")
			results := map[string]string{"c_shop": "2 offers", "c_rewards": "120 points"}
			for _, tc := range wantCalls() {
				history = append(history,
					llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{tc}},
					llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
						ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: results[tc.ID],
					}}},
				)
			}
			resp, err := m.GenerateContent(t.Context(), history, llms.WithTools(testTools))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			if got := resp.Choices[0].Content; got != "Two offers, and you have 120 points." {
				t.Errorf("Choices[0].Content = %q, want the composed reply", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(w.history("c_shop", "c_rewards"), reqs[0].Messages); diff != "" {
				t.Errorf("messages on the wire mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProviderRetries(t *testing.T) {
	tests := []struct {
		name         string
		script       []llmtest.Step
		retries      int
		wantErr      error
		wantRequests int
		wantSleeps   []time.Duration // nil: do not compare exact values
		wantNSleeps  int
	}{
		{
			name: "429 with Retry-After then success",
			script: []llmtest.Step{
				{Status: 429, RetryAfter: "2", Times: 1},
				{Text: "ok"},
			},
			wantRequests: 2,
			wantSleeps:   []time.Duration{2 * time.Second},
			wantNSleeps:  1,
		},
		{
			name:         "500 three times then give up",
			script:       []llmtest.Step{{Status: 500}},
			wantErr:      ErrUnavailable,
			wantRequests: 3,
			wantNSleeps:  2,
		},
		{
			name: "503 with Retry-After then success",
			script: []llmtest.Step{
				{Status: 503, RetryAfter: "1", Times: 1},
				{Text: "ok"},
			},
			wantRequests: 2,
			wantSleeps:   []time.Duration{time.Second},
			wantNSleeps:  1,
		},
		{
			name:         "503 with no retries configured",
			script:       []llmtest.Step{{Status: 503}},
			retries:      -1,
			wantErr:      ErrUnavailable,
			wantRequests: 1,
		},
		{
			name:         "400 is not retried",
			script:       []llmtest.Step{{Status: 400}},
			wantErr:      ErrRejected,
			wantRequests: 1,
		},
		{
			name:         "401 is not retried",
			script:       []llmtest.Step{{Status: 401}},
			wantErr:      ErrRejected,
			wantRequests: 1,
		},
	}
	for _, w := range wires {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv := w.newServer(t, tt.script...)
				cfg := w.config(srv)
				cfg.Retries = tt.retries
				var sl sleeps
				m := newModel(t, cfg, sl.option())
				_, err := m.GenerateContent(t.Context(), human("hi"))
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("GenerateContent() error = %v, want %v", err, tt.wantErr)
				}
				if err != nil && strings.Contains(err.Error(), testKey) {
					t.Errorf("error %q contains the API key", err)
				}
				if got := len(srv.Requests()); got != tt.wantRequests {
					t.Errorf("server got %d requests, want %d", got, tt.wantRequests)
				}
				got := sl.got()
				if len(got) != tt.wantNSleeps {
					t.Errorf("retry delays = %v, want %d of them", got, tt.wantNSleeps)
				}
				if tt.wantSleeps != nil {
					if diff := cmp.Diff(tt.wantSleeps, got); diff != "" {
						t.Errorf("retry delays mismatch (-want +got):\n%s", diff)
					}
				}
				for _, d := range got {
					if d <= 0 || d > backoffMax {
						t.Errorf("retry delay %v outside (0, %v]", d, backoffMax)
					}
				}
			})
		}
	}
}

// TestProviderGivesUpWithinDeadline uses real sleeps: a Retry-After longer than what is
// left of the timeout must end the call at once instead of waiting.
func TestProviderGivesUpWithinDeadline(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{Status: 500, RetryAfter: "5"})
			cfg := w.config(srv)
			cfg.Timeout = 2 * time.Second
			m := newModel(t, cfg)
			start := time.Now()
			_, err := m.GenerateContent(t.Context(), human("hi"))
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("GenerateContent() error = %v, want ErrUnavailable", err)
			}
			if elapsed := time.Since(start); elapsed >= cfg.Timeout {
				t.Errorf("GenerateContent() took %v, want less than the %v timeout", elapsed, cfg.Timeout)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server got %d requests, want 1", got)
			}
		})
	}
}

func TestProviderCancelMidStream(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{Text: "this reply never ends", Stall: true})
			m := newModel(t, w.config(srv))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var chunks []string
			stream := llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
				chunks = append(chunks, string(chunk))
				cancel() // the client goes away after the first delta
				return nil
			})
			resp, err := m.GenerateContent(ctx, human("hi"), stream)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("GenerateContent() = %v, %v; want context.Canceled", resp, err)
			}
			if diff := cmp.Diff([]string{"this "}, chunks); diff != "" {
				t.Errorf("streamed chunks mismatch (-want +got):\n%s", diff)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server got %d requests, want 1 (no retry after cancel)", got)
			}
		})
	}
}

func TestProviderUsage(t *testing.T) {
	for _, w := range wires {
		for _, stream := range []bool{false, true} {
			t.Run(w.name+streamName(stream), func(t *testing.T) {
				srv := w.newServer(t,
					llmtest.Step{Status: 429, Times: 1, RetryAfter: "0"},
					llmtest.Step{Text: "counted", Usage: llmtest.Usage{InputTokens: 12, OutputTokens: 5}},
				)
				var (
					mu      sync.Mutex
					got     []Usage
					aliases []string
				)
				hook := WithUsageHook(func(_ context.Context, alias string, u Usage) {
					mu.Lock()
					defer mu.Unlock()
					u.Duration = 0 // wall time varies
					got = append(got, u)
					aliases = append(aliases, alias)
				})
				var sl sleeps
				m := newModel(t, w.config(srv), hook, sl.option())
				var opts []llms.CallOption
				if stream {
					opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
				}
				if _, err := m.GenerateContent(t.Context(), human("hi"), opts...); err != nil {
					t.Fatalf("GenerateContent() error = %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				want := []Usage{{InputTokens: 12, OutputTokens: 5, TotalTokens: 17, Attempts: 2}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("usage hook calls mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"test"}, aliases); diff != "" {
					t.Errorf("usage hook aliases mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestProviderConcurrentCallers runs parallel callers against one server, as parallel
// sub-agents do, each matched to its own step by predicate.
func TestProviderConcurrentCallers(t *testing.T) {
	topics := []string{"shoes", "points", "refund", "hotel", "coupon", "flight"}
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			var script []llmtest.Step
			for _, topic := range topics {
				script = append(script, llmtest.Step{Match: llmtest.LastUserContains(topic), Text: "about " + topic})
			}
			srv := w.newServer(t, script...)
			m := newModel(t, w.config(srv))
			got := make([]string, len(topics))
			errs := make([]error, len(topics))
			var wg sync.WaitGroup
			for i, topic := range topics {
				wg.Go(func() {
					var col collector
					resp, err := m.GenerateContent(t.Context(), human("tell me about "+topic), llms.WithStreamingFunc(col.fn))
					if err != nil {
						errs[i] = err
						return
					}
					got[i] = resp.Choices[0].Content + "|" + strings.Join(col.got(), "")
				})
			}
			wg.Wait()
			for i, topic := range topics {
				if errs[i] != nil {
					t.Errorf("call %q: error = %v", topic, errs[i])
					continue
				}
				if want := "about " + topic + "|about " + topic; got[i] != want {
					t.Errorf("call %q = %q, want %q", topic, got[i], want)
				}
			}
		})
	}
}
