package route

import (
	"slices"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestPhrasalMeanings(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"want to send back the sweater", []string{"return"}},
		{"can i send it back", []string{"return"}},
		{"what time do i take off on friday", []string{"depart", "departure"}},
		{"sign me up for zumba", []string{"join", "enrol", "register"}},
		{"need a new blender, anything marked down?", []string{"discount"}},
		{"my parcel still hasn't shown up", []string{"arrive"}},
		{"the courier never showed up", []string{"arrive"}},
		{"did my headphones get here", []string{"arrive"}}, // "here" says where the thing came
		{"when will it get here", []string{"arrive"}},
		{"how much did i get back for the fitbit", []string{"refund"}},
		{"when do i get back from the york trip", nil}, // a journey home
		{"use the side door", nil},
		{"send the sweater to my mum", nil},
		{"take the back road", nil},
	} {
		ws := lang.ScanWords(tt.text)
		var got []string
		for i := range ws {
			got = append(got, phrasalMeanings(ws, i)...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("phrasal meanings of %q = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// The particle of a phrasal verb is a word of the request ("send the shoes back"), except
// after a journey or, for a verb of getting, past the thing got back.
func TestEndsPhrasal(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"send the shoes back", true},
		{"how much will i get back", true},
		{"can i get it back", true},
		{"did i get the deposit back", false}, // the deposit says whose
		{"when do i get back from the york trip", false},
		{"when will it be back", false},
	} {
		ws := lang.ScanWords(tt.text)
		i := slices.IndexFunc(ws, func(w lang.Word) bool { return w.Lower == "back" })
		if got := endsPhrasal(ws, i); got != tt.want {
			t.Errorf("endsPhrasal(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
