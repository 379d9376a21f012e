package evals

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var demoAgents = []string{"shop", "rewards", "support", "travel"}

func TestParseDataset(t *testing.T) {
	src := `name: demo
cases:
  - id: one
    user: bob
    faults: {rewards: error}
    turns:
      - {user: " show offers and my points ", expect: [shop, rewards], acknowledge_failure: [rewards]}
      - user: thanks
        expect: []
        reply_mentions: ["Silver", "2,550|2550"]
        reply_excludes: ["Gold member"]
`
	got, err := ParseDataset("demo.yaml", []byte(src), demoAgents)
	if err != nil {
		t.Fatalf("ParseDataset() error = %v", err)
	}
	want := &Dataset{Name: "demo", File: "demo.yaml", Cases: []Case{{
		ID: "one", User: "bob", Line: 3, Faults: map[string]FaultKind{"rewards": FaultError},
		Turns: []Turn{
			{Message: "show offers and my points", Expect: []string{"shop", "rewards"}, AcknowledgeFailure: []string{"rewards"}, Line: 7},
			{Message: "thanks", Expect: []string{}, ReplyMentions: []string{"Silver", "2,550|2550"}, ReplyExcludes: []string{"Gold member"}, Line: 8},
		},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDataset() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseDatasetDefaultUser(t *testing.T) {
	got, err := ParseDataset("d.yaml", []byte("name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n"), demoAgents)
	if err != nil {
		t.Fatalf("ParseDataset() error = %v", err)
	}
	if got.Cases[0].User != DefaultUser {
		t.Errorf("User = %q, want %q", got.Cases[0].User, DefaultUser)
	}
}

func TestParseDatasetErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // problems, as "file:line: message" prefixes
	}{
		{"empty", "", []string{"d.yaml: empty dataset"}},
		// The parser stops at the end of the input, the line after the unclosed list, and says
		// so as the definitions' reader does (yaml.v3 counts a parser error's line from 0).
		{"syntax", "name: [unclosed\n", []string{"d.yaml:2: invalid YAML"}},
		// yaml.v3 leaves the first line out of this one.
		{"syntax on the first line", "\tname: a\n", []string{"d.yaml:1: invalid YAML"}},
		{"parser error", "name: a\ncases:\n - id: x\n  bad: 1\n", []string{"d.yaml:3: invalid YAML"}},
		{"not a mapping", "- a\n- b\n", []string{"d.yaml:1: dataset: want a mapping"}},
		{"unknown top key", "name: d\ncase: []\n", []string{"d.yaml:1: missing cases", `d.yaml:2: dataset: unknown key "case"`}},
		{"missing name", "cases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n", []string{"d.yaml:1: missing name"}},
		{"unknown agent", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [shopp]}\n",
			[]string{`d.yaml:5: case a: turn 1: expect: unknown sub-agent "shopp" (registered: shop, rewards, support, travel)`}},
		{"missing expect", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi}\n",
			[]string{"d.yaml:5: case a: turn 1: missing expect"}},
		{"empty message", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: '  ', expect: []}\n",
			[]string{"d.yaml:5: case a: turn 1: user message is empty"}},
		{"unknown turn key", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], expected: [shop]}\n",
			[]string{`d.yaml:5: case a: turn 1: unknown key "expected"`}},
		{"bad fault kind", "name: d\ncases:\n  - id: a\n    faults: {shop: broken}\n    turns: [{user: hi, expect: [shop]}]\n",
			[]string{`d.yaml:4: case a: fault "broken" for shop: want one of error, partial, principal_mismatch, timeout`}},
		{"fault for unknown agent", "name: d\ncases:\n  - id: a\n    faults: {shoe: error}\n    turns: [{user: hi, expect: []}]\n",
			[]string{`d.yaml:4: case a: faults: unknown sub-agent "shoe"`}},
		{"ack without fault", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: [shop], acknowledge_failure: [shop]}]\n",
			[]string{"d.yaml:4: case a: turn 1: acknowledge_failure names shop, but the case injects no fault for it"}},
		{"duplicate case", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n  - id: a\n    turns: [{user: yo, expect: []}]\n",
			[]string{`d.yaml:5: duplicate case id "a": also at line 3`}},
		{"duplicate case with other problems", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: [nope]}]\n  - id: a\n    turns: []\n",
			[]string{`d.yaml:4: case a: turn 1: expect: unknown sub-agent "nope"`, `d.yaml:5: duplicate case id "a": also at line 3`, "d.yaml:6: case a: turns is empty"}},
		{"duplicate expect", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: [shop, shop]}]\n",
			[]string{"d.yaml:4: case a: turn 1: expect: shop is listed twice"}},
		{"reply_mentions not a list", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_mentions: Silver}\n",
			[]string{"d.yaml:5: case a: turn 1: reply_mentions: want a list of phrases"}},
		{"empty reply_excludes", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_excludes: []}\n",
			[]string{"d.yaml:5: case a: turn 1: reply_excludes: empty list"}},
		{"empty phrase", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_mentions: ['']}\n",
			[]string{"d.yaml:5: case a: turn 1: reply_mentions: empty phrase"}},
		{"empty alternative", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_mentions: ['Silver| ']}\n",
			[]string{`d.yaml:5: case a: turn 1: reply_mentions: phrase "Silver| " has an empty alternative`}},
		{"null phrase", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_excludes: [~]}\n",
			[]string{"d.yaml:5: case a: turn 1: reply_excludes: want a string, got null"}},
		{"phrase too long", "name: d\ncases:\n  - id: a\n    turns:\n      - {user: hi, expect: [], reply_mentions: [" + strings.Repeat("x", 301) + "]}\n",
			[]string{"d.yaml:5: case a: turn 1: reply_mentions: phrase longer than 300"}},
		{"no turns", "name: d\ncases:\n  - id: a\n    turns: []\n", []string{"d.yaml:4: case a: turns is empty"}},
		{"alias", "name: d\ncases:\n  - id: a\n    turns: &t [{user: hi, expect: []}]\n  - id: b\n    turns: *t\n",
			[]string{"d.yaml:4: case a: turns: YAML anchors and aliases are not supported", "d.yaml:6: case b: turns: YAML anchors and aliases are not supported"}},
		{"two documents", "name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: []}]\n---\nname: e\n", []string{"d.yaml:5: a dataset file holds one YAML document"}},
		{"several problems at once", "name: d\ncases:\n  - id: 'bad id'\n    user: 'x y'\n    turns: [{user: hi, expect: [nope]}]\n",
			[]string{`d.yaml:3: case id "bad id"`, `d.yaml:4: case bad id: user "x y"`, `d.yaml:5: case bad id: turn 1: expect: unknown sub-agent "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDataset("d.yaml", []byte(tt.src), demoAgents)
			if !errors.Is(err, ErrInvalidDataset) {
				t.Fatalf("ParseDataset() error = %v, want ErrInvalidDataset", err)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T is not *LoadError", err)
			}
			var got []string
			for _, p := range le.Problems {
				got = append(got, p.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d = %q, want prefix %q", i, got[i], w)
				}
			}
		})
	}
}

func TestLoadDatasetsDuplicateNames(t *testing.T) {
	// The second file's other problem does not hide the duplicate name: every problem is
	// reported in one run.
	for _, second := range []string{
		"name: same\ncases:\n  - id: y\n    turns: [{user: hi, expect: []}]\n",
		"name: same\ncases:\n  - id: y\n    turns: [{user: hi, expect: [nope]}]\n",
	} {
		dir := t.TempDir()
		a := writeFile(t, dir, "a.yaml", "name: same\ncases:\n  - id: x\n    turns: [{user: hi, expect: []}]\n")
		b := writeFile(t, dir, "b.yaml", second)
		_, err := LoadDatasets([]string{a, b}, demoAgents)
		if err == nil || !strings.Contains(err.Error(), `dataset name "same" is also used by `+a) {
			t.Errorf("LoadDatasets() error = %v, want a duplicate-name problem", err)
		}
	}
}

func TestLoadDatasetsUnreadable(t *testing.T) {
	_, err := LoadDatasets([]string{filepath.Join(t.TempDir(), "missing.yaml")}, demoAgents)
	if err == nil || errors.Is(err, ErrInvalidDataset) {
		t.Errorf("LoadDatasets(missing) error = %v, want a read error", err)
	}
}

// TestShippedDatasets keeps evals/datasets loadable and the intent-switch set at its promised
// size: every ordered pair of the demo sub-agents at least five times.
func TestShippedDatasets(t *testing.T) {
	paths, err := filepath.Glob("testdata/datasets/*.yaml")
	if err != nil || len(paths) < 4 {
		t.Fatalf("glob datasets = %v, %v; want the four shipped files", paths, err)
	}
	sets, err := LoadDatasets(paths, demoAgents)
	if err != nil {
		t.Fatalf("LoadDatasets() error = %v", err)
	}
	for _, ds := range sets {
		if ds.Name != "intent-switch" {
			continue
		}
		if len(ds.Cases) < 60 {
			t.Errorf("intent-switch has %d cases, want at least 60", len(ds.Cases))
		}
		cov := coverage([]*Dataset{ds}, demoAgents)
		if len(cov.Missing) > 0 {
			t.Errorf("intent-switch misses pairs %v", cov.Missing)
		}
		for pair, n := range cov.Counts {
			if n < 5 {
				t.Errorf("pair %s occurs %d times, want at least 5", pair, n)
			}
		}
		for _, c := range ds.Cases {
			if len(c.Turns) != 2 {
				t.Errorf("case %s has %d turns, want 2", c.ID, len(c.Turns))
			}
		}
	}
}
