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
