package definitions_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

func subAgent(id, file string) *definitions.Definition {
	return &definitions.Definition{
		Kind: definitions.KindSubAgent, ID: id, Name: id,
		Description: "A sub-agent built in Go for set tests.",
		Model:       "default", Timeout: time.Second, Enabled: definitions.Enabled{Value: true},
		Source: definitions.Source{File: file, Line: 1},
	}
}

func TestNewSet(t *testing.T) {
	orch := &definitions.Definition{
		Kind: definitions.KindOrchestrator, ID: "hub", Name: "hub",
		Description: "An orchestrator built in Go for set tests.",
		Model:       "default", Timeout: time.Second, Enabled: definitions.Enabled{Value: true},
		SubAgents: []string{"zed", "ann"}, FanOutCap: 1,
		Source: definitions.Source{File: "hub.go", Line: 7},
	}
	tests := []struct {
		name string
		defs []*definitions.Definition
		want []string
	}{
		{name: "valid", defs: []*definitions.Definition{orch, subAgent("zed", "zed.go"), subAgent("ann", "ann.go")}},
		{
			name: "problems point at Source",
			defs: []*definitions.Definition{orch, subAgent("zed", "zed.go"), subAgent("zed", "zed2.go"), {Kind: definitions.KindSubAgent, ID: "bad", Source: definitions.Source{File: "bad.go", Line: 3}}},
			want: []string{
				"bad.go:3: description is required: it is what the orchestrator routes on",
				"bad.go:3: model must name a model alias (default \"default\")",
				"bad.go:3: timeout must be positive, got 0s",
				`hub.go:7: unknown sub-agent "ann" in sub_agents (known ids: bad, zed)`,
				`zed2.go:1: duplicate id "zed": also defined at zed.go:1`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := definitions.NewSet(tt.defs...)
			if diff := cmp.Diff(tt.want, problemLines(t, err)); diff != "" {
				t.Fatalf("NewSet() problems mismatch (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			got := set.SubAgents(orch)
			if len(got) != 2 || got[0].ID != "zed" || got[1].ID != "ann" {
				t.Errorf("SubAgents(hub) = %v, want [zed ann]", got)
			}
			// A definition with the same id that is not the bound one is not part of the set.
			impostor := *orch
			if got := set.SubAgents(&impostor); got != nil {
				t.Errorf("SubAgents(copy of hub) = %v, want nil", got)
			}
			all := set.All()
			all[0] = nil
			if set.All()[0] == nil {
				t.Error("All() returned the set's own slice; want a copy")
			}
		})
	}
}

func TestEnabledResolve(t *testing.T) {
	flags := func(name string) bool { return name == "on" }
	tests := []struct {
		name    string
		enabled definitions.Enabled
		flags   func(string) bool
		want    bool
	}{
		{name: "true", enabled: definitions.Enabled{Value: true}, flags: flags, want: true},
		{name: "false", enabled: definitions.Enabled{}, flags: flags, want: false},
		{name: "flag on", enabled: definitions.Enabled{Flag: "on"}, flags: flags, want: true},
		{name: "flag off", enabled: definitions.Enabled{Value: true, Flag: "off"}, flags: flags, want: false},
		{name: "no lookup", enabled: definitions.Enabled{Flag: "on"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.enabled.Resolve(tt.flags); got != tt.want {
				t.Errorf("%+v.Resolve() = %v, want %v", tt.enabled, got, tt.want)
			}
		})
	}
}

func TestDefinitionTool(t *testing.T) {
	def := subAgent("shop", "shop.go")
	def.Tools = []definitions.Tool{{Name: "search", Enricher: "offers.search"}}
	if got, ok := def.Tool("search"); !ok || got.Enricher != "offers.search" {
		t.Errorf("Tool(search) = %+v, %v; want the offers.search tool", got, ok)
	}
	if _, ok := def.Tool("missing"); ok {
		t.Error("Tool(missing) found, want not found")
	}
	if got := def.ToolName(); got != "ask_shop" {
		t.Errorf("ToolName() = %q, want ask_shop", got)
	}
}
