package assembly

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
