package stream

import (
	"strings"
	"testing"
)

func TestFillTemplate(t *testing.T) {
	tests := []struct {
		name, text string
		params     map[string]string
		want       string
	}{
		{"filled", "Searching offers for {query}…", map[string]string{"query": "running shoes"}, "Searching offers for running shoes…"},
		{"missing drops connective", "Searching offers for {query}…", nil, "Searching offers…"},
		{"empty after sanitising is missing", "Searching offers for {query}…", map[string]string{"query": " {} \n"}, "Searching offers…"},
		{"missing in the middle", "Checking {count} orders", nil, "Checking orders"},
		{"missing first", "{store} deals are loading", nil, "Deals are loading"},
		{"missing quoted", "Looking for “{query}” in the catalogue…", nil, "Looking in the catalogue…"},
		{"two, one missing", "Finding deals near {city} for {query}…", map[string]string{"city": "Lyon"}, "Finding deals near Lyon…"},
		{"two, both missing", "Finding deals near {city} for {query}…", nil, "Finding deals…"},
		{"braces cannot forge a placeholder", "Searching for {query}…", map[string]string{"query": "{secret}", "secret": "x"}, "Searching for secret…"},
		{"control chars removed", "Searching for {query}…", map[string]string{"query": "shoes\x00\x1b[31m red"}, "Searching for shoes[31m red…"},
		{"long value cut at a word", "Searching for {query}…", map[string]string{"query": strings.Repeat("word ", 20)}, "Searching for word word word word word word word word…"},
		{"not a placeholder", "Rate {a b} stays", nil, "Rate {a b} stays"},
		{"no placeholders", "Checking your points…", nil, "Checking your points…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fillTemplate(tt.text, tt.params); got != tt.want {
				t.Errorf("fillTemplate(%q, %v) = %q, want %q", tt.text, tt.params, got, tt.want)
			}
		})
	}
}

func TestSanitizeParamBounds(t *testing.T) {
	for _, in := range []string{strings.Repeat("x", 100), strings.Repeat("é", 100), "a\nb\tc  d", "\u202e{}evil"} {
		got := sanitizeParam(in)
		if n := len([]rune(got)); n > maxParamRunes {
			t.Errorf("sanitizeParam(%q) has %d runes, want <= %d", in, n, maxParamRunes)
		}
		if strings.ContainsAny(got, "{}\n\t") {
			t.Errorf("sanitizeParam(%q) = %q, still has braces or control whitespace", in, got)
		}
	}
}

func TestJoinTexts(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  string
	}{
		{"one", []string{"Searching offers…"}, "Searching offers…"},
		{"two", []string{"Searching offers…", "Looking up your points balance…"}, "Searching offers and looking up your points balance…"},
		{"three", []string{"Searching offers…", "Looking up your points…", "Checking your orders…"}, "Searching offers, looking up your points and checking your orders…"},
		{"ascii ellipsis", []string{"Searching offers...", "Checking orders"}, "Searching offers and checking orders…"},
		{"periods", []string{"Offers found.", "Points loaded."}, "Offers found and points loaded."},
		{"keeps names", []string{"Searching offers…", "PointPass is checking…"}, "Searching offers and PointPass is checking…"},
		{"keeps I", []string{"Searching offers…", "I am checking points…"}, "Searching offers and I am checking points…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := joinTexts(tt.texts); got != tt.want {
				t.Errorf("joinTexts(%q) = %q, want %q", tt.texts, got, tt.want)
			}
		})
	}
}
