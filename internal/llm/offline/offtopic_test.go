package offline

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The questions no agent answers must not be messages of an evaluation set: a figure
// measured on a set they were copied from would say nothing.
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
	for _, ex := range offTopicExamples {
		for _, s := range sets {
			if strings.Contains(s, strings.ToLower(ex)) {
				t.Errorf("off-topic example %q appears in an evaluation set", ex)
			}
		}
	}
}
