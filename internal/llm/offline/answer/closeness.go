package answer

import (
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// closestRecord returns the record whose values hold the word closest in meaning to t, when
// it is close enough (floor, usually recordCloseness) and ahead of the others (recordLead),
// else -1.
func closestRecord(t string, values []map[string]bool, floor float64) int {
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
	if best < floor || best-second < recordLead {
		return -1
	}
	return at
}

// leadingRecord returns the record of arr whose name (its head member) is closest in meaning
// to the last word of thing, when it is ahead of the others (recordLead), however near; else
// -1. Only names count: "boston" is near every other city a record may go to.
func (r renderer) leadingRecord(thing string, arr []any) int {
	ts := lang.Terms(thing[strings.LastIndex(thing, " ")+1:])
	if len(ts) != 1 || len(arr) < 2 {
		return -1
	}
	names := make([]map[string]bool, len(arr))
	for i, item := range arr {
		var name any
		if obj, ok := item.([]field); ok {
			if h := r.headField(obj); h >= 0 {
				name = obj[h].val
			}
		}
		names[i] = valueTerms(name)
	}
	return closestRecord(ts[0], names, 0)
}

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
