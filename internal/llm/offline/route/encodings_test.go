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
		// A request in the imperative asked as a question (see asksAssistantTo).
		{"could you please check the gate for the flight to rome", 0},
		{"has my flight to chicago been cancelled yet", 0},
		// The one agent whose texts name the user's thing keeps the clause the words put
		// nearly level with another's (see sentenceCheck).
		{"can i move my fitting to the afternoon", 1},
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
		{"whats my flight number and where do i check in", true},          // the clause that asks
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

// A clause reached only through price words by every agent it reaches is left alone without
// reading its sentence: no agent could take it from them.
func TestDropPriceOnlyWithoutRival(t *testing.T) {
	n := 0
	s := countingSettings(&n)
	ix := NewIndex([]Source{
		{Texts: []string{"travel", "Travel bookings: flights and hotels, and what each trip costs."}},
		{Texts: []string{"hearing", "Hearing care clinic: hearing tests and hearing aid fittings."}},
		{Texts: []string{"pestcontrol", "Pest control: a technician visit for mice or wasps, and what a visit costs."}},
	})
	p := &planner{ix: ix, substance: true, sentences: true, encode: s.Encode}
	text := "how much does it cost"
	sc := []float64{0.5, 0, 0.4}
	p.dropPriceOnly(text, queryTerms(lang.ScanWords(text)), sc)
	if sc[0] != 0.5 || sc[2] != 0.4 {
		t.Errorf("dropPriceOnly changed the scores to %v", sc)
	}
	if n != 0 {
		t.Errorf("dropPriceOnly encoded %d sentences, want none", n)
	}
}

// A sub-agent of one tool calls it for a request no word of which reaches it, without reading
// the request's meaning.
func TestChooseToolsOneTool(t *testing.T) {
	n := 0
	ix := NewIndex([]Source{{Texts: []string{"list orders", "The user's orders and where each one is."}}})
	got := ChooseTools(ix, "the thing never turned up", countingSettings(&n), nil, -1)
	if len(got) != 1 || got[0].Tool != 0 {
		t.Errorf("ChooseTools = %v, want tool 0", got)
	}
	if n != 0 {
		t.Errorf("ChooseTools encoded %d sentences, want none", n)
	}
}

// isAside asks whether a word is of some agent's trade (which may read the sentence) only of a
// question about the world that points at nothing said before.
func TestIsAsideAsksTradeLast(t *testing.T) {
	calls := 0
	trade := func(string) bool { calls++; return false }
	if isAside(plainWords("is it true they charge a fee for hotels"), trade) {
		t.Error("a question about something said before is an aside")
	}
	if calls != 0 {
		t.Errorf("trade asked %d times, want none", calls)
	}
}
