// Package archtest keeps the dependency arrows of docs/architecture.md true: each package may
// import only the in-repo packages listed for it.
package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/switchboard-ai/switchboard"

// allowed lists, per package, the in-repo packages it may import directly.
var allowed = map[string][]string{
	"definitions": {},
	"principal":   {},
	// ask is the sub-agent contract both sides share: a leaf beside principal, which it names.
	"ask":          {"principal"},
	"demo":         {},
	"ccs":          {"principal"},
	"ccs/ccsdemo":  {"ccs", "principal"},
	"stream":       {"definitions"},
	"orchestrator": {"definitions", "stream", "principal", "ask"},
	"subagents":    {"definitions", "ccs", "principal", "stream", "ask"},
	// evals reads turn events through stream and parses fault kinds with ccsdemo.
	"evals": {"orchestrator", "subagents", "definitions", "ccs", "ccs/ccsdemo", "stream", "principal", "ask"},
	// The HTTP surfaces, one per protocol; httpkit is the protocol-neutral plumbing they share.
	"web":              {"orchestrator", "stream", "principal", "definitions", "internal/httpkit"},
	"a2aserver":        {"orchestrator", "stream", "principal", "definitions", "internal/httpkit"},
	"agui":             {"orchestrator", "stream", "principal", "internal/httpkit"},
	"internal/httpkit": {"orchestrator", "principal"},
	// Leaves every package may import (see leaves).
	"internal/gostack":  {},
	"internal/jsonscan": {},
}

// leaves import nothing of this module, and any package may import them: runtime plumbing
// that carries no part of the design.
var leaves = []string{"internal/gostack", "internal/jsonscan"}

func TestDependencyArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := map[string]bool{}
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		rules, ok := allowed[rel]
		if !ok {
			continue // cmd and internal/... may import what they need
		}
		seen[rel] = true
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !slices.Contains(rules, dep) && !slices.Contains(leaves, dep) {
				t.Errorf("%s imports %s; docs/architecture.md allows only %v", rel, dep, rules)
			}
		}
		for _, imp := range p.Imports {
			if imp == "github.com/gin-gonic/gin" && rel != "web" {
				t.Errorf("%s imports gin; only web may", rel)
			}
		}
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("package %s not found by go list", pkg)
		}
	}
}
