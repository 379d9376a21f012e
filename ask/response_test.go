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
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Hello, ", ToolCalls: []llms.ToolCall{{ID: "1", FunctionCall: &llms.FunctionCall{Name: "ask_shop"}}, {ID: "bare"}}},
		{Content: "world", ToolCalls: []llms.ToolCall{{ID: "2", FunctionCall: &llms.FunctionCall{Name: "ask_rewards"}}}},
	}}
	var ids []string
	for _, c := range ToolCalls(resp) {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"1", "2"}, ids); diff != "" {
		t.Errorf("ToolCalls() ids mismatch (-want +got):\n%s (a call without a function is not a call)", diff)
	}
	if got := Text(resp); got != "Hello, world" {
		t.Errorf("Text() = %q", got)
	}
}
