package offline

import (
	"strings"
	"unicode"
)

// shapePrefix marks a shape term, so it never meets a word or a typo correction.
const shapePrefix = "#"

// shapeTerms returns the shapes of code-like tokens: letters become "a" and digits "9", so
// "BA117" and "UA 212" are both "#aa999" while the order number "A1043" is "#a9999". A
// request carrying a code shaped like the ones a tool's examples carry is evidence for that
// tool even when the code itself is new. A code is a word mixing letters and digits, or a
// short upper-case word followed by a number ("UA 212").
func shapeTerms(ws []word) []string {
	var out []string
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		hasLetter := strings.ContainsFunc(w.lower, unicode.IsLetter)
		hasDigit := strings.ContainsFunc(w.lower, unicode.IsDigit)
		switch {
		case hasLetter && hasDigit:
			out = append(out, shapeOf(w.lower))
		case hasLetter && len(w.text) <= 3 && w.text == strings.ToUpper(w.text) &&
			i+1 < len(ws) && isDigits(ws[i+1].lower) && ws[i+1].start-w.end <= 1:
			out = append(out, shapeOf(w.lower+ws[i+1].lower))
			i++
		}
	}
	return out
}

func shapeOf(s string) string {
	var b strings.Builder
	b.WriteString(shapePrefix)
	// Lengths are kept: a model number like "v15" is not an order number like "A1043".
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			b.WriteByte('a')
		case unicode.IsDigit(r):
			b.WriteByte('9')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
