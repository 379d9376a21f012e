package answer

import (
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// keyWords returns the lowercased words of every key (humanised) in v, however deep: the
// data's own spelling of what it holds.
func keyWords(v any) map[string]bool {
	into := map[string]bool{}
	seen := map[string]bool{} // a list's records repeat their keys: each is read once
	eachKey(v, func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		lang.EachWord(lang.Humanise(key), func(w lang.Word) { into[w.Lower] = true })
	})
	return into
}

// valueWords returns the lowercased words of every string value in v, however deep.
func valueWords(v any) map[string]bool {
	into := map[string]bool{}
	seen := map[string]bool{} // records repeat their values ("delivered"): each is read once
	eachString(v, func(s string) {
		if seen[s] {
			return
		}
		seen[s] = true
		lang.EachWord(s, func(w lang.Word) {
			into[w.Lower] = true
			if strings.Contains(w.Lower, "-") {
				for part := range strings.SplitSeq(w.Lower, "-") { // "Seattle-Tacoma"
					into[part] = true
				}
			}
		})
	})
	return into
}

// english is the English word list, keyed by stem as the request's terms are.
var english = lang.Dictionary

// spellAsData rewrites the words of asked that are a typo of exactly one word of the data's
// keys ("deductable" for a "deductible" field) in the data's spelling, so that the facts asked
// for are found and the word is not taken for a record no data is about. A longer word may
// also be a typo of a word of some record's value ("my seatle rental" for Seattle), unless it
// is a typo of the agent's trade (domain): "libary" is the library the agent serves, not "The
// Midnight Library". A word the data uses as written, a stopword, or one near several data
// words stays as it is.
func spellAsData(asked string, data any, domain map[string]bool) string {
	d := &dataSpelling{data: data, keys: keyWords(data)}
	var b strings.Builder
	last := 0
	for _, w := range lang.ScanWords(asked) {
		fix := doneBy(w.Lower, d) // "the caterer" is who does the catering the data speaks of
		if fix == "" {
			fix = doerOf(w.Lower, d.keys) // "who scored" asks for the data's scorers
		}
		if fix == "" {
			fix = clippedKey(w.Lower, d) // "the tech" is the data's technician
		}
		if fix == "" {
			fix = typoOf(w.Lower, d, domain)
		}
		if fix == "" {
			fix = synonymIn(w.Lower, d) // "my garage spot" is the data's "space"
		}
		if fix != "" {
			b.WriteString(asked[last:w.Start])
			b.WriteString(fix)
			last = w.End
		}
	}
	if last == 0 {
		return asked
	}
	b.WriteString(asked[last:])
	return b.String()
}

// dataSpelling is the data's own spelling, as spellAsData reads it: the lowercased words of
// its keys, and those of its values, read only once a word of the request needs them. Most
// words of a request are stopwords or English words, which no value respells, and reading
// every value into words was a fifth of a sub-agent's check of its one result.
type dataSpelling struct {
	data any
	keys map[string]bool
	vals map[string]bool // valueWords of data, nil until values first reads them
}

// values returns the words of the data's values (valueWords).
func (d *dataSpelling) values() map[string]bool {
	if d.vals == nil {
		d.vals = valueWords(d.data)
	}
	return d.vals
}

// holds reports whether the data's keys or values hold word w as written.
func (d *dataSpelling) holds(w string) bool { return d.keys[w] || d.values()[w] }

// typoOf returns the one data word w is a typo of (see spellAsData), or "". A long word
// that is no typo of the trade is read against the values too, which from then on hold
// the keys as well.
func typoOf(w string, d *dataSpelling, domain map[string]bool) string {
	budget := lang.TypoBudget(len(w))
	if budget == 0 || lang.IsStopword(w) || english().Known(lang.Stem(lang.Normalise(w))) || d.holds(w) {
		return "" // an English word is meant as written: a tennis "court" is no "count" field
	}
	vocab := d.keys
	if len(w) >= minValueTypoLetters && !misspells(w, domain) {
		vocab = d.values()
		maps.Copy(vocab, d.keys)
	}
	fix := ""
	for v := range vocab {
		if v[0] != w[0] || lang.EditDistance(w, v, budget) > budget {
			continue
		}
		if fix != "" && fix != v {
			return "" // two data words this near: no telling which is meant
		}
		fix = v
	}
	return fix
}

// doneBy returns the data's word for the act that w, a noun for who does it ("bakers",
// "installer", "inspector"), names, when the data holds no w itself but a noun of the act
// ("baking", "installation", "inspection") or, as a member's name, the verb ("drive" of
// "drive_date" for "the drivers"); "" otherwise.
func doneBy(w string, d *dataSpelling) string {
	base := strings.TrimSuffix(w, "s")
	if len(base) < minDoerLetters || !strings.HasSuffix(base, "er") && !strings.HasSuffix(base, "or") || d.holds(w) {
		return ""
	}
	// "baker" is who bakes, "inspector" who inspects: the act with or without its final e.
	verbs := []string{base[:len(base)-2], base[:len(base)-1]}
	stems := []string{lang.Stem(verbs[0]), lang.Stem(verbs[1])}
	act := ""
	for _, vocab := range []map[string]bool{d.keys, d.values()} {
		for v := range vocab {
			noun := strings.HasSuffix(v, "ing") || strings.HasSuffix(v, "ion") || strings.HasSuffix(v, "ment")
			verb := d.keys[v] && slices.Contains(verbs, v)
			if (noun && slices.Contains(stems, lang.Stem(v)) || verb) && (act == "" || v < act) {
				act = v // the first in order of several, so that a reply never varies
			}
		}
	}
	return act
}

// doerOf returns the data's key word for who did the act w, a verb in the past ("scored"),
// names ("scorers"), when the data holds no w itself; "" otherwise. Of several, the first in
// order, so that a reply never varies.
func doerOf(w string, keys map[string]bool) string {
	act, ok := strings.CutSuffix(w, "ed")
	if !ok || keys[w] || len(act) < minDoerLetters-2 {
		return ""
	}
	stem := lang.Stem(w)
	doer := ""
	for k := range keys {
		base := strings.TrimSuffix(k, "s")
		if len(base) < minDoerLetters || !strings.HasSuffix(base, "er") && !strings.HasSuffix(base, "or") {
			continue
		}
		// "scorer" is who scores, "inspector" who inspects: the act with or without its final e.
		if (lang.Stem(base[:len(base)-2]) == stem || lang.Stem(base[:len(base)-1]) == stem) && (doer == "" || k < doer) {
			doer = k
		}
	}
	return doer
}

// clippedKey returns the one word of the data's keys that w is the clipped start of ("tech"
// of "technician", "info" of "information"), when the data holds no w itself; "" otherwise.
func clippedKey(w string, d *dataSpelling) string {
	if len(w) < minClipLetters || lang.IsStopword(w) || d.keys[w] {
		return ""
	}
	whole := ""
	for k := range d.keys {
		if len(k) >= len(w)+minClippedLetters && strings.HasPrefix(k, w) {
			if whole != "" {
				return "" // two keys start so: no telling which is meant
			}
			whole = k
		}
	}
	if whole == "" || d.values()[w] {
		return ""
	}
	return whole
}

// minClipLetters and minClippedLetters: a clipped word keeps at least four letters ("tech")
// and drops at least four ("technician"), so that a word and its own forms ("plan",
// "plans", "planned") are not taken for a clipping.
const minClipLetters, minClippedLetters = 4, 4

// minDoerLetters: a shorter word ("user") is no noun for who does an act.
const minDoerLetters = 5

// synonymStems are the stems of groups of words that name one thing in people's records
// (synonyms in language.txt).
var synonymStems = func() [][]string {
	var out [][]string
	for _, group := range lang.Frames("synonyms") {
		stems := make([]string, len(group))
		for i, w := range group {
			stems[i] = lang.Stem(w)
		}
		out = append(out, stems)
	}
	return out
}()

// synonymIn returns the data's word for w when w is not in the data but a word of its group
// in synonyms is, in one form ("spot" for a "space" field, "space" for a "spot" one); ""
// otherwise. Either word of a group may be the question's or the data's.
func synonymIn(w string, d *dataSpelling) string {
	if lang.IsStopword(w) {
		return ""
	}
	stem := lang.Stem(w)
	if !slices.ContainsFunc(synonymStems, func(group []string) bool { return slices.Contains(group, stem) }) || d.holds(w) {
		return ""
	}
	fix := ""
	for _, group := range synonymStems {
		if !slices.Contains(group, stem) {
			continue
		}
		for _, vocab := range []map[string]bool{d.keys, d.values()} {
			for v := range vocab {
				vs := lang.Stem(v)
				if vs == stem {
					return "" // the data holds w in another form
				}
				if slices.Contains(group, vs) && (fix == "" || v < fix) {
					fix = v // the first in order of several, so that a reply never varies
				}
			}
		}
	}
	return fix
}
