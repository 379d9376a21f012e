package lang

import (
	"strings"
	"testing"
)

func TestSpellOut(t *testing.T) {
	docs := []string{"time off Paid time off balances per leave type", "lab orders with their tests", "payslips Recent payslips",
		"assignment The student's room and room type, roommate and resident advisor"}
	tests := []struct{ text, want string }{
		{"how much pto do i have", "how much paid time off do i have"},
		{"is my lab order low", "is my lab order low"}, // a common word spells no phrase
		{"any payslips", "any payslips"},               // a word of the tools' own
		{"what about xyz", "what about xyz"},           // spells nothing
		{"how much pto (earlier: pto)", "how much paid time off (earlier: paid time off)"},
		{"how do i reach my RA", "how do i reach my resident advisor"}, // capitals, and content words over "room and"
		{"how do i reach my ra", "how do i reach my ra"},               // a common word as typed
		{"IS MY RA IN", "IS MY RA IN"},                                 // a shouted message says nothing by its capitals
	}
	for _, tt := range tests {
		if got := SpellOut(tt.text, docs); got != tt.want {
			t.Errorf("SpellOut(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// unchangedByUpper agrees with comparing strings.ToUpper's copy, on bad bytes and on
// letters whose upper case is not their capital (the titlecase "ǅ").
func TestUnchangedByUpper(t *testing.T) {
	for _, s := range []string{"", "PTO", "my PTO", "Ǆ", "ǅ", "ᾼΒ", "CAFÉ", "café", "A\xffB", "\uFFFD", "123 ?!", "ß"} {
		if got, want := unchangedByUpper(s), strings.ToUpper(s) == s; got != want {
			t.Errorf("unchangedByUpper(%q) = %v, want %v", s, got, want)
		}
	}
}
