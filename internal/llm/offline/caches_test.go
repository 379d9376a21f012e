package offline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// A model keeps what each tool set offers across calls: a tool set seen before must not
// answer for another one.
func TestComposeOfferedPerToolSet(t *testing.T) {
	readOnly := []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "list_recent_orders", Description: "List the user's recent orders and their delivery status."}},
	}
	canCancel := []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "list_recent_orders", Description: "List the user's recent orders and their delivery status."}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "cancel_order", Description: "Cancel an order that has not shipped."}},
	}
	orders := `{"orders":[{"item":"Packing cubes","status":"processing"}]}`
	msgs := turnWithResults("please cancel order A1043", [3]string{"list_recent_orders", `{}`, orders})
	shared := New()
	for _, tools := range [][]llms.Tool{readOnly, canCancel, nil, readOnly, canCancel} {
		want, err := New().GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		got, err := shared.GenerateContent(t.Context(), msgs, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Choices[0].Content, got.Choices[0].Content); diff != "" {
			t.Errorf("%d tools: reply after other tool sets differs from a fresh model's (-fresh +shared):\n%s", len(tools), diff)
		}
	}
}

// BenchmarkCompose is a sub-agent's answer from its tool's result.
func BenchmarkCompose(b *testing.B) {
	benchAnswer(b, "where is my order", `{"orders":[{"item":"Packing cubes","status":"processing"}]}`)
}

// BenchmarkComposeData is a sub-agent's answer from a tool's result in the agent team's
// shape (status and data), which the model reads several times over: whether it answers,
// what of the request it holds, then its narration.
func BenchmarkComposeData(b *testing.B) {
	benchAnswer(b, "where is my rain jacket order",
		`{"status":"ok","data":{"orders":[{"item":"Packing cubes","status":"processing","carrier":"DHL","eta":"2026-12-02"},{"item":"Rain jacket","status":"delivered","carrier":"UPS"}]}}`)
}

// benchAnswer measures the answer to human once the orders tool returned orders.
func benchAnswer(b *testing.B, human, orders string) {
	tools := []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "list_recent_orders", Description: "List the user's recent orders and their delivery status."}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "get_return_status", Description: "Status of a return and its refund."}},
	}
	msgs := turnWithResults(human, [3]string{"list_recent_orders", `{}`, orders})
	m := New()
	opts := []llms.CallOption{llms.WithTools(tools)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(b.Context(), msgs, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// The kept words of an agent's trade are those of its own prompt and tools, whatever was
// asked before.
func TestDomainTermsPerPromptAndTools(t *testing.T) {
	orders := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "list_recent_orders", Description: "List the user's recent orders and their delivery status."}}}
	pets := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "book_vet", Description: "Book a vet appointment for one of the user's pets"}}}
	reqs := []*request{
		{system: "You help with orders.", tools: orders},
		{system: "You help with pets.", tools: orders},
		{system: "You help with orders.", tools: pets},
		{system: "", tools: nil},
		{system: "You help with orders.", tools: orders},
	}
	m := New()
	for _, req := range reqs {
		if diff := cmp.Diff(req.domainTerms(), m.domainTerms(req)); diff != "" {
			t.Errorf("terms(%q, %d tools) after other requests mismatch (-fresh +kept):\n%s", req.system, len(req.tools), diff)
		}
	}
}
