package lang

import (
	"strings"
	"unicode"
)

// Word is one word of a text with its byte span, so clauses can be cut from the original.
type Word struct {
	Text       string // as written
	Lower      string // lowercased, curly apostrophes straightened
	Start, End int    // byte offsets in the source text
}

// ScanWords returns the words of s: runs of letters and digits, with apostrophes and
// hyphens allowed inside a word ("what's", "check-in", "WH-1000XM5").
func ScanWords(s string) []Word {
	// Sized for chat text, a word to each space, so that a message is read into words in one
	// allocation rather than growing through five or six, and not a third larger than it needs.
	out := make([]Word, 0, strings.Count(s, " ")+1)
	eachWord(s, func(w Word) { out = append(out, w) })
	return out
}

// EachWord calls f with each word of s in order, as ScanWords returns them, for callers
// that use each word once and need no slice of them.
func EachWord(s string, f func(Word)) { eachWord(s, f) }

// eachWord is EachWord.
func eachWord(s string, f func(Word)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := trimWordEnd(s[start:end])
		if w != "" {
			f(Word{Text: w, Lower: Normalise(w), Start: start, End: start + len(w)})
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
			// kept inside a word; trailing ones are trimmed by flush
		default:
			flush(i)
		}
	}
	flush(len(s))
}

// trimWordEnd drops the apostrophes and hyphens that end w: they join words, not end them.
// Most words end in a letter or digit and are returned as they are without decoding them: a
// typographic apostrophe (’, E2 80 99) is the only trimmed character whose last byte is not
// ASCII.
func trimWordEnd(w string) string {
	if w == "" {
		return w
	}
	if last := w[len(w)-1]; last != '\'' && last != '-' && last != 0x99 {
		return w
	}
	return strings.TrimRight(w, "'’-")
}

// Normalise lowercases w and turns a typographic apostrophe into a plain one, so that
// "Where’s" and "where's" are one word. A word that is plain ASCII and lowercase already,
// as most words of chat are, is returned as it is, without the two scans that would find
// nothing to change.
func Normalise(w string) string {
	if isLowerASCII(w) {
		return w
	}
	return strings.ReplaceAll(strings.ToLower(w), "’", "'")
}

// isLowerASCII says whether w is all ASCII with no capital letter.
func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// Terms returns the content stems of s: stopwords dropped, possessives and light
// inflections removed. Both tool documents and user text go through it, so the two sides
// always agree on a stem even where the stem is not a real word.
func Terms(s string) []string {
	var out []string
	eachWord(s, func(w Word) {
		if out == nil {
			// About a term to a space: one allocation where a description's terms grew
			// through five.
			out = make([]string, 0, strings.Count(s, " ")+1)
		}
		out = AppendTerms(out, w.Lower)
	})
	if len(out) == 0 {
		return nil // no term: nil, as ever
	}
	return out
}

// AppendTerms appends to out the content stems of one lowercased word, as Terms does for
// each word of a text: a stopword adds nothing, a hyphenated word adds each of its parts.
func AppendTerms(out []string, lower string) []string {
	if IsStopword(lower) {
		return out
	}
	// Each part in turn, as strings.Split would give them, without its iterator's closures:
	// every word of every tool text and data value passes here.
	for rest, more := lower, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "-")
		part = strings.TrimSuffix(part, "'s")
		part = strings.ReplaceAll(part, "'", "")
		// The word itself (no hyphen, no apostrophe) was found no stopword above.
		if part == "" || part != lower && IsStopword(part) || len(part) < 2 && !IsDigits(part) {
			continue
		}
		out = append(out, Stem(part))
	}
	return out
}

// Stem strips plural, -ing and -ed endings. It is deliberately light: a wrong but
// consistent stem costs nothing, while an aggressive one merges unrelated words. A final e
// goes only where Porter's stemmer drops it, so "price", "priced" and "pricing" meet while
// "plane" stays apart from "plan" and "late" keeps its e; a final double l of a longer word
// is made single, so "cancelled" meets "cancel".
func Stem(w string) string {
	if len(w) <= 3 || len(w) > longestStemmed || IsDigits(w) || singularInS[w] {
		return w
	}
	switch {
	case (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	case strings.HasSuffix(w, "ing"):
		w = stripVerbEnding(w, 3)
	case strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		w = stripVerbEnding(w, 2)
	}
	if n := len(w); n > 3 && w[n-1] == 'e' {
		if base := w[:n-1]; measure(base) > 1 || (measure(base) == 1 && !endsShortSyllable(base)) {
			w = base
		}
	}
	if n := len(w); n > 4 && strings.HasSuffix(w, "ll") && measure(w) > 1 {
		w = w[:n-1]
	}
	return w
}

// longestStemmed bounds the words stem works on (see language.txt).
var longestStemmed = int(Number("longestStemmed"))

// singularInS are nouns that end in s without being plurals: "news" is not many "new"s.
var singularInS = List("singularInS")

// stripVerbEnding removes an -ing or -ed ending when enough of a word is left, undoes a
// doubled final consonant ("shopping" -> "shop") and restores the e a short syllable lost
// ("pricing" -> "price").
func stripVerbEnding(w string, n int) string {
	base := w[:len(w)-n]
	if len(base) == 2 && !isConsonant(base, 0) && isConsonant(base, 1) {
		return base + "e" // owed, owing, used: two letters left are a word's first two
	}
	if len(base) < 3 || !strings.ContainsAny(base, "aeiouy") {
		return w
	}
	if l := len(base); base[l-1] == base[l-2] && !strings.ContainsRune("aeioulsz", rune(base[l-1])) {
		return base[:l-1]
	}
	if measure(base) == 1 && endsShortSyllable(base) {
		return base + "e"
	}
	return base
}

// isConsonant reports whether w[i] is a consonant in Porter's sense: y after a consonant is
// a vowel.
func isConsonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isConsonant(w, i-1)
	}
	return true
}

// measure is Porter's m: how many vowel-consonant sequences w has ("plan" 1, "cancel" 2).
func measure(w string) int {
	m, vowel := 0, false
	for i := range len(w) {
		// y is a vowel after a consonant: the previous letter's kind is known here.
		consonant := !strings.ContainsRune("aeiou", rune(w[i])) && (w[i] != 'y' || i == 0 || vowel)
		if consonant && vowel {
			m++
		}
		vowel = !consonant
	}
	return m
}

// endsShortSyllable reports whether w ends consonant-vowel-consonant, the last not w, x or
// y: the syllable of "plan" and "pric" that a final e lengthens.
func endsShortSyllable(w string) bool {
	n := len(w)
	return n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) &&
		!strings.ContainsRune("wxy", rune(w[n-1]))
}

// IsDigits reports whether s is non-empty and holds only the ASCII digits 0-9.
func IsDigits(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// priceLimits come before a number that bounds a price: "under 600", "max 50". "than"
// does only after "less" or "cheaper": "bigger than 65 inches" describes the product.
var priceLimits = List("priceLimits")

// PriceLimitBefore reports whether the words before ws[i] bound a price: "under", "less
// than", "up to".
func PriceLimitBefore(ws []Word, i int) bool {
	prev := func(k int) string {
		if i-k < 0 {
			return ""
		}
		return ws[i-k].Lower
	}
	switch {
	case priceLimits[prev(1)]:
		return true
	case prev(1) == "than":
		return prev(2) == "less" || prev(2) == "cheaper"
	case prev(1) == "to":
		return prev(2) == "up"
	}
	return false
}

// EditDistance is the optimal-string-alignment distance between a and b (insertions,
// deletions, substitutions and adjacent transpositions), giving up early once it exceeds
// limit; it then returns limit+1.
func EditDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > limit {
		return limit + 1
	}
	return prev[len(b)]
}

// TypoBudget is how many edits a word of this length may carry and still match: none for
// short words, where one edit usually makes another word.
func TypoBudget(n int) int {
	switch {
	case n >= 9:
		return 2
	case n >= 5:
		return 1
	default:
		return 0
	}
}

// IsLightNoun reports whether stem is the stem of a general English noun that names a kind
// of information rather than a subject ("the status", "the details", "what time") or a word
// of the calendar: such words count for less (language.txt says why each is there).
func IsLightNoun(stem string) bool { return lightNouns[stem] }

// lightNouns are the stems IsLightNoun reports.
var lightNouns = func() map[string]bool {
	out := map[string]bool{}
	for w := range List("lightNouns") {
		for _, t := range Terms(w) {
			out[t] = true
		}
	}
	return out
}()

// IsSpace reports whether b is an ASCII space, tab or line break.
func IsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// IsOtherForm reports whether one of two stems is the other with a derivational ending
// (derivedEndings) added, the shorter keeping minDerivedStem letters: "renew" and "renewal",
// "electric" and "electricity". The stemmer removes only inflections, while a question says
// "how much to renew" of data that holds a "renewal" fee.
func IsOtherForm(a, b string) bool {
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= minDerivedStem && short != long && strings.HasPrefix(long, short) &&
		derivedEndings[long[len(short):]] && !IsDigits(short)
}

// minDerivedStem and derivedEndings: see language.txt.
var (
	minDerivedStem = int(Number("minDerivedStem"))
	derivedEndings = List("derivedEndings")
)
