package answer

import (
	"strings"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// VocabOf gathers the stems of a sub-agent's prompt and of the texts of its tools (their
// names and descriptions) and of their parameters (units).
func VocabOf(system string, tools, units []string) ToolVocab {
	domain := ToolVocab{tools: map[string]bool{}, units: map[string]bool{}}
	addTerms(domain.tools, system)
	for i := range tools {
		addTerms(domain.tools, tools[i])
		addTerms(domain.units, units[i])
	}
	return domain
}

// SearchTool picks a tool for a request that names nothing the tools describe: such a
// request is most likely a search term, so the first tool with a required free-text
// parameter wins, then the first tool at all. -1 when there are no tools.
func SearchTool(tools []llms.Tool) int {
	for i, t := range tools {
		for _, p := range ParamsOf(t.Function.Parameters) {
			if p.required && kindOf(p) == kindText {
				return i
			}
		}
	}
	if len(tools) == 0 {
		return -1
	}
	return 0
}

// FitBoost rewards tools whose specific parameters the clause can fill: flights and numbers
// in fit, identifiers apart in idFit. "refund for order A1234" fits a tool taking an order id
// better than one listing all orders.
func FitBoost(tools []llms.Tool) func(string) (fit, idFit []float64) {
	kinds := make([]map[paramKind]bool, len(tools))
	for i, t := range tools {
		kinds[i] = map[paramKind]bool{}
		for _, p := range ParamsOf(t.Function.Parameters) {
			kinds[i][kindOf(p)] = true
		}
	}
	return func(text string) (fit, idFit []float64) {
		fit, idFit = make([]float64, len(tools)), make([]float64, len(tools))
		if !strings.ContainsFunc(text, unicode.IsDigit) {
			// Flight numbers, identifiers and numbers all hold a digit: a clause without one
			// fills none of them, and probing it costs a regular expression per clause.
			return fit, idFit
		}
		found := map[paramKind]bool{}
		ws := lang.ScanWords(text) // once: each probe gets a fresh source over the same words
		for _, k := range []paramKind{kindFlight, kindID, kindNumber} {
			_, found[k] = newArgSource(text, ws, ToolVocab{}).extract(kindProbe[k])
		}
		for i := range tools {
			for k, ok := range found {
				switch {
				case !ok || !kinds[i][k]:
				case k == kindID:
					idFit[i] += fitBonus
				default:
					fit[i] += fitBonus
				}
			}
		}
		return fit, idFit
	}
}

// kindProbe is a parameter of each kind, to ask extract whether a text has such a value.
var kindProbe = map[paramKind]Param{kindFlight: {Name: "flight", Type: "string"}, kindID: {Name: "id", Type: "string"}, kindNumber: {Name: "n", Type: "number"}}
