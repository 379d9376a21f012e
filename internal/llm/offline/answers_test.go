package offline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/evals"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// answerCase is one conversation of an answer set: the eval dataset format, read here for
// the fields this test checks.
type answerCase struct {
	ID    string `yaml:"id"`
	User  string `yaml:"user"`
	Turns []struct {
		User     string   `yaml:"user"`
		Expect   []string `yaml:"expect"`
		Mentions []string `yaml:"reply_mentions"`
		Excludes []string `yaml:"reply_excludes"`
	} `yaml:"turns"`
}

// TestAnswers runs the development answer sets through the whole service in process (the
// orchestrator and sub-agents on the offline model, the demo CCS answering from the agents'
// fixtures) and checks, per turn, where it went and what the reply says. dev.yaml must pass
// at least minDev turns; dev2.yaml, written later as users ask and not all answered yet, must pass at
// least minDev2 turns, its misses logged; dev3.yaml likewise at least minDev3, dev4.yaml at
// least minDev4, dev5.yaml at least minDev5, dev6.yaml at least minDev6 and dev7.yaml at
// least minDev7.
func TestAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole service")
	}
	for _, set := range []struct {
		name string
		min  int
	}{{"dev", minDev}, {"dev2", minDev2}, {"dev3", minDev3}, {"dev4", minDev4}, {"dev5", minDev5}, {"dev6", minDev6}, {"dev7", minDev7}} {
		t.Run(set.name, func(t *testing.T) {
			passed, total := runAnswerSet(t, "testdata/answers/agents", "testdata/answers/"+set.name+".yaml", t.Logf)
			t.Logf("%s: %d of %d turns pass", set.name, passed, total)
			if passed < set.min {
				t.Errorf("%s: %d of %d turns pass, want at least %d", set.name, passed, total, set.min)
			}
		})
	}
}

// TestAnswersRouted plays the answer sets with every turn sent to the agents it expects, so
// that what the replies say is measured apart from where routing sends them: a turn routing
// misses still has its reply checked, as the agent it was meant for composes it.
func TestAnswersRouted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole service")
	}
	for _, set := range []struct {
		name string
		min  int
	}{{"dev2", minRoutedDev2}, {"dev3", minRoutedDev3}, {"dev4", minRoutedDev4}, {"dev5", minRoutedDev5}, {"dev6", minRoutedDev6}, {"dev7", minRoutedDev7}} {
		t.Run(set.name, func(t *testing.T) {
			passed, total := runRoutedSet(t, "testdata/answers/agents", "testdata/answers/"+set.name+".yaml", t.Logf)
			t.Logf("%s routed: %d of %d replies pass", set.name, passed, total)
			if passed < set.min {
				t.Errorf("%s routed: %d of %d replies pass, want at least %d", set.name, passed, total, set.min)
			}
		})
	}
}

// The replies of each set that pass today when every turn reaches the agents it expects: a
// change that answers fewer fails. When dev5 was written they were 24, 36, 55 and 53; dev4 58
// and dev5 71 (from 57 and 67) once a request whose words chose no tool went to the tool it is
// about rather than the first; dev4 59 once a value restating the tool ("cupons") was left out;
// dev2 26, dev4 61 and dev5 75 once initials read as the tool's words ("pto"), a required place
// was no longer filled with the tools' own words ("which hotel am i at"), a phrase ending on a
// thing no data holds was said to be missing ("my credit score"), a state after "in" said
// which records ("loans in default"), a question where showed addresses first, a qualifying
// word picked the record whose name means it ("the house policy") and a follow-up took the
// records its earlier words named. dev6's four agents joining cost dev4 one (60: a follow-up
// in another agent's words now reads another tool); dev5 76 once a closed record beside open
// ones was left out; dev6, 76 when written, see minDev6. dev4 61 and dev6 94 once words
// held nowhere were no missing thing beside another clause of the request; dev2 27 and dev4
// 62 once a thing no record names was no missing record when the request named a value one
// holds. dev7, 41 when written, see minDev7; dev6 95 once a word clipping a key of the data
// ("cancel" of "cancellation") was read as that key; dev6 96 once a follow-up naming no thing
// ("how many am i getting") read its earlier words for the facts asked; dev4 64 once a question
// whether of a thing no tool's data holds ("do they help with potty training") said so.
const (
	minRoutedDev2 = 27
	minRoutedDev3 = 37
	minRoutedDev4 = 64
	minRoutedDev5 = 76
	minRoutedDev6 = 96
	minRoutedDev7 = 56
)

// minDev is how many turns of dev.yaml pass today. Every turn passed until dev6's four agents
// joined: with a tax preparer among the agents, "what's the status of my return?" no longer
// reaches support.
const minDev = 32

// minDev2 is how many turns of dev2.yaml pass today, with the twelve verticals of dev3.yaml,
// dev4.yaml and dev5.yaml competing for its turns: a change that answers fewer fails. It was
// 20 before dev5's four agents joined: "when is project hail mary due back" (and its
// follow-up) now goes to renovation, whose tools speak of the project; 19 once a word
// qualifying a list's noun picked the record whose name means it ("the house policy").
const minDev2 = 19

// minDev3 is how many turns of dev3.yaml pass today: a change that answers fewer fails.
const minDev3 = 33

// minDev4 is how many turns of dev4.yaml, written before any model change of its round, pass
// today: a change that answers fewer fails. It was 23 before the routing changes made beside
// the set's writing, which never saw it: 22 after, "how much did i get back for the
// ultraboosts" going to shop now that "back" alone is no evidence for support; 35 after the
// answering changes made beside it, which were tuned on it once it landed; 36 once records
// that lapsed (an expired permit) stopped being shown beside those in force; 37 once a verb
// asked for the field its noun names ("how much to renew", the renewal fee); 39 once a unit
// in a field's name followed its number ("used this year 2 days"); 40 once a result holding
// only the day asked for sent the sub-agent to its other tools; 42 once a month spelled out in
// a record ("November 2026") named it before a date in that month did; 43 once a follow-up in
// the trade's words only ("isn't that covered") was checked against the earlier request's; 45
// once a question when of an object that names none of its facts was answered by its dates
// ("till when can i spend it"); 46 once an argument restating its tool ("any cupons for runing
// shoes") was left out; 47 once a required place was no longer filled with the tools' own
// words ("and which hotel am i at").
//
// dev6's four agents joining took it to 43: a rental car's scratch claim goes to the movers'
// damage claims, "guest passes" to coworking, a pickup time and a teacher question elsewhere;
// 45 once a question whether of a thing no tool's data holds ("do i have a rental lined up in
// miami") said so.
const minDev4 = 45

// minDev5 is how many turns of dev5.yaml, written before any model change of its round over
// four verticals with no answer templates, pass today: a change that answers fewer fails. It
// was 36 when the set was written (53 of its 83 replies right with every turn routed right,
// see TestAnswersRouted); most of the turns it still misses are routed elsewhere, or to the
// right agent's other tool. It was 44 before a request whose words chose no tool went to the
// tool it is about rather than the first; 46 once a state after "in" said which records
// ("are any of my loans in default"); 45 once dev6's four agents joined ("is my evergreen credit
// union loan paid off" goes to the solar loan); 46 (routed 76) once a closed record beside
// open ones was left out when the request named none; 42 once dev7's four agents joined ("whats
// my 401k contributon set at" goes to the pension, "are my covid test results in" to hearing),
// 45 once the hearing clinic and the dorms described themselves in their own words, 46 with
// the router's eighth round.
const minDev5 = 46

// minDev6 is how many turns of dev6.yaml, written before any model change of its round over
// four verticals with no answer templates or tool examples (solar, coworking, movers,
// taxprep), pass today: a change that answers fewer fails. It was 48 of 121 when the set was
// written (76 with every turn routed right, see TestAnswersRouted). It rose, end to end and
// routed, as timestamps to the minute and machine months read as dates (50, 79), a date read
// as "until" kept its member's name (51, 81), a long list no search chose gave the record
// named (52, 84), the called tool's word named no amount (routed 85), a code typed without
// its marks named its record (routed 86), "still" asked for what is not over (53, 87), who
// acts was no missing thing (routed 88), a name joined by "&" named its record (54, 89) and a
// list of things holding the one named was the fact asked about (routed 90), and a follow-up's
// earlier words kept their codes and the one record asked about showed all it holds (55, 91),
// and a noun for who does an act named the data's word for the act (routed 92; 56, 93 once
// the act's final e was allowed for). dev7's four agents joining took it to 50 (a tax review
// appointment and "when will i hear back" go to hearing, a cancelled room's charge to the dorms),
// 52 once the hearing clinic and the dorms described themselves in their own words, 53 with
// the router's eighth round.
const minDev6 = 53

// minDev7 is how many turns of dev7.yaml, written before any model change of its round over
// four verticals with no answer templates (pension, hearing, fuelcards, dorms), pass today: a
// change that answers fewer fails. It was 32 of 66 when the set was written (41 with every turn
// routed right, see TestAnswersRouted). It rose, end to end and routed, as dates kept their
// year in lists (34, 43), an id asked for by its key's words was shown (35, 44), a month named
// the record for it before one paid in it (36, 45), an amount stated named its record (routed
// 46), facts named by two words were the answer beside a list (37, 47), a word ending in -ing
// the data holds counted as held (38, 48), a clipped word read as the data's key (routed 49),
// initials in capitals were spelled out (routed 50), a member named inside a list item's
// object was shown (routed 51), a price asked with no label saying it read the amounts (39,
// 52), a stated number named the record holding it as a word (40, 53) and a follow-up naming
// nothing was answered by the list its earlier words named (41, 54), and a little word that
// is a record's whole value named it ("my right hearing aid": 42, 55); routed 56 once a price
// asked of a record that holds none was said not to be there.
const minDev7 = 42

// runRoutedSet plays every case of the set at file like runAnswerSet, with the orchestrator's
// routing replaced by the turn's expected agents, and checks only the replies.
func runRoutedSet(t *testing.T, dir, file string, miss func(format string, args ...any)) (passed, total int) {
	t.Helper()
	m := &routedModel{Model: offline.New()}
	target := serviceTargetWith(t, dir, m)
	for _, c := range readAnswerSet(t, file) {
		user := c.User
		if user == "" {
			user = "alice"
		}
		episode, previous := "", ""
		for i, turn := range c.Turns {
			total++
			m.want, m.earlier, m.tools = turn.Expect, previous, nil
			out, err := target.Turn(t.Context(), evals.TurnInput{User: user, EpisodeID: episode, Message: turn.User})
			if err != nil {
				t.Fatalf("%s turn %d: %v", c.ID, i+1, err)
			}
			episode, previous = out.EpisodeID, turn.User
			problems := replyProblems(out.Reply, turn.Mentions, turn.Excludes)
			for _, problem := range problems {
				miss("%s turn %d %q: %s; tools %v; reply:\n%s", c.ID, i+1, turn.User, problem, m.tools, out.Reply)
			}
			if len(problems) == 0 {
				passed++
			}
		}
	}
	return passed, total
}

// routedModel is the offline model with its routing overruled: an orchestrator request for a
// new user message is sent to the agents in want, as a follow-up of earlier when there is one
// and the model did not route it there itself.
type routedModel struct {
	*offline.Model
	want    []string
	earlier string
	mu      sync.Mutex
	tools   []string // the sub-agents' tool calls of the turn, logged with a miss
}

func (m *routedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	routing := len(o.Tools) > 0 && o.Tools[0].Function != nil && strings.HasPrefix(o.Tools[0].Function.Name, lang.RoutePrefix)
	if err == nil && !routing && len(resp.Choices) > 0 {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, call := range resp.Choices[0].ToolCalls {
			m.tools = append(m.tools, call.FunctionCall.Name+call.FunctionCall.Arguments)
		}
	}
	if err != nil || !routing || len(msgs) == 0 || msgs[len(msgs)-1].Role != llms.ChatMessageTypeHuman || len(resp.Choices) == 0 {
		return resp, err
	}
	choice := resp.Choices[0]
	var got []string
	for _, call := range choice.ToolCalls {
		got = append(got, strings.TrimPrefix(call.FunctionCall.Name, lang.RoutePrefix))
	}
	if sameAgents(got, m.want) {
		return resp, nil
	}
	request := humanText(msgs[len(msgs)-1])
	if m.earlier != "" {
		request += " " + lang.EarlierMarker + " " + m.earlier + ")"
	}
	args, _ := json.Marshal(map[string]string{"request": request})
	choice.Content, choice.ToolCalls = "", nil
	for i, agent := range m.want {
		choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: fmt.Sprintf("routed_%d", i+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: lang.RoutePrefix + agent, Arguments: string(args)}})
	}
	return resp, nil
}

func humanText(msg llms.MessageContent) string {
	var parts []string
	for _, p := range msg.Parts {
		if text, ok := p.(llms.TextContent); ok {
			parts = append(parts, text.Text)
		}
	}
	return strings.Join(parts, " ")
}

// readAnswerSet reads the cases of the answer set at file.
func readAnswerSet(t *testing.T, file string) []answerCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Cases []answerCase `yaml:"cases"`
	}
	if err := yaml.Unmarshal(data, &set); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return set.Cases
}

// runAnswerSet plays every case of the set at file over the agents in dir, reports each
// miss through miss, and returns how many turns passed of how many.
func runAnswerSet(t *testing.T, dir, file string, miss func(format string, args ...any)) (passed, total int) {
	t.Helper()
	target := serviceTarget(t, dir)
	for _, c := range readAnswerSet(t, file) {
		user := c.User
		if user == "" {
			user = "alice"
		}
		episode := ""
		for i, turn := range c.Turns {
			total++
			out, err := target.Turn(t.Context(), evals.TurnInput{User: user, EpisodeID: episode, Message: turn.User})
			if err != nil {
				t.Fatalf("%s turn %d: %v", c.ID, i+1, err)
			}
			episode = out.EpisodeID
			var invoked []string
			if out.Decision != nil {
				invoked = out.Decision.Invoked
			}
			ok := true
			if !sameAgents(invoked, turn.Expect) {
				ok = false
				miss("%s turn %d %q went to %v, want %v", c.ID, i+1, turn.User, invoked, turn.Expect)
			}
			for _, problem := range replyProblems(out.Reply, turn.Mentions, turn.Excludes) {
				ok = false
				miss("%s turn %d %q: %s; reply:\n%s", c.ID, i+1, turn.User, problem, out.Reply)
			}
			if ok {
				passed++
			}
		}
	}
	return passed, total
}

func sameAgents(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

var spaces = regexp.MustCompile(`\s+`)

// replyProblems checks a reply the way reply_mentions and reply_excludes are scored: each
// entry case-insensitive with whitespace collapsed, "a|b" accepting either.
func replyProblems(reply string, mentions, excludes []string) []string {
	norm := func(s string) string { return strings.ToLower(spaces.ReplaceAllString(strings.TrimSpace(s), " ")) }
	r := norm(reply)
	has := func(entry string) bool {
		for _, alt := range strings.Split(entry, "|") {
			if a := norm(alt); a != "" && strings.Contains(r, a) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, m := range mentions {
		if !has(m) {
			out = append(out, "reply does not mention "+m)
		}
	}
	for _, x := range excludes {
		if has(x) {
			out = append(out, "reply mentions "+x)
		}
	}
	return out
}

// answerSetsDay is the day the answer sets were written: see serviceTargetWith.
var answerSetsDay = time.Date(2026, time.November, 27, 12, 0, 0, 0, time.UTC)

// serviceTarget builds the service over the agents in dir, with everything embedded.
func serviceTarget(t *testing.T, dir string) *evals.ServiceTarget {
	t.Helper()
	return serviceTargetWith(t, dir, nil)
}

// serviceTargetWith builds the service over the agents in dir with model as the default
// model, or the embedded one when model is nil.
func serviceTargetWith(t *testing.T, dir string, model llms.Model) *evals.ServiceTarget {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := ccsdemo.LoadFixtures(os.DirFS(abs), ccsdemo.FixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	// The demo CCS dates its records from its clock ("points expire in three weeks"), and the
	// sets assert the dates a reply gives: they read the day the sets were written.
	demo := ccsdemo.New(ccsdemo.Options{Fixtures: fixtures, Now: func() time.Time { return answerSetsDay }})
	cfg := switchboard.DefaultConfig()
	cfg.Store.Driver = "memory"
	cfg.Limits = switchboard.LimitsConfig{} // as in-process evals run: no per-user rate limit on the test's user
	cfg.CCS.URL = "http://ccs.test"         // the demo above, through CCSTransport
	opts := switchboard.Options{Agents: abs, Config: &cfg, Logger: slog.New(slog.DiscardHandler),
		CCSTransport: ccs.NewInProcessTransport(demo)}
	if model != nil {
		opts.Models = map[string]llms.Model{"default": model}
	}
	srv, err := switchboard.New(t.Context(), opts)
	if err != nil {
		t.Fatalf("switchboard.New(%s) = %v", dir, err)
	}
	t.Cleanup(func() { _ = srv.Close(t.Context()) })
	parts := srv.Parts()
	return evals.NewServiceTarget(parts.Service, parts.Hub, nil)
}
