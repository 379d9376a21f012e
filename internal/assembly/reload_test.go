package assembly

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/config"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	// Written beside and renamed into place, as editors save: the watcher must see the whole
	// file, never a half-written one.
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	writeFile(t, path, strings.Replace(string(b), old, new, 1))
}

// readyDefinitions is the "definitions" part of /readyz.
type readyDefinitions struct {
	Agents     int `json:"agents"`
	LastReload *struct {
		Result string `json:"result"`
	} `json:"last_reload"`
	Problems []string `json:"problems"`
}

func (ta *testApp) readyDefinitions(t *testing.T) readyDefinitions {
	t.Helper()
	resp := ta.do(t, http.MethodGet, "/readyz", "", nil, nil)
	var body map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	raw := body["definitions"]
	if raw == nil {
		// /readyz may nest its details; look one level down.
		var detail map[string]json.RawMessage
		_ = json.Unmarshal(body["detail"], &detail)
		raw = detail["definitions"]
	}
	var d readyDefinitions
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("/readyz definitions %s: %v", raw, err)
	}
	return d
}

func (ta *testApp) skills(t *testing.T) []string {
	t.Helper()
	resp := ta.do(t, http.MethodGet, "/.well-known/agent-card.json", "", nil, nil)
	var card struct {
		Skills []struct {
			ID string `json:"id"`
		} `json:"skills"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range card.Skills {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

// waitFor polls cond until it holds: the watcher reloads on its own schedule (a debounce after
// the file event), which the test cannot signal. The bound only keeps a broken watcher from
// hanging the suite.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const gardenAgent = `kind: sub_agent
id: garden
name: Garden
description: Answers questions about the user's garden plants, watering and pruning.
examples:
  - when should I water my tomatoes
  - how do I prune roses
tools:
  - name: plant_care
    description: Care schedule for the user's plants.
    enricher: garden.plant_care.v1
    domain_type: garden
`

// Add, change and break agent files under a running server: good sets replace the old one
// for new turns and on the agent card; a broken file keeps the last good set and says why.
func TestWatchReloadsAgentDefinitions(t *testing.T) {
	dir := copyAgents(t, nil)
	ta := newTestApp(t, dir, nil)
	if err := ta.Watch(t.Context()); err != nil {
		t.Fatalf("Watch() = %v", err)
	}
	orchestrator := filepath.Join(dir, "concierge.yaml")
	tok := ta.token(t, "alice")
	all := []string{"rewards", "shop", "support", "travel"}
	if got := ta.skills(t); !slices.Equal(got, all) {
		t.Fatalf("skills at start = %v, want %v", got, all)
	}

	// Change: the orchestrator drops travel.
	editFile(t, orchestrator, "sub_agents: [shop, rewards, support, travel]", "sub_agents: [shop, rewards, support]")
	waitFor(t, "travel to leave the agent card", func() bool { return !slices.Contains(ta.skills(t), "travel") })
	for _, d := range ta.Service.Orchestrator().SubAgents() {
		if d.ID == "travel" {
			t.Error("new turns still see travel after the reload")
		}
	}

	// Add: a new agent file and its place in the orchestrator.
	writeFile(t, filepath.Join(dir, "garden.yaml"), gardenAgent)
	editFile(t, orchestrator, "sub_agents: [shop, rewards, support]", "sub_agents: [shop, rewards, support, garden]")
	waitFor(t, "garden on the agent card", func() bool { return slices.Contains(ta.skills(t), "garden") })

	// Break: a YAML syntax error in one file keeps the last good set and reports the file.
	before := ta.Service.Orchestrator()
	writeFile(t, filepath.Join(dir, "shop.yaml"), "kind: sub_agent\nid: shop\ndescription: [unclosed\n")
	waitFor(t, "the failed reload in /readyz", func() bool {
		d := ta.readyDefinitions(t)
		return d.LastReload != nil && d.LastReload.Result == "error"
	})
	d := ta.readyDefinitions(t)
	if len(d.Problems) == 0 || !strings.Contains(d.Problems[0], "shop.yaml:") {
		t.Errorf("/readyz problems = %q, want the broken file with its line", d.Problems)
	}
	if ta.Service.Orchestrator() != before {
		t.Error("a broken file replaced the running set")
	}
	if got, want := ta.skills(t), []string{"garden", "rewards", "shop", "support"}; !slices.Equal(got, want) {
		t.Errorf("skills after a broken file = %v, want the last good set %v", got, want)
	}
	// The service still answers with the last good set.
	events := ta.streamTurn(t, tok, "", "how many points do I have?")
	if last := events[len(events)-1]; last.Name != "turn.completed" || !strings.Contains(string(last.Data), `"ok"`) {
		t.Errorf("turn after a broken reload ended with %s %s", last.Name, last.Data)
	}

	// Mending the file reloads again and clears the problems.
	b, err := os.ReadFile("../../demo/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "shop.yaml"), string(b))
	waitFor(t, "a good reload after the fix", func() bool {
		d := ta.readyDefinitions(t)
		return d.LastReload != nil && d.LastReload.Result == "ok" && len(d.Problems) == 0
	})
}

// A file changed after the folder was loaded and before the watcher started makes no event of
// its own (serve loads the agents, then builds the rest of the service, then watches): Watch
// still reloads, so the folder on disk and the set in use do not stay apart until the next
// save.
func TestWatchReloadsAChangeMadeBeforeIt(t *testing.T) {
	dir := copyAgents(t, nil)
	ta := newTestApp(t, dir, nil)
	writeFile(t, filepath.Join(dir, "shop.yaml"), "kind: sub_agent\nid: shop\ndescription: [unclosed\n")
	if err := ta.Watch(t.Context()); err != nil {
		t.Fatalf("Watch() = %v", err)
	}
	waitFor(t, "the failed reload of the file broken before Watch in /readyz", func() bool {
		d := ta.readyDefinitions(t)
		return d.LastReload != nil && d.LastReload.Result == "error"
	})
	if d := ta.readyDefinitions(t); len(d.Problems) == 0 || !strings.Contains(d.Problems[0], "shop.yaml:") {
		t.Errorf("/readyz problems = %q, want the broken file with its line", d.Problems)
	}
}

// Reload is what SIGHUP calls; it reports a broken set as an error.
func TestReloadReportsProblems(t *testing.T) {
	dir := copyAgents(t, nil)
	ta := newTestApp(t, dir, nil)
	if err := ta.Reload(t.Context()); err != nil {
		t.Fatalf("Reload() of an unchanged folder = %v", err)
	}
	editFile(t, filepath.Join(dir, "concierge.yaml"), "sub_agents: [shop, rewards, support, travel]", "sub_agents: [shop, rewards, support, travel, nosuch]")
	err := ta.Reload(t.Context())
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("Reload() with an unknown sub-agent = %v, want an error naming it", err)
	}
}

// A Watch after Close refuses to start: its watcher would outlive the service it reloads.
func TestWatchAfterCloseRefuses(t *testing.T) {
	dir := copyAgents(t, nil)
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	a, err := New(t.Context(), Input{Config: &cfg, Agents: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Watch(t.Context()); err == nil {
		t.Error("Watch() after Close = nil, want an error")
	}
}
