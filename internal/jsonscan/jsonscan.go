// Package jsonscan steps through JSON text that encoding/json has already found valid
// (json.Valid), without decoding it: where the blanks stop, where a string or a value ends,
// what a string says. Reading valid text this way costs a fraction of json.Decoder's tokens,
// which build an error value for every scalar. It checks no syntax: given text that is not
// valid JSON, it may misread it or panic.
package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// Text is JSON text, as a string or as bytes.
type Text interface{ ~string | ~[]byte }

// SkipSpace returns the index of the first byte of b from i on that is not JSON whitespace.
func SkipSpace[T Text](b T, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the string that starts at b[i].
func StringEnd[T Text](b T, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++ // the escaped byte cannot end the string
		}
	}
	return i + 1
}

// ValueEnd returns the index just past the value that starts at b[i].
func ValueEnd[T Text](b T, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = StringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && SkipSpace(b, i) == i {
		i++ // a number, true, false or null
	}
	return i
}

// Unquote returns the text of the string quoted (its quotes included), as encoding/json reads
// it: one without escapes in valid UTF-8 is its inner bytes, any other is unquoted by
// encoding/json (an invalid UTF-8 byte becomes U+FFFD).
func Unquote[T Text](quoted T) (string, error) {
	inner := quoted[1 : len(quoted)-1]
	plain, ascii := true, true
	for i := 0; i < len(inner) && plain; i++ {
		plain = inner[i] != '\\'
		ascii = ascii && inner[i] < utf8.RuneSelf
	}
	if plain && (ascii || utf8.ValidString(string(inner))) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal([]byte(quoted), &s)
	return s, err
}
