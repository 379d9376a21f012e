package lexicon_test

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lexicon"
)

func TestKnown(t *testing.T) {
	lx, err := lexicon.New(strings.ToLower)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		want bool
	}{
		{"cardiologist", true},
		{"plan", true},
		{"children", true}, // an irregular form WordNet lists
		{"went", true},
		{"voucher", true},
		{"pionts", false}, // a typo is no word
		{"dicsount", false},
		{"lakers", false},
		{"", false},
	} {
		if got := lx.Known(tc.word); got != tc.want {
			t.Errorf("Known(%q) = %v, want %v", tc.word, got, tc.want)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := lexicon.New(strings.ToLower); err != nil {
			b.Fatal(err)
		}
	}
}
