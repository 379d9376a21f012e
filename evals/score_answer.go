package evals

import (
	"strings"
	"unicode"
)

// typography folds the characters replies and dataset authors write differently for the same
// thing: curly quotes and apostrophes, dashes, so that "don't" matches "don’t".
var typography = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201b", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201f", `"`, "\u2033", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2212", "-",
)

// foldText lowercases s, folds typography and turns every run of whitespace (line breaks and
// no-break spaces included) into one space. It does not trim: a phrase "no " means the word.
func foldText(s string) string {
	s = typography.Replace(strings.ToLower(s))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// alternatives splits a reply phrase at '|' into its folded alternatives.
func alternatives(phrase string) []string {
	parts := strings.Split(phrase, "|")
	for i, p := range parts {
		parts[i] = foldText(p)
	}
	return parts
}

// replyMatches reports whether the folded reply contains any alternative of phrase. The reply
// is padded with a space on each side so that a phrase starting or ending with a space (a
// whole word) also matches at the reply's edges.
func replyMatches(folded, phrase string) bool {
	for _, a := range alternatives(phrase) {
		if strings.TrimSpace(a) != "" && strings.Contains(folded, a) {
			return true
		}
	}
	return false
}

// checkAnswer returns the mentions the reply lacks and the excluded phrases it contains.
func checkAnswer(reply string, mentions, excludes []string) (missing, present []string) {
	folded := " " + foldText(reply) + " "
	for _, m := range mentions {
		if !replyMatches(folded, m) {
			missing = append(missing, m)
		}
	}
	for _, x := range excludes {
		if replyMatches(folded, x) {
			present = append(present, x)
		}
	}
	return missing, present
}

// answerMessage says why a reply failed its assertions.
func answerMessage(missing, present []string) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "the reply does not mention "+quoteList(missing))
	}
	if len(present) > 0 {
		parts = append(parts, "the reply mentions "+quoteList(present)+", which it must not")
	}
	return strings.Join(parts, "; ")
}

func quoteList(phrases []string) string {
	q := make([]string, len(phrases))
	for i, p := range phrases {
		q[i] = `"` + p + `"`
	}
	return strings.Join(q, ", ")
}
