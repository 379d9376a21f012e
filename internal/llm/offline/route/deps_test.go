package route

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNoLaterStage keeps the stages' order: route builds on lang, never on answer or the
// model itself, so that answer may build on route without a cycle.
func TestImportsNoLaterStage(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const offline = "github.com/switchboard-ai/switchboard/internal/llm/offline"
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == offline || path == offline+"/answer" {
				t.Errorf("%s imports %s, want route to build on lang, not on a later stage", name, path)
			}
		}
	}
}
