package offline_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/evals"
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
// fixtures) and checks, per turn, where it went and what the reply says.
func TestAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole service")
	}
	for _, set := range []string{"dev.yaml", "dev2.yaml"} {
		t.Run(strings.TrimSuffix(set, ".yaml"), func(t *testing.T) {
			runAnswerSet(t, "testdata/answers/agents", "testdata/answers/"+set)
		})
	}
}

// runAnswerSet plays every case of the set at file over the agents in dir.
func runAnswerSet(t *testing.T, dir, file string) {
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
	target := serviceTarget(t, dir)
	for _, c := range set.Cases {
		t.Run(c.ID, func(t *testing.T) {
			user := c.User
			if user == "" {
				user = "alice"
			}
			episode := ""
			for i, turn := range c.Turns {
				out, err := target.Turn(t.Context(), evals.TurnInput{User: user, EpisodeID: episode, Message: turn.User})
				if err != nil {
					t.Fatalf("turn %d: %v", i+1, err)
				}
				episode = out.EpisodeID
				var invoked []string
				if out.Decision != nil {
					invoked = out.Decision.Invoked
				}
				if !sameAgents(invoked, turn.Expect) {
					t.Errorf("turn %d %q went to %v, want %v", i+1, turn.User, invoked, turn.Expect)
				}
				for _, problem := range replyProblems(out.Reply, turn.Mentions, turn.Excludes) {
					t.Errorf("turn %d %q: %s; reply:\n%s", i+1, turn.User, problem, out.Reply)
				}
			}
		})
	}
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

// serviceTarget builds the service over the agents in dir, with everything embedded.
func serviceTarget(t *testing.T, dir string) *evals.ServiceTarget {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := switchboard.DefaultConfig()
	cfg.Store.Driver = "memory"
	cfg.Limits = switchboard.LimitsConfig{} // as in-process evals run: no per-user rate limit on the test's user
	srv, err := switchboard.New(t.Context(), switchboard.Options{Agents: abs, Config: &cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("switchboard.New(%s) = %v", dir, err)
	}
	t.Cleanup(func() { _ = srv.Close(t.Context()) })
	parts := srv.Parts()
	return evals.NewServiceTarget(parts.Service, parts.Hub, nil)
}
