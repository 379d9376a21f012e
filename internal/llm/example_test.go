package llm_test

import (
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// Example_portableHistory shows how a caller appends the results of parallel tool
// calls: one AI message per call, each followed by its result.
func Example_portableHistory() {
	history := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "deals on shoes, and my points?")}
	calls := []llms.ToolCall{ // as returned in Choices[0].ToolCalls
		{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_shop", Arguments: `{"query":"shoes"}`}},
		{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ask_rewards", Arguments: `{}`}},
	}
	results := []string{"2 offers", "120 points"}
	for i, call := range calls {
		history = append(history,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
				ToolCallID: call.ID, Name: call.FunctionCall.Name, Content: results[i],
			}}},
		)
	}
	for _, m := range history {
		fmt.Println(m.Role, len(m.Parts))
	}
	// Output:
	// human 1
	// ai 1
	// tool 1
	// ai 1
	// tool 1
}
