package orchestrator

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/definitions"
)

// The routing hints carry what a sub-agent's tools say of themselves: an agent added by YAML
// with no examples of its own is still described by its tools' descriptions and examples.
func TestSystemPromptHintsAtSubAgentTools(t *testing.T) {
	vet := subDef("vet", "Help with the family's pets.")
	vet.Examples = []string{"is rex due a checkup"}
	vet.Tools = []definitions.Tool{
		{Name: "list_vaccinations", Description: "Vaccinations of each pet\n  and when the next is due.", Examples: []string{"when is the rabies shot due"}},
		{Name: "get_invoice"},
	}
	tests := []struct {
		fewShot bool
		want    []string
		wantNot []string
	}{
		{true, []string{
			fewShotHead + "\n- \"is rex due a checkup\" -> ask_vet\n- \"when is the rabies shot due\" -> ask_vet\n",
			toolsHead + "\n- ask_vet: list_vaccinations: Vaccinations of each pet and when the next is due.\n",
		}, []string{"get_invoice"}},
		{false, nil, []string{fewShotHead, toolsHead}},
	}
	for _, tt := range tests {
		got := systemPrompt(orchDef(3, "vet"), []*binding{{def: vet}}, tt.fewShot)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("systemPrompt(fewShot=%v) = %q, want it to hold %q", tt.fewShot, got, w)
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("systemPrompt(fewShot=%v) = %q, want no %q", tt.fewShot, got, w)
			}
		}
	}
}
