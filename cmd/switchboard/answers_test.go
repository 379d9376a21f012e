package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRunsAnswerTemplates: validate executes each answer template over the demo data
// of its tool (a fixture here) and names the template's line for a key the payload lacks.
func TestValidateRunsAnswerTemplates(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "concierge.yaml"), `kind: orchestrator
id: concierge
description: Routes gardening questions to the gardener.
sub_agents: [garden]
`)
	garden := `kind: sub_agent
id: garden
description: Answers gardening questions about the user's plants.
tools:
  - name: my_plants
    enricher: garden.plants
    domain_type: plant_list
    description: The plants the user has registered
    answer: |
      Your plants:
      {{range .plants}}- {{.NAME}}
      {{end}}
`
	writeTestFile(t, filepath.Join(dir, "garden.yaml"), garden)
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "fixtures", "garden.plants.json"), `{"domain_type": "plant_list", "payload": {"plants": [{"name": "Basil"}]}}`)

	validate := func() (int, string) {
		var out, errOut bytes.Buffer
		code := run(t.Context(), []string{"validate", "--agents", dir}, &out, &errOut, envMap(nil))
		return code, out.String() + errOut.String()
	}
	code, out := validate()
	if want := "garden.yaml:11: "; code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "NAME") {
		t.Errorf("validate = %d, want 1 and a problem at %q naming the key:\n%s", code, want, out)
	}

	writeTestFile(t, filepath.Join(dir, "garden.yaml"), strings.Replace(garden, ".NAME", ".name", 1))
	if code, out := validate(); code != 0 {
		t.Errorf("validate = %d after the fix, want 0:\n%s", code, out)
	}
}
