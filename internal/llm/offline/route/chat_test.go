package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

func TestLaughs(t *testing.T) {
	tests := []struct {
		word string
		want bool
	}{
		{"lol", true}, {"lool", true}, {"haha", true}, {"hahaha", true}, {"hehe", true},
		{"ahahah", true}, {"lmao", true},
		{"ha", false}, {"loyal", false}, {"local", false}, {"hahn", false}, {"heh", false}, {"label", false},
	}
	for _, tt := range tests {
		if got := laughs(tt.word); got != tt.want {
			t.Errorf("laughs(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}

// A reaction of laughter and praise after an answer asks nothing: it goes to no agent, neither
// the earlier one nor one its words come close to in meaning.
func TestDecideReactionAsksNothing(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"rewards", "Loyalty rewards: points balance, tier status and what points are worth.",
			"how many points do i have", "what tier am i", "what are my points worth"}},
		{Texts: []string{"hoa", "Homeowners association: dues, rules, amenities and nice community events."}},
		{Texts: []string{"travel", "Travel specialist for trips: flights, hotels and the itinerary of an upcoming trip."}},
	})
	s := Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}
	for _, reaction := range []string{"lol great", "haha cool", "lol"} {
		humans := []string{"yo how many pts do i have", reaction}
		if got := Decide(ix, humans, 0, s); len(got) != 0 {
			t.Errorf("Decide(%q) = %v, want no agent", humans, got)
		}
	}
	// An acknowledgement that points back still continues the earlier request.
	humans := []string{"how many points do i have", "ok and what are they worth"}
	if got := Decide(ix, humans, 0, s); len(got) != 1 || got[0].Tool != 0 {
		t.Errorf("Decide(%q) = %v, want the rewards agent", humans, got)
	}
}

func TestAsksForPerson(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"I want to talk to a human", true},
		{"can i speak to a real person please", true},
		{"get me a representative", true},
		{"let me talk to an agent", true},
		{"agent pls", true},
		{"operator", true},
		{"can I speak to someone about my deposit", false},
		{"talk to a travel agent", false},
		{"i want to talk to my agent", false},
		{"who is my account manager", false},
		{"can someone help me with my order", false},
		{"i want to get a refund", false},
	} {
		if got := asksForPerson(plainWords(tt.text)); got != tt.want {
			t.Errorf("asksForPerson(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestFindsFault(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"this is useless", true},
		{"you're not helping", true},
		{"that didn't answer my question", true},
		{"stupid bot", true},
		{"not helpful at all", true},
		{"not bad", false},
		{"this blender is useless", false},
		{"my order is wrong", false},
		{"i got the wrong size", false},
		{"it doesn't work", false},
		{"can you help", false},
	} {
		if got := findsFault(plainWords(tt.text)); got != tt.want {
			t.Errorf("findsFault(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestAsksNothing(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"can you help me", true},
		{"I have a question", true},
		{"are you there?", true},
		{"never mind", true},
		{"can you help me with my order", false},
		{"i have a question about my points", false},
		{"what's the weather", false},
		{"", false},
	} {
		if got := asksNothing(plainWords(tt.text)); got != tt.want {
			t.Errorf("asksNothing(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestNamesBelongings(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"where are my things", true},
		{"wheres my stuff", true},
		{"can you help me", false},
		{"can you help me with my question", false},
		{"i have a question", false},
	} {
		if got := namesBelongings(plainWords(tt.text)); got != tt.want {
			t.Errorf("namesBelongings(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestExclaims(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"omg", true},
		{"oh no", true},
		{"oh my god", true},
		{"sorry my bad", true},
		{"im sorry", true},
		{"no", false},
		{"oh no my order is late", false},
		{"wow thats expensive", false},
		{"sorry where is my order", false},
		{"my order", false},
	} {
		if got := exclaims(plainWords(tt.text)); got != tt.want {
			t.Errorf("exclaims(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestDismisses(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"never mind", true},
		{"nah forget it", true},
		{"no", true},
		{"nvm that's fine", true},
		{"no, the other order", false},
		{"never", false},
		{"forget my card details", false},
		{"mind the gap", false},
	} {
		if got := dismisses(plainWords(tt.text)); got != tt.want {
			t.Errorf("dismisses(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestToolNames(t *testing.T) {
	tools := func(names ...string) []llms.Tool {
		var out []llms.Tool
		for _, n := range names {
			out = append(out, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "ask_" + n}})
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		tools []llms.Tool
		want  string
	}{
		{"none", nil, ""},
		{"one", tools("shop"), "shop"},
		{"a few, all named", tools("shop", "rewards", "support", "travel"), "shop, rewards, support and travel"},
		{"eight, all named", tools("a", "b", "c", "d", "e", "f", "g", "h"), "a, b, c, d, e, f, g and h"},
		{"many, the first eight and a count", tools("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"), "a, b, c, d, e, f, g, h and 3 more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := toolNames(tt.tools); got != tt.want {
				t.Errorf("toolNames() = %q, want %q", got, tt.want)
			}
		})
	}
}
