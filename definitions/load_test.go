package definitions_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

func TestLoadFixtures(t *testing.T) {
	tests := []struct {
		dir      string
		wantIDs  []string
		problems []string // "file:line: message", in order
	}{
		{
			dir:     "testdata/valid",
			wantIDs: []string{"alpha", "beta", "hub"},
		},
		{
			dir: "testdata/broken",
			problems: []string{
				`testdata/broken/a_orch.yaml:6: unknown sub-agent "ghost" in sub_agents (known ids: quiet, shop)`,
				`testdata/broken/c_copy.yaml:3: duplicate id "shop": also defined at testdata/broken/b_shop.yaml:3`,
				`testdata/broken/d_nodesc.yaml:1: description is required: it is what the orchestrator routes on`,
			},
		},
		{
			// The broken file is the cause and comes first, though "hub" sorts before "shop".
			dir: "testdata/knockon",
			problems: []string{
				`testdata/knockon/shop.yaml:3: invalid YAML: did not find expected ',' or ']'`,
				`testdata/knockon/hub.yaml:5: unknown sub-agent "shop" in sub_agents (no other definition has an id): this follows from the problem in testdata/knockon/shop.yaml, which could not be read`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			set, err := definitions.Load(filepath.FromSlash(tt.dir))
			if diff := cmp.Diff(tt.problems, problemLines(t, err)); diff != "" {
				t.Errorf("Load(%q) problems mismatch (-want +got):\n%s", tt.dir, diff)
			}
			if err != nil {
				if set != nil {
					t.Errorf("Load(%q) returned a set along with an error", tt.dir)
				}
				return
			}
			var got []string
			for _, d := range set.All() {
				got = append(got, d.ID)
			}
			if diff := cmp.Diff(tt.wantIDs, got); diff != "" {
				t.Errorf("Load(%q).All() ids mismatch (-want +got):\n%s", tt.dir, diff)
			}
		})
	}
}

// problemLines returns the problems of a *LoadError as printed lines, nil for a nil error.
func problemLines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var le *definitions.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a *LoadError", err)
	}
	if !errors.Is(err, definitions.ErrInvalid) {
		t.Errorf("errors.Is(%v, ErrInvalid) = false, want true", err)
	}
	lines := make([]string, len(le.Problems))
	for i, p := range le.Problems {
		lines[i] = p.String()
	}
	return lines
}

func TestLoadValidSet(t *testing.T) {
	set, err := definitions.Load("testdata/valid")
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	hub, ok := set.Get("hub")
	if !ok {
		t.Fatal(`Get("hub") not found`)
	}
	var orchestrators, subAgents []string
	for _, d := range set.Orchestrators() {
		orchestrators = append(orchestrators, d.ID)
	}
	for _, d := range set.SubAgents(hub) {
		subAgents = append(subAgents, d.ID)
	}
	if diff := cmp.Diff([]string{"hub"}, orchestrators); diff != "" {
		t.Errorf("Orchestrators() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"beta", "alpha"}, subAgents); diff != "" {
		t.Errorf("SubAgents(hub) mismatch (-want +got), want sub_agents order:\n%s", diff)
	}
	alpha, _ := set.Get("alpha")
	if got := set.SubAgents(alpha); got != nil {
		t.Errorf("SubAgents(alpha) = %v, want nil for a sub_agent", got)
	}
	if got := set.SubAgents(nil); got != nil {
		t.Errorf("SubAgents(nil) = %v, want nil", got)
	}
	if _, ok := set.Get("ghost"); ok {
		t.Error(`Get("ghost") found, want not found`)
	}

	want := &definitions.Definition{
		Kind:        definitions.KindOrchestrator,
		ID:          "hub",
		Name:        "hub",
		Description: "Routes questions about alpha things and beta things.",
		Model:       "default",
		Timeout:     8 * time.Second,
		Enabled:     definitions.Enabled{Value: true},
		SubAgents:   []string{"beta", "alpha"},
		FanOutCap:   2,
		Rendering:   definitions.Rendering{BatchWindow: 100 * time.Millisecond, MinInterval: 300 * time.Millisecond},
		Source:      definitions.Source{File: filepath.Join("testdata", "valid", "hub.yaml"), Line: 2},
	}
	if diff := cmp.Diff(want, hub); diff != "" {
		t.Errorf("Get(hub) mismatch (-want +got):\n%s", diff)
	}

	beta, _ := set.Get("beta")
	if !beta.Remote() || beta.Enabled != (definitions.Enabled{Value: false}) {
		t.Errorf("beta = remote %v, enabled %+v; want remote and disabled", beta.Remote(), beta.Enabled)
	}
}

// The repository's own agents must always load: the binary embeds them as its default set.
func TestLoadRepoAgents(t *testing.T) {
	set, err := definitions.Load(filepath.Join("..", "demo"))
	if err != nil {
		t.Fatalf("Load(../agents) error:\n%v", err)
	}
	concierge, ok := set.Get("concierge")
	if !ok {
		t.Fatal(`Get("concierge") not found`)
	}
	var ids []string
	for _, d := range set.SubAgents(concierge) {
		ids = append(ids, d.ID)
		if len(d.Tools) != 3 {
			t.Errorf("%s has %d tools, want 3", d.ID, len(d.Tools))
		}
		if n := len(d.Examples); n < 6 {
			t.Errorf("%s has %d examples, want at least 6 (they are the offline model's routing hints)", d.ID, n)
		}
	}
	if diff := cmp.Diff([]string{"shop", "rewards", "support", "travel"}, ids); diff != "" {
		t.Errorf("concierge sub-agents mismatch (-want +got):\n%s", diff)
	}
	if concierge.FanOutCap != 3 || concierge.Rendering.BatchWindow != 250*time.Millisecond {
		t.Errorf("concierge fan_out_cap = %d, batch_window = %s; want 3, 250ms", concierge.FanOutCap, concierge.Rendering.BatchWindow)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Run("missing directory", func(t *testing.T) {
		_, err := definitions.Load(filepath.Join(t.TempDir(), "nope"))
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, definitions.ErrInvalid) {
			t.Errorf("Load(missing) error = %v, want fs.ErrNotExist and not ErrInvalid", err)
		}
	})
	// The folder named is what went wrong; os.DirFS would name it "." or refuse an empty root.
	t.Run("a file, not a folder", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "shop.yaml")
		if err := os.WriteFile(file, []byte("kind: sub_agent\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := definitions.Load(file)
		want := "definitions: " + file + " is a file, not a folder of agent definitions"
		if err == nil || err.Error() != want || errors.Is(err, definitions.ErrInvalid) {
			t.Errorf("Load(file) error = %v, want %q", err, want)
		}
	})
	t.Run("no folder named", func(t *testing.T) {
		_, err := definitions.Load("")
		want := "definitions: no agents folder named"
		if err == nil || err.Error() != want {
			t.Errorf(`Load("") error = %v, want %q`, err, want)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := definitions.Load(dir)
		want := []string{dir + ": no agent definitions (.yaml or .yml files) found"}
		if diff := cmp.Diff(want, problemLines(t, err)); diff != "" {
			t.Errorf("Load(empty) problems mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("error text", func(t *testing.T) {
		fsys := fstest.MapFS{
			"agents/a.yaml": {Data: []byte("kind: sub_agent\nid: A\ndescription: short\n")},
		}
		_, err := definitions.LoadFS(fsys, "agents")
		want := "agents/a.yaml:2: bad id \"A\": want 2-32 characters of a-z, 0-9 and _, starting with a letter\n" +
			"agents/a.yaml:3: description is too short (5 characters, want at least 20): say what the agent does and for which questions"
		if err == nil || err.Error() != want {
			t.Errorf("LoadFS() error =\n%v\nwant\n%s", err, want)
		}
	})
	// A misspelt required key is the cause: it is listed before the key it leaves missing,
	// and each file's problems stay together.
	t.Run("cause first", func(t *testing.T) {
		fsys := fstest.MapFS{
			"agents/a.yaml": {Data: []byte("kind: sub_agent\nid: alpha\nmodel: default\ndescripton: Answers alpha questions for tests.\n")},
			"agents/b.yaml": {Data: []byte("kind: sub_agent\nid: B\ndescription: Answers beta questions for tests.\n")},
		}
		_, err := definitions.LoadFS(fsys, "agents")
		want := []string{
			`agents/a.yaml:4: unknown key "descripton" (did you mean "description"?)`,
			`agents/a.yaml:1: description is required: it is what the orchestrator routes on; line 4 has the unknown key "descripton": rename it to "description"`,
			`agents/b.yaml:2: bad id "B": want 2-32 characters of a-z, 0-9 and _, starting with a letter`,
		}
		if diff := cmp.Diff(want, problemLines(t, err)); diff != "" {
			t.Errorf("LoadFS() problems mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestLoadFSCycles(t *testing.T) {
	const sub = "kind: sub_agent\nid: leaf\ndescription: Answers leaf questions for tests.\n"
	orch := func(id string, subs string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("kind: orchestrator\nid: " + id +
			"\ndescription: Routes questions for cycle tests.\nsub_agents:\n" + subs)}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{
			name: "nested orchestrators without a loop",
			fsys: fstest.MapFS{"leaf.yaml": {Data: []byte(sub)}, "top.yaml": orch("top", "  - mid\n"), "mid.yaml": orch("mid", "  - leaf\n")},
		},
		{
			name: "self loop",
			fsys: fstest.MapFS{"leaf.yaml": {Data: []byte(sub)}, "top.yaml": orch("top", "  - leaf\n  - top\n")},
			want: []string{"top.yaml:6: sub_agents cycle: top -> top"},
		},
		{
			name: "three orchestrators reported once",
			fsys: fstest.MapFS{
				"leaf.yaml": {Data: []byte(sub)},
				"aa.yaml":   orch("aa", "  - bb\n"),
				"bb.yaml":   orch("bb", "  - leaf\n  - cc\n"),
				"cc.yaml":   orch("cc", "  - aa\n"),
			},
			want: []string{"cc.yaml:5: sub_agents cycle: aa -> bb -> cc -> aa"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := definitions.LoadFS(tt.fsys, ".")
			if diff := cmp.Diff(tt.want, problemLines(t, err)); diff != "" {
				t.Errorf("LoadFS() problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
