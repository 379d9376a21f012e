package definitions_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, must locate every problem in
// the named file within its lines, must be deterministic (map order must not leak into the
// problem list) and must only accept definitions that satisfy the id rule.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*/*.yaml", "testdata/*/*.yml", "../demo/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(head + "examples: &a [x]\nprompt: *a\n"))
	f.Add([]byte(head + "tools:\n  - parameters: {type: object, properties: {q: {type: [string, 1e400]}}}\n"))
	f.Add([]byte("kind: orchestrator\nid: hub\ndescription: Routes every question somewhere.\nsub_agents: [hub]\n"))

	id := regexp.MustCompile(`^[a-z][a-z0-9_]{1,31}$`)
	f.Fuzz(func(t *testing.T, data []byte) {
		def, problems := definitions.Parse("fuzz.yaml", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range problems {
			if p.Source.File != "fuzz.yaml" || p.Source.Line < 0 || p.Source.Line > lines+1 {
				t.Errorf("problem %q is outside fuzz.yaml's %d lines", p, lines)
			}
		}
		_, again := definitions.Parse("fuzz.yaml", data)
		if diff := cmp.Diff(problems, again); diff != "" {
			t.Errorf("Parse() is not deterministic (-first +second):\n%s", diff)
		}
		if len(problems) == 0 {
			if def == nil {
				t.Fatal("Parse() = nil definition and no problems")
			}
			if !id.MatchString(def.ID) {
				t.Errorf("Parse() accepted id %q", def.ID)
			}
		}
	})
}
