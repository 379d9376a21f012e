package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestNamesNewSubject(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"stadium", "Football club ticket office: match tickets, kick-off times, gates and seats."}},
		{Texts: []string{"shop", "Deals and prices on products.", "how much are airpods"}},
	})
	prev := []Intent{{Tool: 0}}
	tests := []struct {
		text string
		want bool
	}{
		{"whats the earliest you can do", false}, // a superlative mid-sentence
		{"which gate is closest?", false},        // a superlative after "is"
		{"send me 3 packs", false},               // the request's verb and a measure
		{"can i pay monthly?", false},
		{"how much are neck pillows", true},
		{"any deals on headphones", true},
	}
	for _, tt := range tests {
		if got := ix.namesNewSubject(lang.ScanWords(tt.text), prev, -1, false); got != tt.want {
			t.Errorf("namesNewSubject(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
