package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A misspelling is matched to the word it was meant to be; a real word is taken as written,
// even when it is one letter from a word the agents use ("fights" are not "flights").
func TestResolveCorrectsTyposNotWords(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"Checks your points balance and rewards tier."}},
		{Texts: []string{"Finds flights: which plane, which gate, boarding time."}},
	})
	for _, tc := range []struct{ query, want string }{
		{"pionts", "point"},
		{"balanse", "balanc"},
		{"points", "point"},
		{"fights", ""}, // a word: no correction to "flights"
		{"flihgts", "flight"},
		{"gates", "gate"}, // the same stem
		{"tiers", "tier"},
	} {
		got := ix.resolve([]string{lang.Stem(tc.query)})[0].term
		if got != tc.want {
			t.Errorf("resolve(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
