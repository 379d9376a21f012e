package answer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// FitBoost rewards the tools whose parameters a clause's values fill, and a clause holding no
// digit fills no flight number, identifier or number.
func TestFitBoost(t *testing.T) {
	tool := func(name string, params map[string]any) llms.Tool {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name, Parameters: map[string]any{"type": "object", "properties": params}}}
	}
	tools := []llms.Tool{
		tool("flight_status", map[string]any{"flight": map[string]any{"type": "string"}}),
		tool("order_status", map[string]any{"order_id": map[string]any{"type": "string"}}),
		tool("book_seats", map[string]any{"seats": map[string]any{"type": "integer"}}),
		tool("list_orders", map[string]any{}),
	}
	boost := FitBoost(tools)
	for _, tc := range []struct {
		text       string
		fit, idFit []float64
	}{
		{"is my flight on time", []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}},
		{"where is order A1234", []float64{fitBonus, 0, 0, 0}, []float64{0, fitBonus, 0, 0}}, // "A1234" reads as a flight too
		{"is UA 123 on time", []float64{fitBonus, 0, fitBonus, 0}, []float64{0, fitBonus, 0, 0}},
		{"book 3 seats", []float64{0, 0, fitBonus, 0}, []float64{0, 0, 0, 0}},
	} {
		fit, idFit := boost(tc.text)
		if diff := cmp.Diff(tc.fit, fit); diff != "" {
			t.Errorf("%q: fit (-want +got):\n%s", tc.text, diff)
		}
		if diff := cmp.Diff(tc.idFit, idFit); diff != "" {
			t.Errorf("%q: idFit (-want +got):\n%s", tc.text, diff)
		}
	}
}
