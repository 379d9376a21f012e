package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const geminiBody = `{"model":"models/g","systemInstruction":{"role":"system","parts":[{"text":"be "},{"text":"brief"}]},
	"contents":[
		{"role":"user","parts":[{"text":"deals?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"ask_shop","args":{"query":"x"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"ask_shop","response":{"response":"2 offers"}}}]},
		{"role":"model","parts":[{"functionCall":{"name":"ask_rewards","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"ask_rewards","response":{"points":120}}}]}],
	"tools":[{"functionDeclarations":[
		{"name":"ask_shop","description":"offers","parameters":{"type":6,"properties":{"query":{"type":1},"tags":{"type":"ARRAY","items":{"type":1}}},"required":["query"]}},
		{"name":"ask_rewards","description":"points","parameters":{"type":"OBJECT"}}]}]}`

func TestGeminiDecode(t *testing.T) {
	s := NewGemini(t, Step{Match: HasToolResultNamed("ask_rewards"), Text: "done"})
	resp, _ := post(t, s.URL()+"/v1beta/models/g:generateContent?key=k-query", geminiBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1beta/models/g:streamGenerateContent", strings.NewReader(geminiBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Goog-Api-Key", "k-header")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	msgs := []Message{
		{Role: "user", Text: "deals?"},
		{Role: "model", ToolCalls: []ToolCall{{Name: "ask_shop", Arguments: `{"query":"x"}`}}},
		{Role: "user", ToolResults: []ToolResult{{Name: "ask_shop", Content: "2 offers"}}},
		{Role: "model", ToolCalls: []ToolCall{{Name: "ask_rewards", Arguments: `{}`}}},
		{Role: "user", ToolResults: []ToolResult{{Name: "ask_rewards", Content: `{"points":120}`}}},
	}
	tools := []Tool{
		{Name: "ask_shop", Description: "offers", Parameters: map[string]any{
			"type": "object", "required": []any{"query"}, "properties": map[string]any{
				"query": map[string]any{"type": "string"},
				"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			}}},
		{Name: "ask_rewards", Description: "points", Parameters: map[string]any{"type": "object"}},
	}
	want := []Request{
		{Path: "/v1beta/models/g:generateContent", Model: "g", System: "be brief", Messages: msgs, Tools: tools, APIKey: "k-query"},
		{Path: "/v1beta/models/g:streamGenerateContent", Model: "g", Stream: true, System: "be brief", Messages: msgs, Tools: tools, APIKey: "k-header"},
	}
	if diff := cmp.Diff(want, s.Requests(), cmpopts.IgnoreFields(Request{}, "Body")); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
	if got := s.Requests()[0].LastUserText(); got != "deals?" {
		t.Errorf("LastUserText() = %q, want the user text, not a function response", got)
	}
}

// gmChunk is the part of a response object the reply tests read.
type gmChunk struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason any `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata map[string]int `json:"usageMetadata"`
}

// flatten renders chunks as "text|call(args)|...;finish" per chunk, for comparison.
func flatten(t *testing.T, chunks []gmChunk) []string {
	t.Helper()
	var out []string
	for _, c := range chunks {
		if len(c.Candidates) != 1 || c.Candidates[0].Content.Role != "model" {
			t.Fatalf("chunk %+v: want one candidate with role model", c)
		}
		var b strings.Builder
		for _, p := range c.Candidates[0].Content.Parts {
			if p.FunctionCall != nil {
				args, _ := json.Marshal(p.FunctionCall.Args)
				b.WriteString(p.FunctionCall.Name + string(args) + "|")
				continue
			}
			b.WriteString(p.Text + "|")
		}
		if f := c.Candidates[0].FinishReason; f != nil {
			b.WriteString(";" + strings.Trim(mustJSON(f), `"`))
		}
		out = append(out, b.String())
	}
	return out
}

func TestGeminiReplies(t *testing.T) {
	step := Step{Text: "one two", ToolCalls: []ToolCall{{ID: "ignored", Name: "ask_shop", Arguments: `{"q":"x"}`}, {Name: "ask_rewards"}},
		Usage: Usage{InputTokens: 3, OutputTokens: 4}}
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	lastUsage := map[string]int{"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}
	tests := []struct {
		name   string
		path   string
		want   []string
		decode func(t *testing.T, body string) []gmChunk
	}{
		{
			name: "generateContent answers one object",
			path: "/v1beta/models/g:generateContent",
			want: []string{`one two|ask_shop{"q":"x"}|ask_rewards{}|;STOP`},
			decode: func(t *testing.T, body string) []gmChunk {
				var c gmChunk
				if err := json.Unmarshal([]byte(body), &c); err != nil {
					t.Fatalf("reply %q: %v", body, err)
				}
				return []gmChunk{c}
			},
		},
		{
			name: "streamGenerateContent answers a JSON array with numeric enums when asked",
			path: "/v1beta/models/g:streamGenerateContent?%24alt=json%3Benum-encoding%3Dint",
			want: []string{"one |", "two|", `ask_shop{"q":"x"}|ask_rewards{}|;1`},
			decode: func(t *testing.T, body string) []gmChunk {
				var cs []gmChunk
				if err := json.Unmarshal([]byte(body), &cs); err != nil {
					t.Fatalf("reply %q: %v", body, err)
				}
				return cs
			},
		},
		{
			name: "streamGenerateContent with alt=sse answers events",
			path: "/v1beta/models/g:streamGenerateContent?alt=sse",
			want: []string{"one |", "two|", `ask_shop{"q":"x"}|ask_rewards{}|;STOP`},
			decode: func(t *testing.T, body string) []gmChunk {
				var cs []gmChunk
				for _, ev := range strings.Split(strings.TrimSpace(body), "\r\n\r\n") {
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
			resp, got := post(t, s.URL()+tt.path, body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			chunks := tt.decode(t, got)
			if diff := cmp.Diff(tt.want, flatten(t, chunks)); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(lastUsage, chunks[len(chunks)-1].UsageMetadata); diff != "" {
				t.Errorf("last usageMetadata mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGeminiErrorsAndBadPaths(t *testing.T) {
	tb := &errorsTB{TB: t}
	s := NewGemini(tb, Step{Status: http.StatusServiceUnavailable, RetryAfter: "2"})
	resp, got := post(t, s.URL()+"/v1beta/models/g:generateContent", `{"contents":[]}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("reply = %d Retry-After %q, want 503 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var e struct {
		Error struct {
			Code   int    `json:"code"`
			Status string `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(got), &e); err != nil || e.Error.Code != 503 || e.Error.Status != "UNAVAILABLE" {
		t.Errorf("error body = %q, want Google's error shape with code 503 and UNAVAILABLE", got)
	}
	resp, _ = post(t, s.URL()+"/v1beta/models/g:countTokens", `{}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unsupported method got %d, want 400", resp.StatusCode)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], `unsupported method "countTokens"`) {
		t.Errorf("Errorf calls = %q, want one naming the unsupported method", tb.errs)
	}
}
