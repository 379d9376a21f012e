package route

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

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
		{"whens my bill due n hows my order", []string{"whens my bill due", "hows my order"}},
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
		ws := lang.ScanWords(tt.text)
		var got []string
		for i := range ws {
			got = append(got, compoundAt(ws, i))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("compoundAt(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
