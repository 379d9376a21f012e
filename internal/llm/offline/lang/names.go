package lang

import (
	"strings"
	"unicode"
)

// Humanise turns an identifier ("points_balance", "pointsBalance", "points.balance")
// into lower-case words.
func Humanise(id string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range id {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		switch w {
		case "id", "url", "uri":
			words[i] = strings.ToUpper(w)
		}
	}
	return strings.Join(words, " ")
}

// Capitalise returns s with its first letter in upper case and the rest as it was.
func Capitalise(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
