package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SpellOut returns text with each rare word that spells the initials of consecutive words of
// one of docs (a tool's name and description), and is no word of any, replaced by those
// words: "how much pto do i have" beside "Paid time off balances" reads "how much paid time
// off do i have", so that tool choice finds the tool and composing sees that its result holds
// what was asked. A common word ("low" is no "lab orders with") or one spelling two
// phrases stays as written, unless it is typed in capitals in a message that is not ("my
// RA", though "ra" is a common word).
func SpellOut(text string, docs []string) string {
	ws := ScanWords(text)
	shouted := unchangedByUpper(text)
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i].Lower
		if len(w) < 2 || len(w) > 5 || IsStopword(w) || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			continue
		}
		// The cheap tests first: most words are little or long, and these read a copy in
		// capitals and the word vectors.
		capitals := !shouted && text[ws[i].Start:ws[i].End] == strings.ToUpper(w)
		if r := WordVectors().Rank(Stem(w)); r > 0 && r < acronymRank && !capitals {
			continue
		}
		if found := spelledBy(w, docs); found != "" {
			text = text[:ws[i].Start] + found + text[ws[i].End:]
		}
	}
	return text
}

// spelledBy returns the one phrase of docs whose initials w spells, or "" when there is none,
// more than one, or w is a word of docs. A phrase of content words alone ("resident advisor")
// is read before one with a little word ("room and"), which acronyms seldom spell ("paid time
// off" does).
func spelledBy(w string, docs []string) string {
	var found [2]string // with a little word, and without
	var twice [2]bool
	for _, doc := range docs {
		dws := ScanWords(doc)
		for j := range dws {
			if dws[j].Lower == w {
				return ""
			}
			if j+len(w) > len(dws) {
				continue
			}
			initials, phrase, content := "", make([]string, len(w)), 1
			for k, dw := range dws[j : j+len(w)] {
				initials += dw.Lower[:1]
				phrase[k] = dw.Lower
				if IsStopword(dw.Lower) {
					content = 0
				}
			}
			if p := strings.Join(phrase, " "); initials == w && found[content] != p {
				twice[content] = twice[content] || found[content] != ""
				found[content] = p
			}
		}
	}
	for _, c := range []int{1, 0} {
		if found[c] != "" {
			if twice[c] {
				return ""
			}
			return found[c]
		}
	}
	return ""
}

// unchangedByUpper reports whether strings.ToUpper(s) == s, without the copy: s is valid
// UTF-8 (ToUpper replaces a bad byte) and no rune of it has another upper case.
func unchangedByUpper(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return unicode.ToUpper(r) != r })
}

var acronymRank = int(Number("acronymRank")) // see language.txt
