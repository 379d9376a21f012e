package ask

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func TestTokensOf(t *testing.T) {
	tests := []struct {
		name string
		info []map[string]any
		want Tokens
	}{
		{"openai", []map[string]any{{"PromptTokens": 10, "CompletionTokens": 5, "TotalTokens": 15}}, Tokens{10, 5, 15}},
		{"anthropic", []map[string]any{{"InputTokens": 7, "OutputTokens": 2}}, Tokens{7, 2, 9}},
		{"googleai", []map[string]any{{"input_tokens": int32(4), "output_tokens": int32(6), "total_tokens": int32(10)}}, Tokens{4, 6, 10}},
		{"two choices", []map[string]any{{"InputTokens": 7, "OutputTokens": 2}, {"InputTokens": 1, "OutputTokens": 1}}, Tokens{8, 3, 11}},
		{"none", []map[string]any{nil}, Tokens{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &llms.ContentResponse{}
			for _, info := range tt.info {
				resp.Choices = append(resp.Choices, &llms.ContentChoice{GenerationInfo: info})
			}
			if diff := cmp.Diff(tt.want, TokensOf(resp)); diff != "" {
				t.Errorf("TokensOf() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallsAndText(t *testing.T) {
	call := func(id, name string) llms.ToolCall {
		tc := llms.ToolCall{ID: id}
		if name != "" {
			tc.FunctionCall = &llms.FunctionCall{Name: name}
		}
		return tc
	}
	for _, tc := range []struct {
		name     string
		choices  []*llms.ContentChoice
		wantIDs  []string
		wantText string
	}{
		{"two choices", []*llms.ContentChoice{
			{Content: "Hello, ", ToolCalls: []llms.ToolCall{call("1", "ask_shop"), call("bare", "")}},
			{Content: "world", ToolCalls: []llms.ToolCall{call("2", "ask_rewards")}},
		}, []string{"1", "2"}, "Hello, world"},
		{"one choice, every call a function", []*llms.ContentChoice{
			{Content: "Hi", ToolCalls: []llms.ToolCall{call("1", "ask_shop"), call("2", "ask_rewards")}},
		}, []string{"1", "2"}, "Hi"},
		{"one choice, a call without a function", []*llms.ContentChoice{
			{ToolCalls: []llms.ToolCall{call("bare", ""), call("2", "ask_rewards")}},
		}, []string{"2"}, ""},
		{"no calls", []*llms.ContentChoice{{Content: "text only"}}, nil, "text only"},
		{"no choices", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &llms.ContentResponse{Choices: tc.choices}
			var ids []string
			for _, c := range ToolCalls(resp) {
				ids = append(ids, c.ID)
			}
			if diff := cmp.Diff(tc.wantIDs, ids); diff != "" {
				t.Errorf("ToolCalls() ids mismatch (-want +got):\n%s (a call without a function is not a call)", diff)
			}
			if got := Text(resp); got != tc.wantText {
				t.Errorf("Text() = %q, want %q", got, tc.wantText)
			}
		})
	}
	// The calls of a single choice are returned capped: appending to them must not write
	// into the response.
	one := []llms.ToolCall{call("1", "ask_shop"), call("2", "ask_rewards"), {}}
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: one[:2]}}}
	_ = append(ToolCalls(resp), call("3", "ask_support"))
	if one[2].ID != "" {
		t.Errorf("append to ToolCalls() wrote into the response's array: %v", one[2])
	}
}
