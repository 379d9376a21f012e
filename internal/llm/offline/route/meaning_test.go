package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// When the sentence reads a message nearly as close to the candidate its words chose (on more
// than light nouns) as to its own leader, the words' choice stands; a sentence that leads by
// more, or words that reach a candidate only through a light noun ("new"), leave the leader.
func TestWordsChoice(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"driving", "Driving school: books and moves driving lessons and lesson slots with an instructor.", "i need to move my lesson to the afternoon"}},
		{Texts: []string{"marina", "Marina: visitor berths per night, the fuel dock and harbour fees.", "what time does the fuel dock open on sunday"}},
		{Texts: []string{"news", "What is new: the latest releases, new titles and new arrivals.", "whats new this week"}},
	})
	p := &planner{ix: ix, substance: true, margin: lang.Number("margin")}
	tests := []struct {
		text string
		sims []float64
		top  int // the sentence's leader
		want int
	}{
		{"can you shift my slot to sunday", []float64{0.50, 0.54, 0.2}, 1, 0},
		{"can you shift my slot to sunday", []float64{0.40, 0.54, 0.2}, 1, 1}, // the sentence leads by more
		{"anything new on sunday", []float64{0.2, 0.54, 0.50}, 1, 1},          // "new" is a light noun
	}
	for _, tt := range tests {
		if got, _ := p.wordsChoice(lang.ScanWords(tt.text), tt.text, tt.sims, tt.top, tt.sims[tt.top]); got != tt.want {
			t.Errorf("wordsChoice(%q, %v) = %d, want %d", tt.text, tt.sims, got, tt.want)
		}
	}
}
