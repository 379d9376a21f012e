package assembly

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// fakeKey is the API key the tests hand the service, as cmd would after resolving api_key_env.
// It is long enough for the model wrapper to redact it from error text.
const fakeKey = "sk-test-switchboard-5f0c1d2e3a4b"

// agentsDir is the repository's demo agents folder, the one `switchboard serve` loads.
const agentsDir = "../../demo"

// wire is one real provider protocol the service is tested over.
type wire struct {
	name      string
	provider  string
	model     string
	newServer func(testing.TB, ...llmtest.Step) *llmtest.Server
	// byName is set for protocols without tool call ids (Gemini): results travel under the
	// function's name, and the ids in the scripts never reach the wire.
	byName bool
	// streamsAll is set when the client posts every multi-message call to its streaming
	// endpoint, streaming callback or not (the Gemini Go client's chat session).
	streamsAll bool
}

var providerWires = []wire{
	{name: "openai", provider: llm.ProviderOpenAI, model: "gpt-test", newServer: llmtest.NewOpenAI},
	{name: "anthropic", provider: llm.ProviderAnthropic, model: "claude-test", newServer: llmtest.NewAnthropic},
	{name: "googleai", provider: llm.ProviderGoogleAI, model: "gemini-test", newServer: llmtest.NewGemini, byName: true, streamsAll: true},
}

// newProviderApp starts a fake provider with script and the whole service on top of it: every
// agent (the orchestrator and each sub-agent) uses the "default" alias, which points at the
// fake. Retries are 2 (three attempts) and one call may take 10 s.
func newProviderApp(t *testing.T, w wire, script ...llmtest.Step) (*testApp, *llmtest.Server) {
	t.Helper()
	fake := w.newServer(t, script...)
	ta := newTestApp(t, agentsDir, func(c *config.Config) {
		c.Models = map[string]llm.ModelConfig{
			llm.DefaultAlias: {
				Provider: w.provider, Model: w.model, BaseURL: fake.URL(), APIKey: fakeKey,
				Retries: 2, Timeout: 10 * time.Second,
			},
		}
	})
	return ta, fake
}

// yamlAgent is the part of an Agent Definition file these tests compare the wire against. It
// is decoded here with yaml.v3 directly, not through the definitions loader, so that "verbatim
// from the YAML" is checked against the file and not against our own reading of it.
type yamlAgent struct {
	Kind        string   `yaml:"kind"`
	ID          string   `yaml:"id"`
	Description string   `yaml:"description"`
	SubAgents   []string `yaml:"sub_agents"`
	FanOutCap   int      `yaml:"fan_out_cap"`
	Tools       []struct {
		Name string `yaml:"name"`
	} `yaml:"tools"`
}

// readAgents decodes every definition file of the agents folder, by id.
func readAgents(t *testing.T) map[string]yamlAgent {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(agentsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no definitions in %s: %v", agentsDir, err)
	}
	out := map[string]yamlAgent{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var a yamlAgent
		if err := yaml.Unmarshal(data, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[a.ID] = a
	}
	return out
}

// toolDesc is a tool as the provider saw it: name and description.
type toolDesc struct{ Name, Description string }

// askTools is what the orchestrator's LLM must be offered: one ask_<id> per sub-agent of the
// concierge, described verbatim by that sub-agent's description, sorted by name.
func askTools(agents map[string]yamlAgent) []toolDesc {
	var out []toolDesc
	for _, id := range agents["concierge"].SubAgents {
		out = append(out, toolDesc{Name: "ask_" + id, Description: agents[id].Description})
	}
	slices.SortFunc(out, func(a, b toolDesc) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func toolsOf(r llmtest.Request) []toolDesc {
	out := make([]toolDesc, len(r.Tools))
	for i, tl := range r.Tools {
		out[i] = toolDesc{Name: tl.Name, Description: tl.Description}
	}
	slices.SortFunc(out, func(a, b toolDesc) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func toolNames(r llmtest.Request) []string {
	out := make([]string, len(r.Tools))
	for i, tl := range r.Tools {
		out[i] = tl.Name
	}
	slices.Sort(out)
	return out
}

// byCaller splits recorded requests by who sent them: "orchestrator" for requests offering
// ask_ tools, otherwise the id of the sub-agent whose CCS tools are offered. A sub-agent's last
// step carries no tools; no test here lets a sub-agent run that far.
func byCaller(t *testing.T, agents map[string]yamlAgent, reqs []llmtest.Request) map[string][]llmtest.Request {
	t.Helper()
	owner := map[string]string{}
	for id, a := range agents {
		for _, tl := range a.Tools {
			owner[tl.Name] = id
		}
	}
	out := map[string][]llmtest.Request{}
	for i, r := range reqs {
		caller := ""
		for _, tl := range r.Tools {
			c := owner[tl.Name]
			if strings.HasPrefix(tl.Name, "ask_") {
				c = "orchestrator"
			}
			if c == "" || caller != "" && caller != c {
				t.Fatalf("request %d offers tools %v: not one caller's", i, toolNames(r))
			}
			caller = c
		}
		if caller == "" {
			t.Fatalf("request %d offers no tools: cannot tell who sent it", i)
		}
		out[caller] = append(out[caller], r)
	}
	return out
}

// systemText is the system prompt of a request: Anthropic's top-level system or Gemini's
// systemInstruction, or the OpenAI system message.
func systemText(r llmtest.Request) string {
	if r.System != "" {
		return r.System
	}
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Text
		}
	}
	return ""
}

// toolResults maps each tool result a request carries by the call id it answers, or by
// the function name on a wire without call ids (Gemini).
func toolResults(r llmtest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		for _, tr := range m.ToolResults {
			key := tr.CallID
			if key == "" {
				key = tr.Name
			}
			out[key] = tr.Content
		}
	}
	return out
}

// turnView is a streamed turn as a client sees it.
type turnView struct {
	events    []stream.WireEvent
	turnID    string
	deltas    []string
	completed string
	outcome   stream.Outcome
	statusBy  map[string]bool // sub-agents named as sources of status lines
	userTexts []string        // every text a user can read: status, deltas, reply, errors
}

func viewTurn(t *testing.T, events []stream.WireEvent) turnView {
	t.Helper()
	v := turnView{events: events, statusBy: map[string]bool{}}
	if len(events) == 0 {
		t.Fatal("empty event stream")
	}
	var lastID uint64
	for _, ev := range events {
		if ev.ID <= lastID {
			t.Errorf("event id %d after %d: ids must increase", ev.ID, lastID)
		}
		lastID = ev.ID
		switch ev.Name {
		case "turn.started":
			v.turnID = decode[stream.TurnStarted](t, ev).TurnID
		case "status":
			s := decode[stream.Status](t, ev)
			v.userTexts = append(v.userTexts, s.Text)
			for _, src := range s.Sources {
				v.statusBy[src.AgentID] = true
			}
		case "reply.delta":
			d := decode[stream.ReplyDelta](t, ev).Text
			v.deltas = append(v.deltas, d)
			v.userTexts = append(v.userTexts, d)
		case "reply.completed":
			v.completed = decode[stream.ReplyCompleted](t, ev).Text
			v.userTexts = append(v.userTexts, v.completed)
		case "error":
			v.userTexts = append(v.userTexts, decode[stream.Error](t, ev).Message)
		case "turn.completed":
			v.outcome = decode[stream.TurnCompleted](t, ev).Outcome
		}
	}
	if events[0].Name != "turn.started" || events[len(events)-1].Name != "turn.completed" {
		t.Errorf("stream runs %s..%s, want turn.started..turn.completed", events[0].Name, events[len(events)-1].Name)
	}
	return v
}

// count returns how many events are called name.
func (v turnView) count(name string) int {
	n := 0
	for _, ev := range v.events {
		if ev.Name == name {
			n++
		}
	}
	return n
}

// toolData decodes the data of a sub-agent tool result ({"status","note","data"}).
func toolData[T any](t *testing.T, content string) (status string, data T) {
	t.Helper()
	var res struct {
		Status string `json:"status"`
		Data   T      `json:"data"`
	}
	if err := json.Unmarshal([]byte(content), &res); err != nil {
		t.Fatalf("tool result %q is not the sub-agent's JSON: %v", content, err)
	}
	return res.Status, res.Data
}

// demoFor asks a fresh demo CCS, independent of the service's, what enricher returns for user:
// the reference for "this came from the CCS for alice" and "this is bob's data".
func demoFor[T any](t *testing.T, user principal.Principal, enricher string, params map[string]any) T {
	t.Helper()
	client, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL:    "http://ccs.reference",
		HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(ccsdemo.New(ccsdemo.Options{}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := ccs.NewRegistry()
	if err := ccsdemo.Register(reg); err != nil {
		t.Fatal(err)
	}
	raw, err := client.Enrich(t.Context(), ccs.EnricherRequest{Principal: user.String(), EnricherID: enricher, Params: params})
	if err != nil {
		t.Fatalf("reference demo CCS %s for %s: %v", enricher, user, err)
	}
	resp, err := ccs.Unwrap[T](reg, raw)
	if err != nil {
		t.Fatalf("reference demo CCS %s for %s: %v", enricher, user, err)
	}
	return resp.Payload
}

func offerTitles(l ccsdemo.OfferList) []string {
	out := make([]string, len(l.Offers))
	for i, o := range l.Offers {
		out[i] = o.Title
	}
	return out
}

// hostOf is the host[:port] of a URL.
func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// requestText is every text a request hands the model: system prompt, messages, tool call
// arguments and tool results.
func requestText(r llmtest.Request) string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		b.WriteString("\n" + m.Text)
		for _, c := range m.ToolCalls {
			b.WriteString("\n" + c.Arguments)
		}
		for _, tr := range m.ToolResults {
			b.WriteString("\n" + tr.Content)
		}
	}
	return b.String()
}

// containsAny returns the first needle found in s, as written or JSON-escaped (tool results
// are JSON, so a title with a quote appears escaped), or "".
func containsAny(s string, needles ...string) string {
	for _, n := range needles {
		if n == "" {
			continue
		}
		esc, _ := json.Marshal(n)
		if strings.Contains(s, n) || strings.Contains(s, strings.Trim(string(esc), `"`)) {
			return n
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// routing is the comparable part of a stored routing record: latencies and start times left out.
type routing struct {
	Invoked      []string
	Dropped      []string
	IntentCount  int
	Cap          int
	CapBehaviour string
	Outcomes     map[string]ask.Outcome // by agent
}

func routingOf(d *orchestrator.Decision) routing {
	r := routing{Invoked: d.Invoked, Dropped: d.Dropped, IntentCount: d.IntentCount, Cap: d.Cap,
		CapBehaviour: d.CapBehaviour, Outcomes: map[string]ask.Outcome{}}
	for _, a := range d.Agents {
		r.Outcomes[a.Agent] = a.Outcome
	}
	return r
}
