package offline

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The questions no agent answers, and the messages the style classifier learnt from, must not
// be messages of an evaluation set: a figure measured on a set they were copied from would
// say nothing.
func TestOffTopicExamplesAreNoEvalMessages(t *testing.T) {
	root := filepath.Join("..", "..", "..", "evals")
	var sets []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, string(filepath.Separator)+"agents"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(path)
		sets = append(sets, strings.ToLower(string(b)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) < 5 {
		t.Fatalf("found %d evaluation sets under %s, want the repository's", len(sets), root)
	}
	examples := slices.Clone(offTopicExamples)
	for _, f := range []string{"service.txt", "aside.txt"} {
		b, err := os.ReadFile(filepath.Join("style", "gen", f))
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				examples = append(examples, l)
			}
		}
	}
	for _, ex := range examples {
		for _, s := range sets {
			if strings.Contains(s, `"`+strings.ToLower(ex)+`"`) {
				t.Errorf("example %q is a message of an evaluation set", ex)
			}
		}
	}
}
