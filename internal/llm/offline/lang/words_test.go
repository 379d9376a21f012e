package lang

import (
	"strings"
	"testing"
	"unicode"

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
		if got := Stem(tt.in); got != tt.want {
			t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("What's Bob's points-balance? Any COUPONS for check-in, please!")
	want := []string{"bob", "point", "balanc", "coupon"} // "check-in" is two stopwords
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Terms() mismatch (-want +got):\n%s", diff)
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
		if got := EditDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

// BenchmarkStemLongWord stems a word as long as a request body allows: the cost must stay
// that of a short word, whatever a client sends.
func BenchmarkStemLongWord(b *testing.B) {
	w := strings.Repeat("y", 64000) + "e"
	for b.Loop() {
		Stem(w)
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

func TestPriceLimitBefore(t *testing.T) {
	tests := []struct {
		text string
		i    int // the word the limit would bound
		want bool
	}{
		{"laptops under 600", 2, true},
		{"max 50", 1, true},
		{"less than 100", 2, true},
		{"cheaper than 80", 2, true},
		{"up to 200", 2, true},
		{"bigger than 65 inches", 2, false},
		{"go to 5", 2, false},
		{"600", 0, false}, // nothing before it
		{"order 600", 1, false},
	}
	for _, tt := range tests {
		if got := PriceLimitBefore(ScanWords(tt.text), tt.i); got != tt.want {
			t.Errorf("PriceLimitBefore(%q, %d) = %v, want %v", tt.text, tt.i, got, tt.want)
		}
	}
}

func TestIsOtherForm(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"renew", "renewal", true},
		{"electricity", "electric", true},
		{"renew", "renew", false}, // the same word is no other form
		{"car", "card", false},    // too short to carry an ending
		{"charg", "charger", false},
	}
	for _, tt := range tests {
		if got := IsOtherForm(Stem(tt.a), Stem(tt.b)); got != tt.want {
			t.Errorf("IsOtherForm(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// ScanWords' shortcuts for plain words (no trim, no lowercasing) give what the full
// TrimRight and Normalise give, on the edges of the shortcuts too.
func TestScanWordsShortcuts(t *testing.T) {
	for _, s := range []string{
		"where is my parcel", "Where’s my PARCEL?", "rock ’n’ roll", "don't' stop-- it’", "ÉCOLE École",
		"İstanbul KELVIN \u212a", "café’s menu", "x\x99 y\xe2\x80", "WH-1000XM5 check-in-", "ǅemal", "",
	} {
		got := ScanWords(s)
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(plainScanWords(s), got); diff != "" {
			t.Errorf("ScanWords(%q) mismatch (-plain +got):\n%s", s, diff)
		}
	}
}

// plainScanWords is ScanWords without its shortcuts.
func plainScanWords(s string) []Word {
	var out []Word
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.TrimRight(s[start:end], "'’-")
		if w != "" {
			out = append(out, Word{Text: w, Lower: strings.ReplaceAll(strings.ToLower(w), "’", "'"), Start: start, End: start + len(w)})
		}
		start = -1
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
		case (r == '\'' || r == '’' || r == '-') && start >= 0:
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}

// BenchmarkScanWords reads a message of chat into words.
func BenchmarkScanWords(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ScanWords("Hi, my order from last week still hasn't arrived - can you check where it is and what's the ETA?")
	}
}

// BenchmarkTerms reads a tool's description into terms, as every index and vocabulary does.
func BenchmarkTerms(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Terms("Search current offers, deals and sales matching a product or search phrase, with each deal's price (which is cheaper or cheapest), discount and the date it ends.")
	}
}
