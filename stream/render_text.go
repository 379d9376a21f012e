package stream

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxParamRunes bounds a transform parameter: status lines are glanceable, and a long value is
// more likely to be something that should not be shown at all.
const maxParamRunes = 40

// sanitizeParam makes a sub-agent supplied value safe to splice into a status line: control
// characters and braces (which could forge placeholders) are removed, whitespace is collapsed
// and the result is cut at a word boundary to at most maxParamRunes runes.
func sanitizeParam(v string) string {
	var b strings.Builder
	space := false
	for _, r := range v {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r), r == '{', r == '}', r == utf8.RuneError:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	s := b.String()
	if utf8.RuneCountInString(s) <= maxParamRunes {
		return s
	}
	runes := []rune(s)[:maxParamRunes]
	// Prefer ending on a whole word unless that would throw away most of the value.
	if i := lastSpace(runes); i >= maxParamRunes/2 {
		runes = runes[:i]
	}
	return strings.TrimSpace(string(runes))
}

func lastSpace(rs []rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == ' ' {
			return i
		}
	}
	return -1
}

// connectives are the words that introduce a placeholder and go away with it when the
// parameter is missing: "Searching offers for {query}…" becomes "Searching offers…".
var connectives = map[string]bool{
	"for": true, "in": true, "on": true, "at": true, "to": true, "with": true, "about": true,
	"near": true, "from": true, "of": true, "by": true, "called": true, "named": true,
	"matching": true, "like": true,
}

var closingQuote = map[rune]rune{'"': '"', '\'': '\'', '“': '”', '‘': '’', '«': '»'}

// fillTemplate renders a transform text: each {name} placeholder is replaced by the sanitised
// parameter, or, when it is missing or empty after sanitising, removed together with its
// introducing connective word and enclosing quotes so the line still reads naturally.
func fillTemplate(text string, params map[string]string) string {
	var out strings.Builder
	rest := text
	skipClosing := rune(0)
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		name := rest[open+1 : open+end]
		if !isParamName(name) {
			out.WriteString(rest[:open+1])
			rest = rest[open+1:]
			continue
		}
		lit := rest[:open]
		if skipClosing != 0 {
			lit = strings.TrimPrefix(lit, string(skipClosing))
			skipClosing = 0
		}
		rest = rest[open+end+1:]
		if v := sanitizeParam(params[name]); v != "" {
			out.WriteString(lit)
			out.WriteString(v)
			continue
		}
		// Missing: drop the placeholder and what only made sense with it.
		prefix := out.String() + lit
		prefix, skipClosing = dropQuote(prefix)
		prefix = dropConnective(strings.TrimRight(prefix, " \t"))
		out.Reset()
		out.WriteString(prefix)
	}
	if skipClosing != 0 {
		rest = strings.TrimPrefix(rest, string(skipClosing))
	}
	out.WriteString(rest)
	return tidy(out.String())
}

func isParamName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// dropQuote removes an opening quote right before a placeholder and returns the closing quote
// the caller must drop right after it.
func dropQuote(prefix string) (string, rune) {
	r, size := utf8.DecodeLastRuneInString(prefix)
	if c, ok := closingQuote[r]; ok {
		return prefix[:len(prefix)-size], c
	}
	return prefix, 0
}

func dropConnective(prefix string) string {
	trimmed := strings.TrimRight(prefix, " \t")
	i := strings.LastIndexAny(trimmed, " \t")
	word := trimmed[i+1:]
	if connectives[strings.ToLower(word)] {
		return strings.TrimRight(trimmed[:i+1], " \t")
	}
	return trimmed
}

// tidy collapses runs of spaces, removes spaces before punctuation and trims the line, then
// restores a capital letter if removing a leading placeholder left a lower-case start.
func tidy(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' {
			space = true
			continue
		}
		if space && b.Len() > 0 && !strings.ContainsRune(",.;:!?…)”’»", r) {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if r, size := utf8.DecodeRuneInString(out); unicode.IsLower(r) {
		out = string(unicode.ToUpper(r)) + out[size:]
	}
	return out
}

// joinTexts merges the lines of one batch into a sentence: "A…" and "B…" become "A and b…",
// three or more become "A, b and c…". A trailing ellipsis is kept if any line had one.
func joinTexts(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	parts := make([]string, len(texts))
	ellipsis, period := false, false
	for i, t := range texts {
		t = strings.TrimSpace(t)
		for {
			switch {
			case strings.HasSuffix(t, "…"):
				t, ellipsis = strings.TrimSuffix(t, "…"), true
				continue
			case strings.HasSuffix(t, "..."):
				t, ellipsis = strings.TrimSuffix(t, "..."), true
				continue
			case strings.HasSuffix(t, "."), strings.HasSuffix(t, "!"):
				t, period = t[:len(t)-1], true
				continue
			}
			break
		}
		t = strings.TrimSpace(t)
		if i > 0 {
			t = lowerFirst(t)
		}
		parts[i] = t
	}
	last := len(parts) - 1
	s := strings.Join(parts[:last], ", ") + " and " + parts[last]
	switch {
	case ellipsis:
		return s + "…"
	case period:
		return s + "."
	}
	return s
}

// lowerFirst lower-cases the first letter of a sentence unless its first word looks like a
// name or an acronym ("PointPass", "I", "HTTP"), which must keep its capitals.
func lowerFirst(s string) string {
	first, size := utf8.DecodeRuneInString(s)
	word := s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		word = s[:i]
	}
	if utf8.RuneCountInString(word) < 2 {
		return s
	}
	for _, r := range word[size:] {
		if unicode.IsUpper(r) {
			return s
		}
	}
	return string(unicode.ToLower(first)) + s[size:]
}
