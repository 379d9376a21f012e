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

// A question put to the business itself that no word reaches goes to no agent, however near
// an agent's texts its sentence reads; asking for something the business has still routes.
func TestDecideQuestionToTheBusiness(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on electronics, bags and luggage, and compares prices.",
			"any deals on sneakers", "what offers do you have on luggage"}},
		{Texts: []string{"travel", "Travel specialist for trips and bookings: flights with departure time, gate and terminal, and hotel stays with check-in and checkout dates.",
			"is my flight delayed?", "what time does my flight leave", "which terminal for my flight tomorrow"}},
	})
	s := Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}
	for _, text := range []string{"what time do you close", "are you open on sundays"} {
		if got := Decide(ix, []string{text}, 0, s); len(got) != 0 {
			t.Errorf("Decide(%q) = %v, want no agent", text, got)
		}
	}
	for _, tt := range []struct {
		text string
		want int
	}{{"do you have deals on sneakers", 0}, {"what time does my flight leave", 1}} {
		if got := Decide(ix, []string{tt.text}, 0, s); len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d", tt.text, got, tt.want)
		}
	}
}

func TestAsksOfService(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"what time do you close", true},
		{"are you open on sundays", true},
		{"do you have gift cards", false},
		{"do you ship to canada", false},
		{"where is my parcel", false},
	}
	for _, tt := range tests {
		if got := asksOfService(plainWords(tt.text)); got != tt.want {
			t.Errorf("asksOfService(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
