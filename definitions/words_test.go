package definitions

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// fieldsWords is how the answer helpers split text before eachTextWord: every field of the
// lower-cased text collected first, then trimmed and made singular.
func fieldsWords(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := fields[:0]
	for _, w := range fields {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if len(w) < 2 {
			continue
		}
		out = append(out, singular(w))
	}
	return out
}

var wordSamples = []string{
	"", " ", "refund", "Refunds", "did i get my refund for the socks?", "Wool hiking socks",
	"refund_issued", "in-transit", "bob's bags'", "'quoted' words", "a b c", "ab", "it's",
	"Café déjà vu", "ÉTÉ", "batteries boxes churches wishes classes bus axis", "x\xffy zz\xff",
	"A-10177 ua837 UA 837", "  leading and trailing  ", "日本語 テキスト", "İstanbul", "ǅemal",
	"and the fitbit? (earlier: did i get my refund for the keyboard)",
}

// eachTextWord yields, one by one, what the helpers once collected: the same words in the
// same order for every text, however a caller stops early.
func TestEachTextWordYieldsTheFieldsWords(t *testing.T) {
	for _, s := range wordSamples {
		want := fieldsWords(s)
		if got := slices.Collect(eachTextWord(s)); !slices.Equal(got, want) {
			t.Errorf("eachTextWord(%q) = %q, want %q", s, got, want)
		}
		for stop := range len(want) {
			var got []string
			for w := range eachTextWord(s) {
				got = append(got, w)
				if len(got) == stop+1 {
					break
				}
			}
			if !slices.Equal(got, want[:stop+1]) {
				t.Errorf("eachTextWord(%q) stopped after %d = %q, want %q", s, stop+1, got, want[:stop+1])
			}
		}
	}
}

func FuzzEachTextWord(f *testing.F) {
	for _, s := range wordSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := slices.Collect(eachTextWord(s)), fieldsWords(s); !slices.Equal(got, want) {
			t.Errorf("eachTextWord(%q) = %q, want %q", s, got, want)
		}
	})
}
