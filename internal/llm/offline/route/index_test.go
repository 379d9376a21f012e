package route

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A misspelling is matched to the word it was meant to be; a real word is taken as written,
// even when it is one letter from a word the agents use ("fights" are not "flights").
func TestResolveCorrectsTyposNotWords(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"Checks your points balance and rewards tier."}},
		{Texts: []string{"Finds flights: which plane, which gate, boarding time."}},
	})
	for _, tc := range []struct{ query, want string }{
		{"pionts", "point"},
		{"balanse", "balanc"},
		{"points", "point"},
		{"fights", ""}, // a word: no correction to "flights"
		{"flihgts", "flight"},
		{"gates", "gate"}, // the same stem
		{"tiers", "tier"},
	} {
		got := ix.resolve([]string{lang.Stem(tc.query)})[0].term
		if got != tc.want {
			t.Errorf("resolve(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// PrepareAgents encodes every text of the index, and the phrases of its descriptions, ahead of
// the first turn, so no turn waits for the sentence encoder.
func TestPrepareAgentsEncodesTheTexts(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"ask_loyalty", "Checks your points balance and rewards tier."}},
		{Texts: []string{"ask_flights", "Finds flights: which plane, which gate, boarding time."}, Tools: []string{"Get gate: the gate of a flight."}},
	})
	PrepareAgents(ix)
	if len(ix.sents) != 2 {
		t.Fatalf("after PrepareAgents, len(sents) = %d, want 2", len(ix.sents))
	}
	for d, want := range []int{2, 5} {
		if got := len(ix.sents[d]); got != want {
			t.Errorf("after PrepareAgents, document %d has %d sentence vectors, want %d", d, got, want)
		}
		if got := ix.wholeN[d]; got != 2 {
			t.Errorf("after PrepareAgents, document %d has %d vectors of whole texts, want 2", d, got)
		}
	}
}

// A description is read as its phrases, a list's short items joined.
func TestPhrases(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"Checks your points balance and rewards tier.", nil},
		{"Finds flights: which plane, which gate, boarding time.", []string{"Finds flights which plane", "which gate boarding time"}},
		{"Pet care (dogs, cats): vaccination and booster shots with due dates, vet visits", []string{"Pet care dogs", "cats vaccination and booster shots with due dates vet visits"}},
	} {
		if diff := cmp.Diff(tt.want, phrases(tt.text)); diff != "" {
			t.Errorf("phrases(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// A word is matched to another form of it that a derivational ending makes, not to a longer
// word that merely starts the same way.
func TestDerived(t *testing.T) {
	ix := NewIndex([]Source{{Texts: []string{"utilities", "electricity bills, card payments and a practical guide"}}})
	for _, tt := range []struct{ q, want string }{
		{lang.Stem("electric"), "electricity"},
		{lang.Stem("practice"), lang.Stem("practical")},
		{"car", ""},
		{lang.Stem("utility"), ""}, // "utilities" is its plural, which the stemmer meets
		{"electrician", ""},
	} {
		if got := ix.derived(tt.q); got != tt.want {
			t.Errorf("derived(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// "the electric bill" scores the agent of "electricity bills" above one whose texts say "bill"
// more often.
func TestScoreMeetsAnotherFormOfAWord(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"utilities", "Home utilities help: the user's electricity, water and internet bills, amounts due and due dates, autopay."}},
		{Texts: []string{"phone", "Mobile phone plan: data used on each line, the monthly phone bill and its charges.", "whats on my phone bill this month"}},
	})
	sc := ix.score(queryTerms(lang.ScanWords("how much is the electric bill")))
	if sc[0] <= sc[1] {
		t.Errorf("score(the electric bill) = %v, want utilities (0) above phone (1)", sc)
	}
}

// A word an agent's texts use only in one compound ("gift card") counts for less there when
// the request makes it part of a compound another agent names ("my credit card"); alone, after
// the agent's own word, or after a word no agent pairs with it, it counts in full.
func TestOtherCompound(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"loyalty", "Member perks and gift cards for points; which gift card points can buy."}},
		{Texts: []string{"cardclub", "Credit card benefits: lounge access and insurance that come with a credit card."}},
	})
	for _, tc := range []struct {
		text string
		doc  int
		want []string
	}{
		{"what perks come with my credit card", 0, []string{"card"}},
		{"what perks come with my credit card", 1, nil},
		{"can i get a gift card", 0, nil},
		{"how many points for a card", 0, nil},
		{"a plastic card", 0, nil}, // no agent speaks of plastic cards
	} {
		var got []string
		for t := range ix.otherCompound(tc.text, tc.doc) {
			got = append(got, t)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("otherCompound(%q, %d) (-want +got):\n%s", tc.text, tc.doc, diff)
		}
	}
}

// Between agents, "my credit card" asks the one whose texts say "credit card", clearly enough
// to be routed on the words, not the one that shares the word "perks" and speaks of cards only
// as gift cards.
func TestScoresCompoundOfAnotherAgent(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"loyalty", "Member perks and gift cards: the perks and gift cards points can buy.", "what perks do i get", "which gift card can i get", "a gift card for my points", "gift cards?", "my perks", "member perks please", "perks for gold", "gift card perks", "any perks today", "perks for silver", "are there perks"}},
		{Texts: []string{"cardclub", "Card desk for a cardholder: lounge access, travel insurance, statements, disputes, cashback, balance transfers, limits, payments and fraud alerts, claims for purchase protection and extended warranty, and the perks of a credit card."}},
	})
	const margin = 1.3 // the routing margin's default
	p := &planner{ix: ix, substance: true}
	text := "what perks come with my credit card"
	sc := p.scores(text, queryTerms(lang.ScanWords(text)))
	if sc[1] < margin*sc[0] {
		t.Errorf("scores(%q) = %v, want the credit card agent (1) first by a margin of %v", text, sc, margin)
	}
}

// The user's own thing belongs to the agent whose texts use a word of it, or two of its words
// together, that the other's do not.
func TestOwnThingOf(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"rewards", "Points, pts and credits, and gift cards points can buy."}},
		{Texts: []string{"cardclub", "Credit card benefits: card points and disputes of a charge on a credit card."}},
		{Texts: []string{"support", "Orders, deliveries and refunds."}},
		{Texts: []string{"school", "Grades of the user's son or daughter."}},
	})
	for _, tc := range []struct {
		text       string
		doc, other int
		want       bool
	}{
		{"the points on my credit card", 1, 0, true},
		{"the points on my credit card", 0, 1, false},
		{"how many points do i have", 1, 0, false}, // nothing of the user's named
		{"where is my refund", 2, 0, true},
		{"my points", 1, 0, false},                  // both use "points"
		{"what share does my son get", 3, 0, false}, // a person, no thing
	} {
		if got := ix.ownThingOf(lang.ScanWords(tc.text), tc.doc, tc.other); got != tc.want {
			t.Errorf("ownThingOf(%q, %d, %d) = %v, want %v", tc.text, tc.doc, tc.other, got, tc.want)
		}
	}
}

// A word alone ("card points") counts for less for an agent whose texts use it only in one
// compound ("gift card") when another agent's texts use it on its own, as a thing of theirs.
func TestOtherCompoundAlone(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"loyalty", "Member perks and gift cards for points; which gift card points can buy."}},
		{Texts: []string{"bank", "Bank cards: a lost card, a card limit, or a new debit card."}},
		{Texts: []string{"florist", "Flowers delivered: bouquets and a gift message."}},
	})
	for _, tc := range []struct {
		text string
		doc  int
		want []string
	}{
		{"how many card points do i have", 0, []string{"card"}},
		{"can i get a gift card", 0, nil},
		{"how many card points do i have", 1, nil}, // the bank's card is no compound
		{"a gift message please", 2, nil},          // no other agent has a message of its own
	} {
		var got []string
		for t := range ix.otherCompound(tc.text, tc.doc) {
			got = append(got, t)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("otherCompound(%q, %d) (-want +got):\n%s", tc.text, tc.doc, diff)
		}
	}
}

// The business a description names ("Clearpath Labs") is what a user calls the agent: naming
// it settles a question whose other words ("how much do i owe") fit another agent as well.
func TestDecideNamesTheBusiness(t *testing.T) {
	if got, want := brandTerms("Clearpath Labs patient portal: lab orders. Bills for lab work."), []string{"clearpath", "lab"}; !slices.Equal(got, want) {
		t.Errorf("brandTerms() = %v, want %v", got, want)
	}
	ix := NewIndex([]Source{
		{Texts: []string{"dental", "Dental care assistant: visits, the treatment plan and what the user owes.", "how much do i owe", "what do i owe for my filling"}},
		{Texts: []string{"labtests", "Clearpath Labs patient portal: lab orders, test results and bills for lab work."}},
		{Texts: []string{"library", "Public library account: borrowed books, due dates and fines owed."}},
	})
	humans := []string{"how much do i owe clearpath"}
	if got := Decide(ix, humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}); len(got) != 1 || got[0].Tool != 1 {
		t.Errorf("Decide(%q) = %v, want agent 1", humans, got)
	}
}

// A word no agent's texts use is read as the word of its group of synonyms they do ("swap" of
// an exchange); a word they use, or one with no synonyms, is read as written.
func TestResolveSynonyms(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"support", "Orders, returns and exchanges, and refunds."}},
		{Texts: []string{"coworking", "Desks, meeting rooms and the event space."}},
	})
	for _, tc := range []struct {
		word, want string
	}{
		{"swap", lang.Stem("exchange")},
		{"spot", lang.Stem("space")},
		{"exchange", lang.Stem("exchange")},
		{"trade", ""},
	} {
		if got := ix.resolve([]string{lang.Stem(tc.word)})[0].term; got != tc.want {
			t.Errorf("resolve(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
