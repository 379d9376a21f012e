package offline

import (
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lexicon"
)

// dictionary is the English word list (WordNet's), keyed by stem so that query words look it
// up as the index has them. Loaded on first use and shared.
var dictionary = sync.OnceValue(func() *lexicon.Lexicon {
	lx, err := lexicon.New(func(w string) string { return stem(normalise(w)) })
	if err != nil {
		panic(err) // the list is embedded in the build: its own test fails first
	}
	return lx
})

// synonymGroups are everyday English words that people use interchangeably when asking
// for things. They are general vocabulary, not knowledge of any agent: a query word that
// no tool uses may stand in for a synonym that one does, at a discount.
var synonymGroups = [][]string{
	{"deal", "offer", "promotion", "sale", "bargain"},
	{"coupon", "voucher", "discount", "promo"},
	{"price", "cost", "pricing", "cheap", "cheapest", "cheaper", "expensive"},
	{"parcel", "package", "delivery", "shipment", "shipping"},
	{"refund", "return", "reimbursement"},
	{"fly", "flight", "plane", "airline"},
	{"hotel", "accommodation", "lodging", "room"},
	{"trip", "holiday", "vacation", "journey", "itinerary"},
	{"account", "profile"},
	{"email", "e-mail", "mail"},
	{"advice", "tip", "suggestion", "recommendation"},
	{"schedule", "timetable", "calendar"},
	{"appointment", "booking", "reservation"},
}

// phraseExpansions map a run of stopwords that still carries meaning to terms.
var phraseExpansions = []struct {
	words []string
	terms []string
}{
	{[]string{"how", "much"}, []string{"price"}},
}

// synonymWeight discounts a match found through a synonym.
const synonymWeight = 0.6

// synonyms maps a stem to the stems of its group, built once from synonymGroups. It is
// read-only after package initialisation.
var synonyms = func() map[string][]string {
	out := map[string][]string{}
	for _, g := range synonymGroups {
		var stems []string
		for _, w := range g {
			stems = append(stems, terms(w)...)
		}
		for _, s := range stems {
			for _, o := range stems {
				if o != s {
					out[s] = append(out[s], o)
				}
			}
		}
	}
	return out
}()
