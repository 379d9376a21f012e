package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// geminiBody is a routing follow-up as the openai client sends it: calls with the ids the
// caller gave them (Gemini sent none), results pointing at those ids.
const geminiBody = `{"model":"gemini-x","stream":true,"messages":[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"deals?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ask_shop","arguments":"{\"query\":\"x\"}"}}]},
		{"role":"tool","content":"2 offers","tool_call_id":"c1"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"ask_rewards","arguments":"{}"}}]},
		{"role":"tool","content":"120 points","tool_call_id":"c2"}],
	"tools":[{"type":"function","function":{"name":"ask_shop","description":"offers","parameters":{"type":"object"}}}]}`

func postGemini(t *testing.T, s *Server, key, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+geminiPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, string(b)
}

func TestGeminiDecode(t *testing.T) {
	s := NewGemini(t, Step{Match: HasToolResultNamed("ask_rewards"), Text: "done"})
	if resp, got := postGemini(t, s, "k-1", geminiBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", resp.StatusCode, got)
	}
	want := []Request{{
		Path: geminiPath, Model: "gemini-x", Stream: true, APIKey: "k-1",
		Messages: []Message{
			{Role: "system", Text: "be brief"},
			{Role: "user", Text: "deals?"},
			{Role: "assistant", ToolCalls: []ToolCall{{Name: "ask_shop", Arguments: `{"query":"x"}`}}},
			{Role: "tool", ToolResults: []ToolResult{{Name: "ask_shop", Content: "2 offers"}}},
			{Role: "assistant", ToolCalls: []ToolCall{{Name: "ask_rewards", Arguments: `{}`}}},
			{Role: "tool", ToolResults: []ToolResult{{Name: "ask_rewards", Content: "120 points"}}},
		},
		Tools: []Tool{{Name: "ask_shop", Description: "offers", Parameters: map[string]any{"type": "object"}}},
	}}
	if diff := cmp.Diff(want, s.Requests(), cmpopts.IgnoreFields(Request{}, "Body")); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
	if got := s.Requests()[0].LastUserText(); got != "deals?" {
		t.Errorf("LastUserText() = %q, want the user text, not a tool result", got)
	}
}

// TestGeminiRejectsUnknownCallID: a result whose tool_call_id names no call of the request
// leaves Gemini without a function name, and it answers 400.
func TestGeminiRejectsUnknownCallID(t *testing.T) {
	tb := &errorsTB{TB: t}
	s := NewGemini(tb, Step{Text: "never"})
	body := strings.Replace(geminiBody, `"tool_call_id":"c2"`, `"tool_call_id":"call_other"`, 1)
	resp, got := postGemini(t, s, "k", body)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status = %d (%s), want 400", resp.StatusCode, got)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], `tool_call_id "call_other" names no earlier tool call`) {
		t.Errorf("Errorf calls = %q, want one naming the unknown id", tb.errs)
	}
}

// gmChunk is the part of a reply or stream chunk the reply tests read.
type gmChunk struct {
	Choices []struct {
		Message *gmDelta `json:"message"`
		Delta   *gmDelta `json:"delta"`
		Finish  *string  `json:"finish_reason"`
	} `json:"choices"`
	Usage map[string]int `json:"usage"`
}

type gmDelta struct {
	Content   *string          `json:"content"`
	ToolCalls []map[string]any `json:"tool_calls"`
}

// flatten renders each chunk as "text|call{...}|...;finish", with a call's keys other than
// type and function listed in brackets (an id or an index would show up there).
func flatten(t *testing.T, chunks []gmChunk) []string {
	t.Helper()
	var out []string
	for _, c := range chunks {
		if len(c.Choices) != 1 {
			t.Fatalf("chunk %+v: want one choice", c)
		}
		ch := c.Choices[0]
		d := ch.Delta
		if d == nil {
			d = ch.Message
		}
		var b strings.Builder
		if d.Content != nil {
			b.WriteString(*d.Content + "|")
		}
		for _, tc := range d.ToolCalls {
			fn, _ := tc["function"].(map[string]any)
			b.WriteString(fn["name"].(string) + fn["arguments"].(string))
			for k := range tc {
				if k != "type" && k != "function" {
					b.WriteString("[" + k + "]")
				}
			}
			b.WriteString("|")
		}
		if ch.Finish != nil {
			b.WriteString(";" + *ch.Finish)
		}
		out = append(out, b.String())
	}
	return out
}

func TestGeminiReplies(t *testing.T) {
	step := Step{Text: "one two", ToolCalls: []ToolCall{{ID: "ignored", Name: "ask_shop", Arguments: `{"q":"x"}`}, {Name: "ask_rewards"}},
		Usage: Usage{InputTokens: 3, OutputTokens: 4}}
	usage := map[string]int{"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
	tests := []struct {
		name   string
		body   string
		want   []string
		decode func(t *testing.T, body string) []gmChunk
	}{
		{
			name: "plain reply: calls without ids, finish reason stop",
			body: `{"model":"g","messages":[{"role":"user","content":"hi"}]}`,
			want: []string{`one two|ask_shop{"q":"x"}|ask_rewards{}|;stop`},
			decode: func(t *testing.T, body string) []gmChunk {
				var c gmChunk
				if err := json.Unmarshal([]byte(body), &c); err != nil {
					t.Fatalf("reply %q: %v", body, err)
				}
				return []gmChunk{c}
			},
		},
		{
			name: "stream: a chunk per word, then every call whole in one chunk, no index",
			body: `{"model":"g","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			want: []string{"one |", "two|", `ask_shop{"q":"x"}|ask_rewards{}|;stop`},
			decode: func(t *testing.T, body string) []gmChunk {
				events := strings.Split(strings.TrimSpace(body), "\n\n")
				if events[len(events)-1] != "data: [DONE]" {
					t.Fatalf("stream %q does not end with [DONE]", body)
				}
				var cs []gmChunk
				for _, ev := range events[:len(events)-1] {
					var c gmChunk
					if err := json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &c); err != nil {
						t.Fatalf("event %q: %v", ev, err)
					}
					cs = append(cs, c)
				}
				return cs
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewGemini(t, step)
			resp, got := postGemini(t, s, "k", tt.body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			chunks := tt.decode(t, got)
			if diff := cmp.Diff(tt.want, flatten(t, chunks)); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
			for i, c := range chunks {
				want := map[string]int(nil)
				if i == len(chunks)-1 {
					want = usage
				}
				if diff := cmp.Diff(want, c.Usage); diff != "" {
					t.Errorf("chunk %d usage mismatch (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestGeminiErrorsAndBadPaths(t *testing.T) {
	s := NewGemini(t, Step{Status: http.StatusServiceUnavailable, RetryAfter: "2"})
	resp, got := postGemini(t, s, "k", `{"model":"g","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("reply = %d Retry-After %q, want 503 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var e []struct {
		Error struct {
			Code   int    `json:"code"`
			Status string `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(got), &e); err != nil || len(e) != 1 || e[0].Error.Code != 503 || e[0].Error.Status != "UNAVAILABLE" {
		t.Errorf("error body = %q, want an array of one Google error with code 503 and UNAVAILABLE", got)
	}
	for _, path := range []string{"/v1/chat/completions", "/chat/completions", "/v1beta/models/g:generateContent"} {
		resp, _ := post(t, s.URL()+path, `{}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404: only the OpenAI-compatible path is served", path, resp.StatusCode)
		}
	}
}
