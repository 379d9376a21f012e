package route

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"gopkg.in/yaml.v3"
)

// The questions no agent answers, and the messages the style classifier learnt from, must not
// be messages of an evaluation set, nor close to one: a figure measured on a set they were
// copied from would say nothing. Close is what the training data was cleaned with: three
// fifths of the distinct words of the two in common, or the example inside the message.
func TestOffTopicExamplesAreNoEvalMessages(t *testing.T) {
	evals := evalMessages(t, filepath.Join("..", "..", "..", "..", "evals"))
	if len(evals) < 500 {
		t.Fatalf("found %d evaluation messages, want the repository's", len(evals))
	}
	examples := append([]string(nil), offTopicExamples...)
	for _, f := range []string{"service.txt", "aside.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "style", "gen", f))
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				examples = append(examples, l)
			}
		}
	}
	type message struct {
		text  string
		words map[string]bool
	}
	ms := make([]message, len(evals))
	for i, e := range evals {
		ms[i] = message{strings.ToLower(e), wordSet(e)}
	}
	for _, ex := range examples {
		lower, words := strings.ToLower(ex), wordSet(ex)
		for _, m := range ms {
			if strings.Contains(m.text, lower) || jaccard(words, m.words) >= 0.6 {
				// The evaluation message is not shown: some sets are blind.
				t.Errorf("example %q is an evaluation message, or close to one", ex)
				break
			}
		}
	}
}

// evalMessages returns the user messages of every dataset under root.
func evalMessages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, string(filepath.Separator)+"agents"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var ds struct {
			Cases []struct {
				Turns []struct {
					User string `yaml:"user"`
				} `yaml:"turns"`
			} `yaml:"cases"`
		}
		if err := yaml.Unmarshal(b, &ds); err != nil {
			return err
		}
		for _, c := range ds.Cases {
			for _, tu := range c.Turns {
				out = append(out, tu.User)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range lang.ScanWords(s) {
		out[w.Lower] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	both := 0
	for w := range a {
		if b[w] {
			both++
		}
	}
	if n := len(a) + len(b) - both; n > 0 {
		return float64(both) / float64(n)
	}
	return 0
}
