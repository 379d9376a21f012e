package ccsdemo

import "testing"

// A plural and its singular must meet, or a search for "watches" finds no watch.
func TestStemFoldsPlurals(t *testing.T) {
	tests := []struct{ plural, singular string }{
		{"shoes", "shoe"},
		{"watches", "watch"},
		{"boxes", "box"},
		{"glasses", "glass"},
		{"dishes", "dish"},
		{"batteries", "battery"},
		{"headphones", "headphone"},
	}
	for _, tt := range tests {
		if got, want := stem(tt.plural), stem(tt.singular); got != want {
			t.Errorf("stem(%q) = %q, stem(%q) = %q; want them equal", tt.plural, got, tt.singular, want)
		}
	}
	for _, w := range []string{"dress", "bus", "gas", "yes"} {
		if got := stem(w); got != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestScoreReadsCompoundNames(t *testing.T) {
	tests := []struct {
		query, text string
		want        int
	}{
		{"hydroflask", "Hydro Flask 24 oz water bottle", 1},
		{"hydroflasks", "Hydro Flask 24 oz water bottle", 1},
		{"air pods pro", "Apple AirPods Pro 2", 3},
		{"water bottle", "Hydro Flask 24 oz water bottle", 2},
		{"flask hydro", "Hydro Flask", 2},
		{"tent", "Hydro Flask", 0},
	}
	for _, tt := range tests {
		if got := score(words(tt.query), tt.text); got != tt.want {
			t.Errorf("score(%q, %q) = %d, want %d", tt.query, tt.text, got, tt.want)
		}
	}
}
