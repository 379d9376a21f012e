package switchboard

import (
	"os"
	"path/filepath"
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
	readme, err := os.ReadFile("README.md")
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
