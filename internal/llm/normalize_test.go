package llm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
)

func TestNormalize(t *testing.T) {
	info := map[string]any{"InputTokens": 3, "OutputTokens": 4}
	shop := &llms.FunctionCall{Name: "ask_shop", Arguments: `{"query":"shoes"}`}
	rewards := &llms.FunctionCall{Name: "ask_rewards", Arguments: `{}`}
	tests := []struct {
		name string
		in   *llms.ContentResponse
		want *llms.ContentResponse
	}{
		{
			name: "nil stays nil",
		},
		{
			name: "anthropic: one choice per content block",
			in: &llms.ContentResponse{Choices: []*llms.ContentChoice{
				{Content: "Checking.", StopReason: "tool_use", GenerationInfo: info},
				{ToolCalls: []llms.ToolCall{{ID: "toolu_1", FunctionCall: shop}}, StopReason: "tool_use", GenerationInfo: info},
				{ToolCalls: []llms.ToolCall{{ID: "toolu_2", FunctionCall: rewards}}, StopReason: "tool_use", GenerationInfo: info},
			}},
			want: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
				Content: "Checking.", StopReason: "tool_use", GenerationInfo: info, FuncCall: shop,
				ToolCalls: []llms.ToolCall{
					{ID: "toolu_1", Type: "function", FunctionCall: shop},
					{ID: "toolu_2", Type: "function", FunctionCall: rewards},
				},
			}}},
		},
		{
			name: "openai: already one choice",
			in: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
				StopReason: "tool_calls", FuncCall: shop,
				ToolCalls: []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: shop}},
			}}},
			want: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
				StopReason: "tool_calls", FuncCall: shop,
				ToolCalls: []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: shop}},
			}}},
		},
		{
			name: "text blocks around a tool call keep their order",
			in: &llms.ContentResponse{Choices: []*llms.ContentChoice{
				{Content: "a"}, {ToolCalls: []llms.ToolCall{{ID: "t", FunctionCall: shop}}}, {Content: "b"},
			}},
			want: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
				Content: "ab", FuncCall: shop,
				ToolCalls: []llms.ToolCall{{ID: "t", Type: "function", FunctionCall: shop}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalize(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalize() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormalizeSynthesisesIDs covers calls without ID or Type, as Gemini sends them.
func TestNormalizeSynthesisesIDs(t *testing.T) {
	in := &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
		{FunctionCall: &llms.FunctionCall{Name: "ask_shop", Arguments: "{}"}},
		{FunctionCall: &llms.FunctionCall{Name: "ask_rewards", Arguments: "{}"}},
	}}}}
	got := normalize(in).Choices[0].ToolCalls
	want := []llms.ToolCall{
		{Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_shop", Arguments: "{}"}},
		{Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_rewards", Arguments: "{}"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(llms.ToolCall{}, "ID")); diff != "" {
		t.Errorf("normalize() tool calls mismatch (-want +got):\n%s", diff)
	}
	if got[0].ID == got[1].ID || !strings.HasPrefix(got[0].ID, "call_") || !strings.HasPrefix(got[1].ID, "call_") {
		t.Errorf("normalize() ids = %q, %q; want two distinct call_ ids", got[0].ID, got[1].ID)
	}
	if in.Choices[0].ToolCalls[0].ID != "" {
		t.Errorf("normalize() modified its input")
	}
}

func TestMapParameters(t *testing.T) {
	raw := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
		Name: "ask_shop", Parameters: []byte(`{"type":"object"}`), // []byte marshals as base64: not an object
	}}}
	if _, _, err := mapParameters(raw); err == nil {
		t.Errorf("mapParameters([]byte) error = nil, want an error naming the tool")
	}
	type schema struct {
		Type string `json:"type"`
	}
	in := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "ask_shop", Parameters: schema{Type: "object"}}}}
	got, changed, err := mapParameters(in)
	if err != nil || !changed {
		t.Fatalf("mapParameters(struct) = _, %v, %v; want changed, nil", changed, err)
	}
	if diff := cmp.Diff(map[string]any{"type": "object"}, got[0].Function.Parameters); diff != "" {
		t.Errorf("mapParameters() parameters mismatch (-want +got):\n%s", diff)
	}
	if _, ok := in[0].Function.Parameters.(schema); !ok {
		t.Errorf("mapParameters() modified the caller's tool definition")
	}
}
