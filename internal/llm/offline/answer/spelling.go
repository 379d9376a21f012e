package answer

import (
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// keyWords adds the lowercased words of every key (humanised) in v, however deep: the
// data's own spelling of what it holds.
func keyWords(v any, into map[string]bool) {
	switch x := v.(type) {
	case []field:
		for _, f := range x {
			for _, w := range lang.ScanWords(lang.Humanise(f.key)) {
				into[w.Lower] = true
			}
			keyWords(f.val, into)
		}
	case []any:
		for _, c := range x {
			keyWords(c, into)
		}
	}
}

// spellAsData rewrites the words of asked that are a typo of exactly one word of the data's
// keys ("deductable" for a "deductible" field) in the data's spelling, so that the facts asked
// for are found and the word is not taken for a record no data is about. Only keys: a typo
// corrected to a word of some record's value ("libary" to "The Midnight Library") would pick
// that record. A word the keys use as written, a stopword, or one near several key words
// stays as it is.
func spellAsData(asked string, data any) string {
	vocab := map[string]bool{}
	keyWords(data, vocab)
	ws := lang.ScanWords(asked)
	var b strings.Builder
	last := 0
	for _, w := range ws {
		budget := lang.TypoBudget(len(w.Lower))
		if budget == 0 || vocab[w.Lower] || lang.IsStopword(w.Lower) {
			continue
		}
		fix := ""
		for v := range vocab {
			if v[0] != w.Lower[0] || lang.EditDistance(w.Lower, v, budget) > budget {
				continue
			}
			if fix != "" && fix != v {
				fix = "" // two data words this near: no telling which is meant
				break
			}
			fix = v
		}
		if fix == "" {
			continue
		}
		b.WriteString(asked[last:w.Start])
		b.WriteString(fix)
		last = w.End
	}
	if last == 0 {
		return asked
	}
	b.WriteString(asked[last:])
	return b.String()
}
