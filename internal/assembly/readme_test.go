package assembly

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// codeBlock returns the first fenced block of the given language after marker in doc.
func codeBlock(t *testing.T, doc, marker, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, marker)
	if !ok {
		t.Fatalf("README has no %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
	if !ok {
		t.Fatalf("README has no %s block after %q", lang, marker)
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// The README's "Add an agent" example works as written: its YAML and its fixture, dropped into
// the agents folder, answer a gardening question through the embedded demo CCS.
func TestReadmeGardenExampleAnswers(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(readme)
	dir := agentsWithEdits(t, map[string]map[string]string{"concierge.yaml": {
		"sub_agents: [shop, rewards, support, travel]": "sub_agents: [shop, rewards, support, travel, garden]",
	}})
	if err := os.WriteFile(filepath.Join(dir, "garden.yaml"), []byte(codeBlock(t, doc, "## Add an agent", "yaml")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	fixture := codeBlock(t, doc, "agents/fixtures/garden.plants.json", "json")
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "garden.plants.json"), []byte(fixture), 0o600); err != nil {
		t.Fatal(err)
	}
	ta := newTestApp(t, dir, nil)
	assertGardenAnswers(t, ta)
}

// The README's "Add an agent" steps work on a running server, as it promises: the definition,
// the orchestrator's edit and the fixture dropped into a watched agents folder answer a
// gardening question with no restart.
func TestReadmeGardenExampleAnswersWhileServing(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(readme)
	dir := copyAgents(t, nil)
	ta := newTestApp(t, dir, nil)
	if err := ta.Watch(t.Context()); err != nil {
		t.Fatalf("Watch() = %v", err)
	}
	writeFile(t, filepath.Join(dir, "garden.yaml"), codeBlock(t, doc, "## Add an agent", "yaml"))
	editFile(t, filepath.Join(dir, "concierge.yaml"), "sub_agents: [shop, rewards, support, travel]", "sub_agents: [shop, rewards, support, travel, garden]")
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "fixtures", "garden.plants.json"), codeBlock(t, doc, "agents/fixtures/garden.plants.json", "json"))
	waitFor(t, "garden and its fixture to be served", func() bool {
		return slices.Contains(ta.skills(t), "garden") && ta.Demo.Serves("garden.plants")
	})

	assertGardenAnswers(t, ta)

	// A broken fixture keeps the last good one and says why, like a broken definition.
	writeFile(t, filepath.Join(dir, "fixtures", "garden.plants.json"), `{"domain_type": `)
	waitFor(t, "the failed reload in /readyz", func() bool {
		d := ta.readyDefinitions(t)
		return d.LastReload != nil && d.LastReload.Result == "error"
	})
	if d := ta.readyDefinitions(t); len(d.Problems) == 0 || !strings.Contains(d.Problems[0], "garden.plants") {
		t.Errorf("/readyz problems = %q, want the broken fixture named", d.Problems)
	}
	if !ta.Demo.Serves("garden.plants") {
		t.Error("a broken fixture removed the last good one")
	}
}

// assertGardenAnswers asks the README's garden agent a question and checks that the answer
// comes from its fixture.
func assertGardenAnswers(t *testing.T, ta *testApp) {
	t.Helper()
	events := ta.streamTurn(t, ta.token(t, "alice"), "", "how often should i water my tomatoes")
	var reply string
	for _, ev := range events {
		if ev.Name == "reply.completed" {
			reply = decode[stream.ReplyCompleted](t, ev).Text
		}
	}
	if !strings.Contains(reply, "Tomatoes") || strings.Contains(reply, "couldn't get an answer") {
		t.Errorf("reply = %q, want the garden fixture's plants", reply)
	}
}
