package assembly

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// A broken fixture beside agents on disk is named by the folder the operator gave serve, as
// validate names it, not relative to that folder.
func TestLoadFixturesNamesTheAgentsFolder(t *testing.T) {
	agents := filepath.Join(t.TempDir(), "agents")
	if err := os.MkdirAll(filepath.Join(agents, ccsdemo.FixturesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, ccsdemo.FixturesDir, "garden.plants.json"), []byte("{\n  \"plants\": [\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadFixtures(Input{Agents: agents})
	var fe *ccsdemo.FixtureError
	if !errors.As(err, &fe) {
		t.Fatalf("loadFixtures() error = %v, want a *ccsdemo.FixtureError", err)
	}
	if want := filepath.Join(agents, ccsdemo.FixturesDir, "garden.plants.json"); fe.File != want {
		t.Errorf("FixtureError.File = %q, want %q", fe.File, want)
	}
}
