package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
)

// Tests of what only googleai does. The shared provider tests in providers_test.go run
// against the Gemini fake as well.

func geminiConfig(s *llmtest.Server) ModelConfig {
	return ModelConfig{Provider: ProviderGoogleAI, Model: "gemini-test", BaseURL: s.URL(), APIKey: testKey}
}

// TestGeminiToolRoundTrip runs a routing call and its follow-up the way the orchestrator
// does: a system prompt, two calls in one reply (their IDs synthesised by the wrapper, as
// Gemini sends none), then the results sent back in the portable shape with those IDs.
// Gemini finds the function each result answers through its tool_call_id, so the fake
// rejects the follow-up unless the IDs sent back are the ones the calls carry.
func TestGeminiToolRoundTrip(t *testing.T) {
	srv := llmtest.NewGemini(t,
		llmtest.Step{
			Match: llmtest.Not(llmtest.HasToolResultNamed("ask_shop")), Times: 1,
			ToolCalls: []llmtest.ToolCall{
				{Name: "ask_shop", Arguments: `{"query":"shoes"}`},
				{Name: "ask_rewards", Arguments: `{}`},
			},
		},
		llmtest.Step{
			Match: llmtest.And(llmtest.HasToolResultNamed("ask_shop"), llmtest.HasToolResultNamed("ask_rewards")), Times: 1,
			Text: "Two offers, and you have 120 points.",
		},
	)
	cfg := geminiConfig(srv)
	cfg.MaxTokens = 300
	m := newModel(t, cfg)
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Route every request."),
		llms.TextParts(llms.ChatMessageTypeHuman, "deals and points?"),
	}
	resp, err := m.GenerateContent(t.Context(), history, llms.WithTools(testTools))
	if err != nil {
		t.Fatalf("GenerateContent() routing error = %v", err)
	}
	calls := resp.Choices[0].ToolCalls
	checkCalls(t, wire{byName: true}, calls)
	if len(calls) != 2 {
		t.Fatalf("routing reply has %d calls, want 2", len(calls))
	}

	results := map[string]string{"ask_shop": "2 offers", "ask_rewards": "120 points"}
	for _, c := range calls {
		history = append(history,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{c}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
				ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: results[c.FunctionCall.Name],
			}}},
		)
	}
	var col collector
	resp, err = m.GenerateContent(t.Context(), history, llms.WithTools(testTools), llms.WithStreamingFunc(col.fn))
	if err != nil {
		t.Fatalf("GenerateContent() composition error = %v", err)
	}
	if got := resp.Choices[0].Content; got != "Two offers, and you have 120 points." {
		t.Errorf("composition Content = %q, want the scripted reply", got)
	}
	if got := strings.Join(col.got(), ""); got != "Two offers, and you have 120 points." {
		t.Errorf("streamed text = %q, want the scripted reply", got)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/v1beta/openai/chat/completions" || r.Stream != (i == 1) {
			t.Errorf("request %d path = %q (stream %v), want Gemini's OpenAI endpoint, streamed only for the composition", i, r.Path, r.Stream)
		}
		if r.APIKey != testKey {
			t.Errorf("request %d key = %q, want the configured key as the bearer token", i, r.APIKey)
		}
		if r.Model != "gemini-test" {
			t.Errorf("request %d model = %q, want the configured model", i, r.Model)
		}
		// Whether Gemini's OpenAI layer takes max_completion_tokens is not documented;
		// max_tokens is the field every OpenAI-compatible server reads.
		body := string(r.Body)
		if !strings.Contains(body, `"max_tokens":300`) || strings.Contains(body, "max_completion_tokens") {
			t.Errorf("request %d body %s: want the limit as max_tokens", i, body)
		}

	}
	want := []llmtest.Message{
		{Role: "system", Text: "Route every request."},
		{Role: "user", Text: "deals and points?"},
		{Role: "assistant", ToolCalls: []llmtest.ToolCall{{Name: "ask_shop", Arguments: `{"query":"shoes"}`}}},
		{Role: "tool", ToolResults: []llmtest.ToolResult{{Name: "ask_shop", Content: "2 offers"}}},
		{Role: "assistant", ToolCalls: []llmtest.ToolCall{{Name: "ask_rewards", Arguments: `{}`}}},
		{Role: "tool", ToolResults: []llmtest.ToolResult{{Name: "ask_rewards", Content: "120 points"}}},
	}
	if diff := cmp.Diff(want, reqs[1].Messages); diff != "" {
		t.Errorf("composition messages on the wire mismatch (-want +got):\n%s", diff)
	}
}

// TestGeminiUsage: the whole reply's token usage comes through, streamed or not (Gemini
// reports it in the last chunk of a stream).
func TestGeminiUsage(t *testing.T) {
	full := Usage{InputTokens: 12, OutputTokens: 5, TotalTokens: 17, Attempts: 1}
	tests := []struct {
		name     string
		messages []llms.MessageContent
		stream   bool
	}{
		{name: "one message, plain", messages: human("hi")},
		{name: "one message, streamed", messages: human("hi"), stream: true},
		{name: "system and user, plain", messages: []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, "be brief"), llms.TextParts(llms.ChatMessageTypeHuman, "hi"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewGemini(t, llmtest.Step{Text: "three word reply", Usage: llmtest.Usage{InputTokens: 12, OutputTokens: 5}})
			var (
				mu  sync.Mutex
				got []Usage
			)
			hook := WithUsageHook(func(_ context.Context, _ string, u Usage) {
				mu.Lock()
				defer mu.Unlock()
				u.Duration = 0
				got = append(got, u)
			})
			m := newModel(t, geminiConfig(srv), hook)
			var opts []llms.CallOption
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			}
			resp, err := m.GenerateContent(t.Context(), tt.messages, opts...)
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			if resp.Choices[0].Content != "three word reply" {
				t.Errorf("Content = %q, want the whole reply", resp.Choices[0].Content)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]Usage{full}, got); diff != "" {
				t.Errorf("usage hook calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGeminiTemperature: the openai client always sends a temperature (0 when unset), so a
// googleai model without one must still sample at Gemini's default; a configured value
// and a per-call option win as they do for every provider.
func TestGeminiTemperature(t *testing.T) {
	tests := []struct {
		name   string
		config *float64
		call   []llms.CallOption
		want   float64
	}{
		{name: "none configured", want: 1},
		{name: "configured", config: ptr(0.2), want: 0.2},
		{name: "configured zero", config: ptr(0.0), want: 0},
		{name: "per call", config: ptr(0.2), call: []llms.CallOption{llms.WithTemperature(0)}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewGemini(t, llmtest.Step{Text: "ok"})
			cfg := geminiConfig(srv)
			cfg.Temperature = tt.config
			if _, err := newModel(t, cfg).GenerateContent(t.Context(), human("hi"), tt.call...); err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			var body struct {
				Temperature *float64 `json:"temperature"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil || body.Temperature == nil {
				t.Fatalf("request body %s: no temperature (%v)", srv.Requests()[0].Body, err)
			}
			if *body.Temperature != tt.want {
				t.Errorf("temperature on the wire = %v, want %v", *body.Temperature, tt.want)
			}
		})
	}
}

// redirect is a transport that records the URL of every round trip and sends it to the
// fake server instead, so that the default endpoint can be checked without the network.
type redirect struct {
	to *url.URL

	mu   sync.Mutex
	urls []string
}

func (r *redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

// TestGeminiEndpoint: base_url names the root of the Gemini API or of a proxy, as it did
// when googleai spoke Gemini's own API, and "/v1beta/openai" is added; a URL that already
// names the OpenAI endpoint is used as is. Without base_url the calls go to Google.
func TestGeminiEndpoint(t *testing.T) {
	srv := llmtest.NewGemini(t, llmtest.Step{Text: "hello"})
	root, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		baseURL string
		want    string
	}{
		{"", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"},
		{srv.URL(), srv.URL() + "/v1beta/openai/chat/completions"},
		{srv.URL() + "/", srv.URL() + "/v1beta/openai/chat/completions"},
		{srv.URL() + "/v1beta/openai", srv.URL() + "/v1beta/openai/chat/completions"},
		{srv.URL() + "/v1beta/openai/", srv.URL() + "/v1beta/openai/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.baseURL, func(t *testing.T) {
			cfg := geminiConfig(srv)
			cfg.BaseURL = tt.baseURL
			rt := &redirect{to: root}
			resp, err := newModel(t, cfg, WithTransport(rt)).GenerateContent(t.Context(), human("hi"))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			if resp.Choices[0].Content != "hello" {
				t.Errorf("Content = %q, want %q", resp.Choices[0].Content, "hello")
			}
			rt.mu.Lock()
			defer rt.mu.Unlock()
			if diff := cmp.Diff([]string{tt.want}, rt.urls); diff != "" {
				t.Errorf("request URLs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
