package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShapePrefix marks a shape term, so it never meets a word or a typo correction.
const ShapePrefix = "#"

// ShapeTerms returns the shapes of code-like tokens: letters become "a" and digits "9", so
// "BA117" and "UA 212" are both "#aa999" while the order number "A1043" is "#a9999". A
// request carrying a code shaped like the ones a tool's examples carry is evidence for that
// tool even when the code itself is new. A code is a word mixing letters and digits, or a
// short upper-case word followed by a number ("UA 212").
func ShapeTerms(ws []Word) []string {
	var out []string
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		hasLetter := strings.ContainsFunc(w.Lower, unicode.IsLetter)
		hasDigit := strings.ContainsFunc(w.Lower, unicode.IsDigit)
		switch {
		case hasLetter && hasDigit:
			out = append(out, shapeOf(w.Lower))
			if letters, digits, ok := codeParts(w.Lower); ok {
				out = appendLooseShape(out, letters, digits)
			}
		case hasLetter && len(w.Text) <= 3 && w.Text == strings.ToUpper(w.Text) &&
			i+1 < len(ws) && IsDigits(ws[i+1].Lower) && ws[i+1].Start-w.End <= 1:
			out = append(out, shapeOf(w.Lower+ws[i+1].Lower))
			out = appendLooseShape(out, w.Lower, ws[i+1].Lower)
			i++
		}
	}
	return out
}

func shapeOf(s string) string {
	var b strings.Builder
	b.WriteString(ShapePrefix)
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

// appendLooseShape adds the loose shape of a code of letters then at least three digits:
// the letters' count and "any number", so that "DL 1402" meets "UA123" (codes of flights,
// trains and orders vary in how many digits they carry) while "PS5" stays a model name.
func appendLooseShape(out []string, letters, digits string) []string {
	if len(digits) < 3 {
		return out
	}
	return append(out, ShapePrefix+strings.Repeat("a", utf8.RuneCountInString(letters))+"_9")
}

// codeParts splits a code made of letters followed by digits ("ua123").
func codeParts(s string) (letters, digits string, ok bool) {
	i := strings.IndexFunc(s, unicode.IsDigit)
	if i <= 0 || !IsDigits(s[i:]) || strings.ContainsFunc(s[:i], func(r rune) bool { return !unicode.IsLetter(r) }) {
		return "", "", false
	}
	return s[:i], s[i:], true
}
