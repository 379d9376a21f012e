package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Humanise turns an identifier ("points_balance", "pointsBalance", "points.balance")
// into lower-case words.
func Humanise(id string) string {
	if s, ok := humaniseSnake(id); ok {
		return s
	}
	return humaniseRunes(id)
}

// humaniseSnake is Humanise of the commonest identifier, snake_case in lower-case ASCII
// ("points_balance"), in one allocation where humaniseRunes takes four: every key of every
// tool result is read so. It is false for any other identifier, and for one with an empty
// part ("a__b", "_a") or a part Humanise writes in capitals ("order_id").
func humaniseSnake(id string) (string, bool) {
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return "", false
		}
	}
	for rest, more := id, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "_")
		switch part {
		case "", "id", "url", "uri":
			return "", false
		}
	}
	return strings.ReplaceAll(id, "_", " "), true
}

// humaniseRunes is Humanise of any identifier.
func humaniseRunes(id string) string {
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
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || r == utf8.RuneError && size == 1 {
		return s // empty, or no valid letter to raise: left as given
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
