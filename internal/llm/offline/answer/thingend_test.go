package answer

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// The name of a thing a question asks about stops before the words that say what is asked of
// it: the particle of a phrasal verb, the verb after do, the verb before a preposition left at
// the end. Those words in a reply ("nothing about your deposit back") read as a broken query.
func TestThingEnd(t *testing.T) {
	tests := []struct {
		question, thing, want string // thing: the words a reader of the question took, before their end was found
	}{
		{"did they give my deposit back", "deposit back", "deposit"},
		{"did i get my cabana deposit back", "cabana deposit back", "cabana deposit"},
		{"what did the doctor say", "doctor say", "doctor"},
		{"what did the doctor say about it", "doctor say", "doctor"},
		{"whats my 401k contribution set at", "401k contribution set", "401k contribution"},
		{"was my claim for the lamp paid out", "lamp paid", "lamp"},
		{"when is dune due back", "dune due back", "dune due"},
		// The thing runs on where nothing says a verb ends it.
		{"do i have tickets for taylor swift", "taylor swift", "taylor swift"},
		{"does my plan include roaming", "plan include roaming", "plan include roaming"},
		{"where is my running watch", "running watch", "running watch"},
	}
	for _, tt := range tests {
		ws := lang.ScanWords(tt.question)
		words := strings.Fields(tt.thing)
		start := -1
		for i, w := range ws {
			if w.Lower == words[0] {
				start = i
			}
		}
		if start < 0 {
			t.Fatalf("%q has no word %q", tt.question, words[0])
		}
		var got []string
		for _, w := range ws[start:thingEnd(ws, start, start+len(words))] {
			got = append(got, w.Lower)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("thing %q of %q = %q, want %q", tt.thing, tt.question, g, tt.want)
		}
	}
}
