package vectors_test

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/vectors"
)

func TestRelatedWordsPointAlike(t *testing.T) {
	tb, err := vectors.New(strings.ToLower)
	if err != nil {
		t.Fatal(err)
	}
	sim := func(a, b string) float64 {
		va, vb := tb.Lookup(a), tb.Lookup(b)
		if va == nil || vb == nil {
			t.Fatalf("no vector for %q or %q", a, b)
		}
		return vectors.Cosine(va, vb)
	}
	for _, tc := range []struct{ a, b, unrelated string }{
		{"cardiologist", "doctor", "invoice"},
		{"electricity", "energy", "election"},
		{"laptop", "computer", "vaccine"},
		{"flight", "airline", "mortgage"},
	} {
		if near, far := sim(tc.a, tc.b), sim(tc.a, tc.unrelated); near < 0.4 || near < far+0.3 {
			t.Errorf("cos(%s, %s) = %.2f, cos(%s, %s) = %.2f: want the first well above the second",
				tc.a, tc.b, near, tc.a, tc.unrelated, far)
		}
	}
	if self := sim("doctor", "doctor"); self < 0.98 {
		t.Errorf("a word's cosine with itself = %.3f, want about 1", self)
	}
	if tb.Lookup("zzqx") != nil || tb.Rank("zzqx") != 0 {
		t.Error("an unknown word has a vector")
	}
	if tb.Rank("the") != 1 || tb.Rank("doctor") <= tb.Rank("the") {
		t.Errorf("ranks: the=%d doctor=%d, want frequency order", tb.Rank("the"), tb.Rank("doctor"))
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := vectors.New(strings.ToLower); err != nil {
			b.Fatal(err)
		}
	}
}
