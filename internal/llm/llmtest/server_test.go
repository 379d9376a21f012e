package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, string(b)
}

func TestOpenAIDecodeAndSelect(t *testing.T) {
	s := NewOpenAI(t,
		Step{Match: LastUserContains("points"), Text: "120 points", Times: 1},
		Step{Match: HasToolResult("call_9"), Text: "after tool"},
		Step{Text: "fallback"},
	)
	body := `{"model":"m","messages":[
		{"role":"system","content":"be brief"},
		{"role":"user","content":[{"type":"text","text":"my "},{"type":"text","text":"POINTS?"}]}],
		"tools":[{"type":"function","function":{"name":"ask_rewards","description":"points","parameters":{"type":"object"}}}]}`
	replies := []string{}
	for range 2 {
		_, got := post(t, s.URL()+"/chat/completions", body)
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(got), &out); err != nil || len(out.Choices) != 1 {
			t.Fatalf("reply %q: %v", got, err)
		}
		replies = append(replies, out.Choices[0].Message.Content)
	}
	toolBody := `{"model":"m","messages":[{"role":"user","content":"hi"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"ask_rewards","arguments":"{}"}}]},
		{"role":"tool","content":"120","tool_call_id":"call_9"}]}`
	_, got := post(t, strings.TrimSuffix(s.URL(), "/v1")+"/chat/completions", toolBody)
	if !strings.Contains(got, "after tool") {
		t.Errorf("tool-result request got %q, want the HasToolResult step", got)
	}
	if diff := cmp.Diff([]string{"120 points", "fallback"}, replies); diff != "" {
		t.Errorf("replies mismatch (-want +got):\n%s", diff)
	}
	reqs := s.Requests()
	want := []Request{
		{Path: "/v1/chat/completions", Model: "m",
			Messages: []Message{{Role: "system", Text: "be brief"}, {Role: "user", Text: "my POINTS?"}},
			Tools:    []Tool{{Name: "ask_rewards", Description: "points", Parameters: map[string]any{"type": "object"}}}},
		{Path: "/v1/chat/completions", Model: "m",
			Messages: []Message{{Role: "system", Text: "be brief"}, {Role: "user", Text: "my POINTS?"}},
			Tools:    []Tool{{Name: "ask_rewards", Description: "points", Parameters: map[string]any{"type": "object"}}}},
		{Path: "/chat/completions", Model: "m", Messages: []Message{
			{Role: "user", Text: "hi"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_9", Name: "ask_rewards", Arguments: "{}"}}},
			{Role: "tool", ToolResults: []ToolResult{{CallID: "call_9", Content: "120"}}},
		}},
	}
	if diff := cmp.Diff(want, reqs, cmpopts.IgnoreFields(Request{}, "Body")); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
}

func TestAnthropicDecodeAndError(t *testing.T) {
	s := NewAnthropic(t,
		Step{Status: http.StatusTooManyRequests, RetryAfter: "3", Times: 1},
		Step{Text: "ok", ToolCalls: []ToolCall{{Name: "ask_shop"}}},
	)
	body := `{"model":"c","system":"sys","messages":[
		{"role":"user","content":"find shoes"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ask_shop","input":{"q":"x"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"2 offers"}]}]}]}`
	resp, got := post(t, s.URL()+"/messages", body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("first reply = %d Retry-After %q, want 429 and 3", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if !strings.Contains(got, `"type":"error"`) {
		t.Errorf("error body = %q, want Anthropic's error shape", got)
	}
	resp, got = post(t, s.URL()+"/messages", body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"id":"toolu_2_0"`) || !strings.Contains(got, `"input":{}`) {
		t.Errorf("second reply = %d %q, want a tool_use with a generated id and empty input", resp.StatusCode, got)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Requests() has %d entries, want 2", len(reqs))
	}
	want := Request{Path: "/v1/messages", Model: "c", System: "sys", Messages: []Message{
		{Role: "user", Text: "find shoes"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "t1", Name: "ask_shop", Arguments: `{"q":"x"}`}}},
		{Role: "user", ToolResults: []ToolResult{{CallID: "t1", Content: "2 offers"}}},
	}}
	if diff := cmp.Diff(want, reqs[1], cmpopts.IgnoreFields(Request{}, "Body")); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
	if got := reqs[1].LastUserText(); got != "find shoes" {
		t.Errorf("LastUserText() = %q, want the last user text, not the tool result", got)
	}
}

// errorsTB records Errorf calls instead of failing the test.
type errorsTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func TestUnmatchedRequestFailsTheTest(t *testing.T) {
	tb := &errorsTB{TB: t}
	s := NewOpenAI(tb, Step{Match: HasTool("ask_shop"), Text: "never"})
	resp, _ := post(t, s.URL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unmatched request got status %d, want 400 (not retryable)", resp.StatusCode)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "no step matches request 1") {
		t.Errorf("Errorf calls = %q, want one naming the unmatched request", tb.errs)
	}
}
