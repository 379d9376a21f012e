package offline_test

import (
	"context"
	"fmt"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/tmc/langchaingo/llms"
)

func ExampleModel_GenerateContent() {
	tool := func(name, desc string) llms.Tool {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name, Description: desc,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"request": map[string]any{"type": "string"}}}}}
	}
	tools := []llms.Tool{
		tool("ask_parcels", "Tracks parcels and deliveries."),
		tool("ask_dining", "Books restaurant tables and shows menus."),
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Call at most 2 ask_ tools.\n- \"where is my parcel?\" -> ask_parcels"),
		llms.TextParts(llms.ChatMessageTypeHuman, "book a table for two tonight and where's my parcel?"),
	}
	resp, err := offline.New().GenerateContent(context.Background(), msgs, llms.WithTools(tools))
	if err != nil {
		panic(err)
	}
	for _, c := range resp.Choices[0].ToolCalls {
		fmt.Println(c.ID, c.FunctionCall.Name, c.FunctionCall.Arguments)
	}
	// Output:
	// call_1 ask_dining {"request":"book a table for two tonight"}
	// call_2 ask_parcels {"request":"where's my parcel"}
}
