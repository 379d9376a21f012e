package httpkit

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// ReadBody reads a request body whole (the body limit bounds it) into a decoder, and reports
// whether its text is text a store can hold as sent: valid UTF-8 with no lone surrogate
// escape. encoding/json would put U+FFFD in place of either, silently. A failed read is left
// for the decoder to meet, after the bytes that did arrive.
func ReadBody(r io.Reader) (dec *json.Decoder, holdable bool) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return json.NewDecoder(io.MultiReader(bytes.NewReader(raw), errReader{err})), true
	}
	return json.NewDecoder(bytes.NewReader(raw)), HoldableText(raw)
}

// HoldableText reports whether a JSON body is valid UTF-8 and escapes no lone surrogate.
func HoldableText(raw []byte) bool {
	return utf8.Valid(raw) && !loneSurrogate(raw)
}

// loneSurrogate reports whether JSON text escapes half a UTF-16 surrogate pair ("\ud800" with
// no low half after it, or a low half alone). Outside strings JSON has no backslashes, so
// every escape met is a string's.
func loneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // "\\", "\"" and the like: the next byte is escaped
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			continue // not JSON: the decoder says so
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(raw, i+8); !ok || i+7 >= len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11 // the pair
		default:
			i += 5
		}
	}
	return false
}

// hex4 reads four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// errReader fails with err: what reading the body failed with, after the bytes it gave.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TooLargeMessage tells a client whose body went past limit bytes how large a body may be,
// so it can send less rather than guess: the limit is a property of the API, not a secret.
func TooLargeMessage(limit int64) string {
	size := strconv.FormatInt(limit, 10) + " bytes"
	switch {
	case limit >= 1<<20 && limit%(1<<20) == 0:
		size = strconv.FormatInt(limit>>20, 10) + " MiB"
	case limit >= 1<<10 && limit%(1<<10) == 0:
		size = strconv.FormatInt(limit>>10, 10) + " KiB"
	}
	return "The request body is larger than the " + size + " this API accepts."
}
