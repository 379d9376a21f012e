package route

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"gopkg.in/yaml.v3"
)

// The questions no agent answers, and the messages the style classifier learnt from, must not
// be messages of an evaluation set, nor close to one: a figure measured on a set they were
// copied from would say nothing. Close is what the training data was cleaned with: three
// fifths of the distinct words of the two in common, or the example inside the message.
func TestOffTopicExamplesAreNoEvalMessages(t *testing.T) {
	evals := evalMessages(t, filepath.Join("..", "..", "..", "..", "evals"))
	if len(evals) < 500 {
		t.Fatalf("found %d evaluation messages, want the repository's", len(evals))
	}
	examples := append([]string(nil), offTopicExamples...)
	for _, f := range []string{"service.txt", "aside.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "style", "gen", f))
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				examples = append(examples, l)
			}
		}
	}
	type message struct {
		text  string
		words map[string]bool
	}
	ms := make([]message, len(evals))
	for i, e := range evals {
		ms[i] = message{strings.ToLower(e), wordSet(e)}
	}
	for _, ex := range examples {
		lower, words := strings.ToLower(ex), wordSet(ex)
		for _, m := range ms {
			if strings.Contains(m.text, lower) || jaccard(words, m.words) >= 0.6 {
				// The evaluation message is not shown: some sets are blind.
				t.Errorf("example %q is an evaluation message, or close to one", ex)
				break
			}
		}
	}
}

// evalMessages returns the user messages of every dataset under root.
func evalMessages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, string(filepath.Separator)+"agents"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var ds struct {
			Cases []struct {
				Turns []struct {
					User string `yaml:"user"`
				} `yaml:"turns"`
			} `yaml:"cases"`
		}
		if err := yaml.Unmarshal(b, &ds); err != nil {
			return err
		}
		for _, c := range ds.Cases {
			for _, tu := range c.Turns {
				out = append(out, tu.User)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range lang.ScanWords(s) {
		out[w.Lower] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	both := 0
	for w := range a {
		if b[w] {
			both++
		}
	}
	if n := len(a) + len(b) - both; n > 0 {
		return float64(both) / float64(n)
	}
	return 0
}

// A message no agent's words reach, whose sentence reads at least as much like chat or a
// question no agent answers as like any agent's texts, is answered directly: the last resort
// sends it nowhere.
func TestDecideChatByMeaningGoesNowhere(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Customer support for orders and the account: where an order is, returns and refunds, and sign-in problems.",
			"where is my order", "i need to change the email on my account", "my package hasnt arrived yet", "yo where are my things",
			"since when do i have an account with you", "i never got the jacket i ordered", "how do i reset my password"}},
		{Texts: []string{"rewards", "Loyalty program: the member's points balance, tier and the rewards points buy.", "how many points do i have", "what tier am i in"}},
		{Texts: []string{"travel", "Travel specialist: upcoming trips, flights and hotel stays.", "when is my next trip", "is my flight delayed"}},
	})
	text := "I'm bored, talk to me"
	if got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}); len(got) != 0 {
		t.Errorf("Decide(%q) = %v, want none", text, got)
	}
}

func TestNamesAThingOf(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"my monthly statement looks wrong", true},
		{"how many of your points have I got", true},
		{"I'm bored, talk to me", false},
		{"is it the same as my other one", false}, // a possessive before a function word
	}
	for _, tt := range tests {
		if got := namesAThingOf(lang.ScanWords(tt.text)); got != tt.want {
			t.Errorf("namesAThingOf(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// Questions about the world asked in an agent's words ("points", "coupon", "electronics") go
// nowhere: they come closer to a question no agent answers (a company's history or owner)
// than to the agent's texts.
func TestDecideWorldQuestionsInAnAgentsWords(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals: prices, discounts and coupons on electronics, shoes and appliances.",
			"any deals on sneakers", "how much is the blender", "whats on sale today"}},
		{Texts: []string{"rewards", "Loyalty program: the member's points balance, tier and the rewards points buy.", "how many points do i have", "what tier am i in"}},
		{Texts: []string{"support", "Customer support for orders: where an order is, returns and refunds.", "where is my order", "i want to return my shoes"}},
	})
	for _, text := range []string{
		"when did supermarkets start giving out points",
		"which company invented the coupon",
		"who owns the biggest electronics chain",
	} {
		if got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}); len(got) != 0 {
			t.Errorf("Decide(%q) = %v, want none", text, got)
		}
	}
}

// Questions about rules and limits that hold everywhere, about how often a thing should be done and about
// manners are asked of the world, even in an agent's words ("tyres", "driving", "seat").
func TestDecideWorldQuestionsOnRulesAndManners(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"tyres", "Tyre fitting service: tyre bookings, seasonal tyre storage and the user's tyre hotel.",
			"when is my tyre fitting", "where are my winter tyres stored", "how much to fit two new tyres"}},
		{Texts: []string{"driving", "Driving school: the learner's lessons, instructor and test date.", "when is my next driving lesson", "has my test been booked"}},
		{Texts: []string{"travel", "Travel specialist: upcoming trips, flights, seats and hotel stays.", "when is my next trip", "is my flight delayed", "can i change my seat"}},
	})
	for _, text := range []string{
		"what is the minimum legal age to drive a car in france",
		"how long can you legally drive without a break in the uk",
		"how often should brake pads be replaced",
		"is it rude to ask to swap seats on a plane",
	} {
		if got := Decide(ix, []string{text}, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}); len(got) != 0 {
			t.Errorf("Decide(%q) = %v, want none", text, got)
		}
	}
}

// A record of the whole world is no agent's record, however plainly it names the agent's
// trade; the user's own visit is.
func TestDecideWorldRecord(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"zoo", "City zoo: tickets, annual memberships, animal encounters and the oldest animals in the zoo's care.",
			"book two zoo tickets for saturday", "when does the zoo open", "is my zoo membership still valid"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"which is the largest zoo in the world"}, nil},
		{[]string{"when does the zoo open on sunday"}, []int{0}},
	})
}
