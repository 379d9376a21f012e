package answer

import "github.com/switchboard-ai/switchboard/internal/llm/offline/lang"

// recordCloseness, recordLead: see language.txt, which says where each was chosen.
var (
	recordCloseness = lang.Number("recordCloseness")
	recordLead      = lang.Number("recordLead")
)

// closestRecord returns the record whose values hold the word closest in meaning to t, when
// it is close enough and ahead of the others (see recordCloseness), else -1.
func closestRecord(t string, values []map[string]bool) int {
	q := lang.Meaning([]string{t})
	if q == nil {
		return -1
	}
	closeness := make([]float64, len(values))
	for i, words := range values {
		closeness[i] = -1
		for w := range words {
			if v := lang.Meaning([]string{w}); v != nil {
				closeness[i] = max(closeness[i], lang.Dot(q, v))
			}
		}
	}
	at, best, second := lang.Best(closeness)
	if best < recordCloseness || best-second < recordLead {
		return -1
	}
	return at
}

var claimCloseness = lang.Number("claimCloseness") // see language.txt

// nearAny reports whether some word of words is close in meaning to t, by floor at least:
// with claimCloseness, a record may be about t in other words, and saying none is would be
// a guess; with tradeCloseness, t means nearly what a word of the agent's trade means.
func nearAny(t string, words map[string]bool, floor float64) bool {
	q := lang.Meaning([]string{t})
	if q == nil {
		return false
	}
	for w := range words {
		if v := lang.Meaning([]string{w}); v != nil && lang.Dot(q, v) >= floor {
			return true
		}
	}
	return false
}

// claimed reports whether a record may be about t in other words: one record's value words
// come close in meaning to t (see claimCloseness). When every one of several records does,
// t is one more of their kind rather than any of them: "my tesla" is as close to the Ford
// as to the Honda, and is neither.
func claimed(t string, records []map[string]bool) bool {
	near := 0
	for _, words := range records {
		if nearAny(t, words, claimCloseness) {
			near++
		}
	}
	return near > 0 && (near < len(records) || len(records) == 1)
}

var tradeCloseness = lang.Number("tradeCloseness") // see language.txt

// misspells reports whether word, no English word, is a typo of a word of the trade ("the
// libary" for the library): the agent's own subject, not a thing no record is about.
func misspells(word string, domain map[string]bool) bool {
	if english().Known(lang.Stem(lang.Normalise(word))) {
		return false // an English word is meant as written: a tennis "court" is no "count"
	}
	budget := lang.TypoBudget(len(word))
	for w := range domain {
		if budget > 0 && lang.EditDistance(word, w, budget) <= budget {
			return true
		}
	}
	return false
}
