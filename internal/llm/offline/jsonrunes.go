package offline

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonRunes returns how many runes json.Marshal writes for v, without writing them, for the
// values tool schemas are made of; ok is false for any other type. Usage is estimated from
// the prompt's length every turn, and marshalling the tools' schemas for it cost a fifth of
// a turn's routing.
func jsonRunes(v any) (n int, ok bool) {
	switch v := v.(type) {
	case nil:
		return len("null"), true
	case bool:
		if v {
			return len("true"), true
		}
		return len("false"), true
	case string:
		return jsonStringRunes(v), true
	case float64:
		return floatRunes(v)
	case int:
		var buf [24]byte
		return len(strconv.AppendInt(buf[:0], int64(v), 10)), true
	case []string:
		n = 2 + max(len(v)-1, 0) // brackets and commas
		for _, s := range v {
			n += jsonStringRunes(s)
		}
		return n, true
	case []any:
		n = 2 + max(len(v)-1, 0)
		for _, e := range v {
			k, ok := jsonRunes(e)
			if !ok {
				return 0, false
			}
			n += k
		}
		return n, true
	case map[string]any:
		n = 2 + max(len(v)-1, 0) // braces and commas
		for key, e := range v {
			k, ok := jsonRunes(e)
			if !ok {
				return 0, false
			}
			n += jsonStringRunes(key) + 1 + k // the key, its colon and its value
		}
		return n, true
	}
	return 0, false
}

// floatRunes is jsonRunes of a float64, formatted as encoding/json does.
func floatRunes(f float64) (int, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false // json.Marshal fails on these
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	n := len(b)
	if format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		n-- // "1e-07" is written "1e-7"
	}
	return n, true
}

// jsonStringRunes returns how many runes a string takes in JSON: its quotes, two for each
// escape of a quote, a backslash or a control character with a short escape (\n, \b...), and
// six for any other escape, including the HTML characters json.Marshal escapes and invalid
// UTF-8.
func jsonStringRunes(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n++
		}
		i += size
	}
	return n
}
