package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// countingSettings returns the shipped settings with an Encode that counts the user's sentences
// it encodes into n.
func countingSettings(n *int) Settings {
	return Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin"), Encode: func(text string) []float32 {
		*n++
		return Sentence(text)
	}}
}

// encodingAgents are a travel agent, a hearing clinic and a pest control specialist.
func encodingAgents() *Index {
	return NewIndex([]Source{
		{Texts: []string{"travel", "Travel bookings: flights, hotels and trips, their status, gates and itineraries.",
			"when is my next flight", "find me a hotel in rome", "is my flight on time"}},
		{Texts: []string{"hearing", "Hearing care clinic: books hearing tests and hearing aid fittings, shows the user's appointments and orders hearing aid batteries."},
			Tools: []string{"Book appointment: Book or move a hearing test, fitting or check-up."}},
		{Texts: []string{"pestcontrol", "Pest control specialist: books a technician visit for mice, rats or wasps, and moves or cancels the user's visits.",
			"can someone come out for mice", "can I move my appointment to friday"}},
	})
}

// Reading a sentence costs milliseconds: a message whose words settle its route is routed as
// before without it.
func TestDecideWithoutSentence(t *testing.T) {
	ix := encodingAgents()
	tests := []struct {
		text string
		want int
	}{
		// A one-clause question after the user's own thing, in the travel agent's words, is
		// no aside, whatever the style classifier would say (see asksAfterOwnThing).
		{"what gate does my flight leave from today", 0},
	}
	for _, tt := range tests {
		n := 0
		got := Decide(ix, []string{tt.text}, 0, countingSettings(&n))
		if len(got) != 1 || got[0].Tool != tt.want {
			t.Errorf("Decide(%q) = %v, want agent %d alone", tt.text, got, tt.want)
		}
		if n != 0 {
			t.Errorf("Decide(%q) encoded %d sentences, want none", tt.text, n)
		}
	}
}

// A story before the question, or a plea for tips, is still read for its style.
func TestAsksAfterOwnThing(t *testing.T) {
	ix := encodingAgents()
	p := &planner{ix: ix}
	tests := []struct {
		text string
		want bool
	}{
		{"is my hotel booking in chicago confirmed", true},
		{"what gate does my flight leave from", true},
		{"i keep missing my flight, how do people cope with that", false}, // a story, then a question
		{"any tips to get over my fear of flying", false},                 // asks for tips
		{"who has the cheapest hotel in our city", false},                 // the thing narrows the request
		{"is the hotel booking in chicago confirmed", false},              // no thing of the user's
	}
	for _, tt := range tests {
		ws := lang.ScanWords(tt.text)
		intents := []Intent{{Tool: 0, Text: tt.text}}
		if got := p.asksAfterOwnThing(tt.text, ws, plainWordsOf(ws), intents); got != tt.want {
			t.Errorf("asksAfterOwnThing(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
