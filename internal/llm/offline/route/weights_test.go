package route

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []qterm
	}{
		{"any coupons for travel gear", []qterm{{stem: "coupon", weight: 1}, {stem: "travel", weight: scopeWeight, modifier: true}, {stem: "gear", weight: scopeWeight}}},
		{"for my trip, any hotels", []qterm{{stem: "trip", weight: 1}, {stem: "hotel", weight: 1}}}, // no content before "for"
		{"whats the status", []qterm{{stem: "status", weight: lightWeight}}},
		{"the status of my return", []qterm{{stem: "status", weight: lightWeight}, {stem: "return", weight: scopeWeight}}},
		{"what did i buy last month", []qterm{{stem: "buy", weight: 1}, {stem: "last", weight: lightWeight}, {stem: "month", weight: lightWeight}}}, // when, not what
		{"how much is a kindle", []qterm{{stem: "price", weight: phraseWeight}, {stem: "kindl", weight: 1}}},
		{"how much more do I need", nil}, // an amount, not a price
		{"am i anywhere near platinum", []qterm{{stem: "anywher", weight: 1}, {stem: "platinum", weight: scopeWeight}}}, // "near" is no trade's word
		{"how long does a repair take", []qterm{{stem: "long", weight: 1}, {stem: "repair", weight: 1}}},
		{"my shirts cleaned before my trip", []qterm{{stem: "shirt", weight: 1, modifier: true}, {stem: "clean", weight: 1}, {stem: "trip", weight: whenClauseWeight}}},                                                    // when, not what
		{"scratching in the loft at night", []qterm{{stem: "scratch", weight: 1}, {stem: "loft", weight: scopeWeight}, {stem: "night", weight: scopeWeight * lightWeight}}},                                                // when, not a hotel's night
		{"the family membership per year", []qterm{{stem: "family", weight: 1, modifier: true}, {stem: "membership", weight: 1, modifier: true}, {stem: "per", weight: lightWeight}, {stem: "year", weight: lightWeight}}}, // a rate, not a kwh price
		{"a hotel for one night", []qterm{{stem: "hotel", weight: 1}, {stem: "night", weight: scopeWeight}}},
		{"before my trip, any hotels", []qterm{{stem: "trip", weight: 1}, {stem: "hotel", weight: 1}}},                                                             // nothing asked before it
		{"driving lessons", []qterm{{stem: "drive", weight: 1, modifier: true}, {stem: "lesson", weight: 1}}},                                                      // a kind of lesson
		{"who's in charge of the crew", []qterm{{stem: "crew", weight: 1}}},                                                                                        // no charge asked for
		{"a late fee on account of the delay", []qterm{{stem: "late", weight: 1, modifier: true}, {stem: "fee", weight: 1}, {stem: "delay", weight: scopeWeight}}}, // nor an account
		{"point me towards a discount", []qterm{{stem: "discount", weight: 1}}},                                                                                    // asks for no points
		{"what do i pay for my gym bag", []qterm{{stem: "pay", weight: 1}, {stem: "gym", weight: 1, modifier: true}, {stem: "bag", weight: 1}}},                    // the thing paid for
		{"is rex booked into daycare", []qterm{{stem: "rex", weight: 1, modifier: true}, {stem: "book", weight: 1}, {stem: "daycar", weight: 1}}},                  // where rex goes is the thing
		{"how much for a hotel", []qterm{{stem: "price", weight: phraseWeight}, {stem: "hotel", weight: scopeWeight}}},                                             // no word of paying said
		{"is UA 212 late", []qterm{{stem: "ua", weight: 1}, {stem: "212", weight: 1, modifier: true}, {stem: "late", weight: 1}, {stem: "#aa999", weight: 1}, {stem: "#aa_9", weight: 1}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, queryTerms(lang.ScanWords(tt.in)), cmp.AllowUnexported(qterm{})); diff != "" {
			t.Errorf("queryTerms(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestShapeTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"is BA117 on time", []string{"#aa999", "#aa_9"}},
		{"is UA 212 on time", []string{"#aa999", "#aa_9"}},
		{"is DL 1402 on time", []string{"#aa9999", "#aa_9"}}, // meets UA 212 loosely
		{"return for order A1043", []string{"#a9999", "#a_9"}},
		{"dyson v15", []string{"#a99"}}, // a model number, not an order number
		{"how much is a PS5", []string{"#aa9"}},
		{"sony WH-1000XM5", []string{"#aa-9999aa9"}},
		{"in 2 days", nil},     // a lower-case word before a number is not a code
		{"ua 212 please", nil}, // nor is one typed in lower case: too easily a word
		{"AT  5", nil},         // the number must follow at once
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, lang.ShapeTerms(lang.ScanWords(tt.in))); diff != "" {
			t.Errorf("shapeTerms(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"whats 15 times 12", "15 times 12 is 180.", true},
		{"What's 7 plus 8?", "7 plus 8 is 15.", true},
		{"100 divided by 4?", "100 divided by 4 is 25.", true},
		{"10 / 3", "10 / 3 is 3.333333.", true},
		{"2.5 x -2", "2.5 x -2 is -5.", true},
		{"5 / 0", "That one has no answer: nothing can be divided by zero.", true},
		{"whats 15% of 240", "15% of 240 is 36.", true},
		{"what is 20 percent of 80?", "20 percent of 80 is 16.", true},
		{"15% off everything", "", false},
		{"any gift cards under 5000 points", "", false},
		{"is UA 212 on time", "", false},
		{"15 times", "", false},
	}
	for _, tt := range tests {
		got, ok := arithmetic(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("arithmetic(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBoundedPrice(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"an espresso machine for under 150 bucks", true},
		{"need a new mattress under 400 quid, whats out there", true},
		{"anything below $80?", true},
		{"headphones up to 200", true},
		{"do kids under 12 fly free", false},
		{"a table for up to 6 people", false},
		{"a tv under 65 inches", false},
		{"flights under 3 hours", false},
		{"a hotel under 150 a night", false},
		{"dinner under 40 per person", false},
	} {
		ws := lang.ScanWords(tt.text)
		got := false
		for i := range ws {
			got = got || boundedPrice(ws, i)
		}
		if got != tt.want {
			t.Errorf("boundedPrice in %q = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// "back" alone says which way, not what, and adds no term ("my coat came back", "due back");
// as the particle of a phrasal verb it stays, with the verb's meaning ("send the shoes back").
func TestQueryTermsParticles(t *testing.T) {
	for _, tt := range []struct {
		text string
		back bool
	}{
		{"my coat came back from cleaning", false},
		{"when is dune due back", false},
		{"i sent it back two weeks ago", true},
		{"can i send the shoes back", true},
	} {
		got := slices.ContainsFunc(queryTerms(lang.ScanWords(tt.text)), func(q qterm) bool { return q.stem == "back" })
		if got != tt.back {
			t.Errorf("queryTerms(%q) has back = %v, want %v", tt.text, got, tt.back)
		}
	}
}
