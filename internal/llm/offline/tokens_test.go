package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"offers", "offer"}, {"coupons", "coupon"}, {"shopping", "shop"}, {"booked", "book"},
		{"prices", "price"}, {"pricing", "price"}, {"priced", "price"}, {"price", "price"},
		{"deliveries", "delivery"}, {"boxes", "box"}, {"status", "status"}, {"address", "address"},
		{"need", "need"}, {"string", "string"}, {"running", "run"}, {"shoes", "shoe"}, {"2026", "2026"},
		// A final e stays after a short syllable, so "plane" is not "plan" and "late" not "lat".
		{"plane", "plane"}, {"plans", "plan"}, {"planned", "plan"}, {"late", "late"}, {"rated", "rate"},
		{"charge", "charg"}, {"charged", "charg"}, {"sizes", "size"}, {"leaving", "leav"}, {"leave", "leav"},
		{"news", "news"}, {"series", "series"},
		{strings.Repeat("y", 40) + "ed", strings.Repeat("y", 40) + "ed"}, // longer than any word stem works on
		{"cancelled", "cancel"}, {"cancelling", "cancel"}, {"travelling", "travel"}, {"fill", "fill"},
		// Two letters left by -ed or -ing are the start of a short word: "balance owed".
		{"owed", "owe"}, {"owing", "owe"}, {"owe", "owe"}, {"used", "use"},
	}
	for _, tt := range tests {
		if got := stem(tt.in); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := terms("What's Bob's points-balance? Any COUPONS for check-in, please!")
	want := []string{"bob", "point", "balanc", "coupon"} // "check-in" is two stopwords
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terms() mismatch (-want +got):\n%s", diff)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"points", "points", 1, 0},
		{"pionts", "points", 1, 1}, // transposition
		{"coupn", "coupon", 1, 1},
		{"hotel", "motels", 1, 2}, // over the limit: limit+1
		{"a", "abcdef", 2, 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

func TestSplitClauses(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"show offers and my points", []string{"show offers", "my points"}},
		{"deals under $89.99, and my tier?", []string{"deals under $89.99", "my tier"}},
		{"A; B. C! D? e, f", []string{"A", "B", "C", "D", "e", "f"}},
		{"points oh and btw tier, plus trips then hotels", []string{"points", "tier", "trips", "hotels"}},
		{"5,000 points as well as gold status", []string{"5,000 points", "gold status"}},
		{"and", nil},
		{"tickets for friday - my flight moved", []string{"tickets for friday", "my flight moved"}},
		{"gold now — any sales", []string{"gold now", "any sales"}},
		{"open 9am - 5pm?", []string{"open 9am - 5pm"}},
		{"flights NYC - LAX", []string{"flights NYC - LAX"}},
		{"hotels june 3 - june 10", []string{"hotels june 3 - june 10"}},
		{"tvs- my points", []string{"tvs- my points"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range splitClauses(tt.in) {
			got = append(got, tt.in[s.start:s.end])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitClauses(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestHumanise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"points_balance", "points balance"}, {"pointsBalance", "points balance"},
		{"points.balance", "points balance"}, {"order_id", "order ID"}, {"ask_x", "ask x"},
	}
	for _, tt := range tests {
		if got := humanise(tt.in); got != tt.want {
			t.Errorf("humanise(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		key, in, want string
	}{
		{"points", "12400", "12,400"}, {"price", "89.999", "90"}, {"price", "1234.5", "1,234.5"},
		{"year", "2026", "2026"}, {"order_number", "40213", "40213"}, {"delta", "-15000", "-15,000"},
	}
	for _, tt := range tests {
		if got := scalar(tt.key, jsonNumber(tt.in)); got != tt.want {
			t.Errorf("scalar(%q, %s) = %q, want %q", tt.key, tt.in, got, tt.want)
		}
	}
}

func jsonNumber(s string) any {
	v, err := decodeOrdered([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkStemLongWord stems a word as long as a request body allows: the cost must stay
// that of a short word, whatever a client sends.
func BenchmarkStemLongWord(b *testing.B) {
	w := strings.Repeat("y", 64000) + "e"
	for b.Loop() {
		stem(w)
	}
}

func TestMeasure(t *testing.T) {
	for w, want := range map[string]int{"tr": 0, "ee": 0, "tree": 0, "y": 0, "by": 0, "trouble": 1, "oats": 1, "trees": 1, "ivy": 1,
		"troubles": 2, "private": 2, "oaten": 2, "orrery": 2, "plan": 1, "cancel": 2, "yyyy": 1} {
		if got := measure(w); got != want {
			t.Errorf("measure(%q) = %d, want %d", w, got, want)
		}
	}
}

func TestCompoundAt(t *testing.T) {
	tests := []struct {
		text string
		want []string // the compound read at each word, "" for none
	}{
		{"ready to pick up", []string{"", "", "pickup", ""}},
		{"a lap top bag", []string{"", "laptop", "", ""}},
		{"where am i in line", []string{"", "", "", "", ""}}, // "in" is a function word
		{"running shoes", []string{"", ""}},
		{"pick up", []string{"pickup", ""}},
	}
	for _, tt := range tests {
		ws := scanWords(tt.text)
		var got []string
		for i := range ws {
			got = append(got, compoundAt(ws, i))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("compoundAt(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
