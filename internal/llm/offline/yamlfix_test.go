package offline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-ai/switchboard/evals"
)

// TestVerticalFixesAnswerByYAML shows a vertical team fixing a wrong answer with YAML alone. As
// first written (testdata/yamlfix/agents), the mobile agent answers "am I going to run out of
// data before my plan resets?" with its facts (the plan catalogue, before the model learnt to
// read the closing "before ..." clause as when rather than what), never with a yes or no. Its
// team adds examples to the usage tool and an answer template over its payload
// (testdata/yamlfix/fixed/mobile.yaml); with no code change the same turn says whether the
// data lasts.
func TestVerticalFixesAnswerByYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole service")
	}
	const question = "am I going to run out of data before my plan resets?"
	mentions := []string{"16.4 GB", "likely to run out before your plan resets on Dec 5, 2026"}
	excludes := []string{"Unlimited"}

	ask := func(dir string) []string {
		target := serviceTarget(t, dir)
		out, err := target.Turn(t.Context(), evals.TurnInput{User: "alice", Message: question})
		if err != nil {
			t.Fatal(err)
		}
		return replyProblems(out.Reply, mentions, excludes)
	}
	if problems := ask("testdata/yamlfix/agents"); len(problems) == 0 {
		t.Fatalf("as first written, the answer already passes; the fix shows nothing")
	}

	fixed := t.TempDir()
	copyTree(t, "testdata/yamlfix/agents", fixed)
	data, err := os.ReadFile("testdata/yamlfix/fixed/mobile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixed, "mobile.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if problems := ask(fixed); len(problems) > 0 {
		t.Errorf("after the YAML fix: %v", problems)
	}
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
