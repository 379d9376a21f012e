package assembly

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

// An agent whose enabled: names a flag the config's flags: does not define is off, as an
// unset flag has always been; each load (start and every reload) says so once, naming the
// agent and the flag, and a flag the config sets, even to false, is not warned about.
func TestUnsetFlagIsWarnedOncePerLoad(t *testing.T) {
	const want = "agent shop is disabled: flag new_shop is not set in the config's flags"
	for _, tc := range []struct {
		name  string
		flags map[string]bool
		warns bool
	}{
		{name: "flag not in the config", warns: true},
		{name: "flag set to false", flags: map[string]bool{"new_shop": false}},
		{name: "flag set to true", flags: map[string]bool{"new_shop": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyAgents(t, func(name string, data []byte) []byte {
				if name != "shop.yaml" {
					return data
				}
				return []byte(strings.Replace(string(data), "id: shop\n", "id: shop\nenabled: new_shop\n", 1))
			})
			logs := &obsBuffer{}
			ta := newAppWith(t, dir, func(o *Input) {
				o.Config.Flags = tc.flags
				o.Logger = slog.New(slog.NewJSONHandler(logs, nil))
			})
			warnings := func() []obsLogLine {
				var out []obsLogLine
				for _, l := range logs.lines(t) {
					if strings.HasPrefix(l.str("msg"), "agent shop is disabled") {
						out = append(out, l)
					}
				}
				return out
			}
			wantCount := 0
			if tc.warns {
				wantCount = 1
			}
			got := warnings()
			if len(got) != wantCount {
				t.Fatalf("warnings after start = %d, want %d:\n%s", len(got), wantCount, logs.String())
			}
			if tc.warns {
				l := got[0]
				if diff := cmp.Diff([]string{"WARN", want, "shop", "new_shop"}, []string{l.str("level"), l.str("msg"), l.str("agent"), l.str("flag")}); diff != "" {
					t.Errorf("warning (-want +got):\n%s", diff)
				}
			}
			if err := ta.Reload(t.Context()); err != nil {
				t.Fatalf("Reload() = %v", err)
			}
			if got := len(warnings()); got != 2*wantCount {
				t.Errorf("warnings after a reload = %d, want %d", got, 2*wantCount)
			}
			if on := slices.Contains(ta.skills(t), "shop"); on != (tc.flags["new_shop"]) {
				t.Errorf("agent card lists shop = %v, want %v", on, tc.flags["new_shop"])
			}
		})
	}
}

// An orchestrator's enabled: chooses between versions of it: with no orchestrator named in the
// config, the one its flags leave on runs; one named but switched off is an error that says
// why, not a silent switch to another.
func TestPickOrchestratorByFlags(t *testing.T) {
	orch := func(id string, enabled definitions.Enabled) *definitions.Definition {
		return &definitions.Definition{Kind: definitions.KindOrchestrator, ID: id, Description: "Routes every question somewhere.",
			Model: "default", Timeout: time.Second, Enabled: enabled, SubAgents: []string{"shop"}, FanOutCap: 3,
			Source: definitions.Source{File: id + ".yaml", Line: 1}}
	}
	shop := &definitions.Definition{Kind: definitions.KindSubAgent, ID: "shop", Description: "Finds offers and coupons for the user.",
		Model: "default", Timeout: time.Second, Enabled: definitions.Enabled{Value: true}, Source: definitions.Source{File: "shop.yaml", Line: 1}}
	set, err := definitions.NewSet(shop, orch("hub", definitions.Enabled{Value: true}), orch("hub_v2", definitions.Enabled{Flag: "hub_v2"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id string
		flags    map[string]bool
		want     string // the orchestrator's id, or the start of the error
	}{
		{name: "the new one's flag unset", want: "hub"},
		{name: "the new one's flag off", flags: map[string]bool{"hub_v2": false}, want: "hub"},
		{name: "both on", flags: map[string]bool{"hub_v2": true}, want: "the agents folder has several orchestrators"},
		{name: "both on, one named", id: "hub_v2", flags: map[string]bool{"hub_v2": true}, want: "hub_v2"},
		{name: "named but off", id: "hub_v2", want: `the config chooses orchestrator "hub_v2", which is disabled: flag hub_v2 is not set in the config's flags`},
		{name: "named but flagged off", id: "hub_v2", flags: map[string]bool{"hub_v2": false}, want: `the config chooses orchestrator "hub_v2", which is disabled: flag hub_v2 is off`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := pickOrchestrator(set, tc.id, tc.flags)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = d.ID
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("pickOrchestrator(%q, %v) = %q, want %q", tc.id, tc.flags, got, tc.want)
			}
		})
	}

	off, err := definitions.NewSet(shop, orch("hub", definitions.Enabled{Value: false}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pickOrchestrator(off, "", nil); err == nil || err.Error() != "every orchestrator is disabled (hub: enabled: false)" {
		t.Errorf("pickOrchestrator(every one off) = %v, want every orchestrator is disabled (hub: enabled: false)", err)
	}
}
