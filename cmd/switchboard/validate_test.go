package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoAgentsIn copies the demo agents into dir, with extra listed in the concierge's
// sub_agents, and returns dir.
func demoAgentsIn(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	for _, name := range []string{"concierge.yaml", "shop.yaml", "rewards.yaml", "support.yaml", "travel.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../demo", name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if name == "concierge.yaml" && len(extra) > 0 {
			const list = "sub_agents: [shop, rewards, support, travel]"
			if !strings.Contains(s, list) {
				t.Fatalf("the demo's concierge.yaml has no %q line to extend", list)
			}
			s = strings.Replace(s, list, "sub_agents: [shop, rewards, support, travel, "+strings.Join(extra, ", ")+"]", 1)
		}
		writeTestFile(t, filepath.Join(dir, name), s)
	}
	return dir
}

// runValidate runs "switchboard validate" with args and returns its exit code and output.
func runValidate(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), append([]string{"validate"}, args...), &out, &errOut, envMap(nil))
	return code, out.String() + errOut.String()
}

const notesAgent = `kind: sub_agent
id: notes
description: Lists the user's notes and reminders, and finds a note by its words.
tools:
  - name: list_notes
    enricher: notes.list
    domain_type: note_list
    description: List the user's notes.
`

// A fixture whose domain_type is not its tool's passed validate, and then every answer of it
// was rejected at run time: validate names the fixture's line and both names.
func TestValidateFixtureDomainType(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "notes")
	writeTestFile(t, filepath.Join(dir, "notes.yaml"), notesAgent)
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, "fixtures", "notes.list.json")
	writeTestFile(t, fixture, "{\n  \"payload\": {\"notes\": [{\"title\": \"Buy milk\"}]},\n  \"domain_type\": \"notes\"\n}\n")

	code, out := runValidate(t, "--agents", dir)
	want := filepath.Join(dir, "fixtures", "notes.list.json") + `:3: domain_type "notes" is not the domain_type "note_list" of tool list_notes (` +
		filepath.Join(dir, "notes.yaml") + `), so the agent would reject every answer of this fixture: write "domain_type": "note_list" here, or domain_type: notes in the tool`
	if code != 1 || !strings.Contains(out, want+"\n") {
		t.Errorf("validate = %d, want 1 and the line\n%s\ngot:\n%s", code, want, out)
	}
	if strings.Contains(out, "definitions OK") {
		t.Errorf("validate says OK although it found a problem:\n%s", out)
	}

	writeTestFile(t, fixture, `{"domain_type": "note_list", "payload": {"notes": []}}`)
	if code, out := runValidate(t, "--agents", dir); code != 0 || strings.Contains(out, "domain_type") || !strings.Contains(out, "definitions OK") {
		t.Errorf("validate = %d after the fix, want 0 and no domain_type problem:\n%s", code, out)
	}
}

// A fixture that cannot be read is a problem at its file and line, named as the definitions'
// problems are; it was "ccsdemo: fixture fixtures/notes.list.json: invalid character ...",
// relative to the agents folder and with no line.
func TestValidateBrokenFixture(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "notes")
	writeTestFile(t, filepath.Join(dir, "notes.yaml"), notesAgent)
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "fixtures", "notes.list.json"), "{\n  \"domain_type\": \"note_list\",\n  \"payload\": {\"notes\": [}\n}\n")
	code, out := runValidate(t, "--agents", dir)
	want := filepath.Join(dir, "fixtures", "notes.list.json") + ":3: invalid character '}' looking for beginning of value\n"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "1 problem(s) in "+dir) {
		t.Errorf("validate = %d, want 1, the line\n%sand the count; got:\n%s", code, want, out)
	}
}

// A tool on one of the demo CCS's own enrichers must expect the domain type the demo answers
// with; the problem is the tool's, as the demo's enricher cannot be changed.
func TestValidateDemoEnricherDomainType(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "deals")
	writeTestFile(t, filepath.Join(dir, "deals.yaml"), `kind: sub_agent
id: deals
description: Finds the best deals and offers for the user right now.
tools:
  - name: search
    enricher: offers.search
    domain_type: offers
    description: Search offers.
`)
	code, out := runValidate(t, "--agents", dir)
	want := filepath.Join(dir, "deals.yaml") + `: tool search: domain_type "offers" is not "offer_list", the domain type the demo CCS answers enricher offers.search with`
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("validate = %d, want 1 and\n%s\ngot:\n%s", code, want, out)
	}
}

func TestJSONKeyLine(t *testing.T) {
	tests := []struct {
		name string
		data string
		want int
	}{
		{"first line", `{"domain_type": "x"}`, 1},
		{"third line", "{\n  \"payload\": {\"domain_type\": \"nested\"},\n  \"domain_type\": \"x\"\n}", 3},
		{"nested only", "{\"payload\": {\n\"domain_type\": \"x\"}}", 0},
		{"not an object", `["domain_type"]`, 0},
		{"broken", "{\"payload\": \n", 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonKeyLine([]byte(tt.data), "domain_type"); got != tt.want {
				t.Errorf("jsonKeyLine(%q) = %d, want %d", tt.data, got, tt.want)
			}
		})
	}
}

// FuzzJSONKeyLine: a fixture file is the user's text; its line is on the file or 0.
func FuzzJSONKeyLine(f *testing.F) {
	f.Add([]byte(`{"domain_type": "x"}`))
	f.Add([]byte("{\n\"a\": [1, {\"domain_type\": 2}],\n\"domain_type\": null}"))
	f.Add([]byte(`{"domain_type"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, lines := jsonKeyLine(data, "domain_type"), 1+bytes.Count(data, []byte("\n")); got < 0 || got > lines {
			t.Errorf("jsonKeyLine(%q) = %d, want 0..%d", data, got, lines)
		}
	})
}

// enabled: naming a flag the config does not set keeps the agent out, which is easy to miss:
// validate warns with --config, and without one notes what the agent depends on; neither
// fails.
func TestValidateUnsetFlag(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "notes")
	writeTestFile(t, filepath.Join(dir, "notes.yaml"), strings.Replace(notesAgent, "kind: sub_agent\n", "kind: sub_agent\nenabled: new_notes\n", 1))
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "fixtures", "notes.list.json"), `{"domain_type": "note_list", "payload": {"notes": []}}`)
	config := func(flags string) string {
		path := filepath.Join(t.TempDir(), "switchboard.yaml")
		writeTestFile(t, path, "flags: "+flags+"\n")
		return path
	}
	notes := filepath.Join(dir, "notes.yaml")
	unset, off := config("{new_dining: true}"), config("{new_notes: false}")
	for _, tc := range []struct {
		name string
		args []string
		want string // a line of the output; "" for no line about the flag
	}{
		{"flag not in the config", []string{"--config", unset},
			"warning: " + notes + ": agent notes is disabled: flag new_notes is not set in the config's flags (" + unset + "); set new_notes: true under flags: to turn the agent on, or new_notes: false to keep it off"},
		{"flag set in the config", []string{"--config", off}, ""},
		{"no config", nil,
			"note: " + notes + ": agent notes is enabled only when flag new_notes is true in the config's flags; without --config no flag is set, so serve would leave it out: pass --config to check it against yours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runValidate(t, append([]string{"--agents", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("validate = %d, want 0 (a flag is no problem):\n%s", code, out)
			}
			switch {
			case tc.want == "" && strings.Contains(out, "new_notes"):
				t.Errorf("validate output names the flag, want nothing about it:\n%s", out)
			case tc.want != "" && !strings.Contains(out, tc.want+"\n"):
				t.Errorf("validate output lacks the line\n%s\ngot:\n%s", tc.want, out)
			}
		})
	}
}

// validate prints the cause first: the misspelt key, then the required key it leaves missing.
func TestValidatePrintsCauseFirst(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "notes")
	writeTestFile(t, filepath.Join(dir, "notes.yaml"), strings.Replace(notesAgent, "description: Lists", "descripton: Lists", 1))
	code, out := runValidate(t, "--agents", dir)
	file := filepath.Join(dir, "notes.yaml")
	want := file + `:3: unknown key "descripton" (did you mean "description"?)` + "\n" +
		file + `:1: description is required: it is what the orchestrator routes on; line 3 has the unknown key "descripton": rename it to "description"` + "\n"
	if code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("validate = %d, want 1 and first\n%s\ngot:\n%s", code, want, out)
	}
}

// SWITCHBOARD_CCS_URL points serve at a real CCS; validate read only the config file and
// still checked the enrichers against the demo CCS, warning about tools a real CCS answers.
func TestValidateAppliesCCSURLFromEnvironment(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir(), "notes")
	writeTestFile(t, filepath.Join(dir, "notes.yaml"), notesAgent) // no fixture: the demo CCS cannot answer notes.list
	const unanswered = `enricher "notes.list" has no fixture`
	for _, tc := range []struct {
		name     string
		env      map[string]string
		wantWarn bool
	}{
		{"embedded", nil, true},
		{"real CCS from the environment", map[string]string{"SWITCHBOARD_CCS_URL": "https://ccs.example.com"}, false},
		{"embedded from the environment", map[string]string{"SWITCHBOARD_CCS_URL": "embedded"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{"validate", "--agents", dir}, &out, &errOut, envMap(tc.env))
			if code != 0 {
				t.Fatalf("validate = %d, want 0:\n%s%s", code, out.String(), errOut.String())
			}
			if got := strings.Contains(out.String(), unanswered); got != tc.wantWarn {
				t.Errorf("validate warns %q: %v, want %v; output:\n%s", unanswered, got, tc.wantWarn, out.String())
			}
		})
	}
}

// A malformed override fails validate as it fails serve, naming the variable.
func TestValidateRefusesBadOverride(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"validate", "--agents", demoAgentsIn(t, t.TempDir())}, &out, &errOut,
		envMap(map[string]string{"SWITCHBOARD_TURNS_DEADLINE": "soon"}))
	if code == 0 || !strings.Contains(errOut.String(), "SWITCHBOARD_TURNS_DEADLINE") {
		t.Errorf("validate = %d, want non-zero and SWITCHBOARD_TURNS_DEADLINE named; stderr:\n%s", code, errOut.String())
	}
}

// validate said OK for a config whose orchestrator serve then refused to start with: one that
// is not in the folder, or none chosen among several.
func TestValidateChecksTheOrchestrator(t *testing.T) {
	dir := demoAgentsIn(t, t.TempDir())
	config := func(yaml string) string {
		path := filepath.Join(t.TempDir(), "switchboard.yaml")
		writeTestFile(t, path, yaml)
		return path
	}
	nope, concierge := config("orchestrator: nope\n"), config("orchestrator: concierge\n")
	two := demoAgentsIn(t, t.TempDir())
	b, err := os.ReadFile(filepath.Join(two, "concierge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(two, "concierge2.yaml"), strings.Replace(string(b), "id: concierge", "id: concierge2", 1))
	for _, tc := range []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		want     string // a line of stdout; "" for none
	}{
		{"config names it", []string{"--agents", dir, "--config", concierge}, nil, 0, ""},
		{"config names a missing one", []string{"--agents", dir, "--config", nope}, nil, 1,
			nope + `: serve would refuse to start: no orchestrator "nope" in the agents folder`},
		{"environment names a missing one", []string{"--agents", dir}, map[string]string{"SWITCHBOARD_ORCHESTRATOR": "nope"}, 1,
			`SWITCHBOARD_ORCHESTRATOR: serve would refuse to start: no orchestrator "nope" in the agents folder`},
		{"several, none chosen", []string{"--agents", two}, nil, 1,
			"the agents folder (no --config): serve would refuse to start: the agents folder has several orchestrators: choose one with `orchestrator:` in the config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), append([]string{"validate"}, tc.args...), &out, &errOut, envMap(tc.env))
			if code != tc.wantCode || (tc.want != "" && !strings.Contains(out.String(), tc.want+"\n")) {
				t.Errorf("validate = %d, want %d and the line\n%s\ngot:\n%s%s", code, tc.wantCode, tc.want, out.String(), errOut.String())
			}
			if tc.wantCode != 0 && strings.Contains(out.String(), "definitions OK") {
				t.Errorf("validate says OK although serve would refuse to start:\n%s", out.String())
			}
		})
	}
}
