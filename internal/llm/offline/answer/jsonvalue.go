package answer

import (
	"encoding/json"
	"errors"

	"github.com/switchboard-ai/switchboard/internal/jsonscan"
)

// field is one member of a JSON object, kept in the order the producer wrote it so that
// narration follows the data's own emphasis.
type field struct {
	key string
	val any // nil, bool, json.Number, string, []field (object) or []any (array)
}

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxJSONDepth = 32

var errJSONShape = errors.New("offline: malformed JSON")

// decodeOrdered decodes one JSON value, keeping object member order, as encoding/json's
// tokens give it (numbers as json.Number). Once encoding/json finds the text valid it is read
// here: a decoder's token stream allocated for every token, a twelfth of a turn's allocations.
// Strings without escapes are substrings of text.
func decodeOrdered(text string) (any, error) {
	if !json.Valid([]byte(text)) {
		return nil, errJSONShape
	}
	r := jsonReader{s: text}
	return r.value(0)
}

// jsonReader reads a JSON text already known to be valid, from offset i.
type jsonReader struct {
	s string
	i int
	// fields and elems hold the members and elements read so far of the objects and arrays
	// open at the offset, each one's after its parent's: a finished one is copied out at its
	// size, where growing each of them was a third of the reading.
	fields []field
	elems  []any
}

// value reads the value at the offset, depth objects and arrays deep.
func (r *jsonReader) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errJSONShape
	}
	r.skipSpace()
	switch r.s[r.i] {
	case '{':
		r.i++
		open := len(r.fields)
		for r.more('}') {
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			r.skipSpace()
			r.i++ // the colon
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			r.fields = append(r.fields, field{key: k, val: v})
		}
		obj := append([]field{}, r.fields[open:]...)
		r.fields = r.fields[:open]
		return obj, nil
	case '[':
		r.i++
		open := len(r.elems)
		for r.more(']') {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			r.elems = append(r.elems, v)
		}
		arr := append([]any{}, r.elems[open:]...)
		r.elems = r.elems[:open]
		return arr, nil
	case '"':
		return r.str()
	case 't':
		r.i += len("true")
		return true, nil
	case 'f':
		r.i += len("false")
		return false, nil
	case 'n':
		r.i += len("null")
		return nil, nil
	}
	start := r.i
	for r.i < len(r.s) && isNumberByte(r.s[r.i]) {
		r.i++
	}
	return json.Number(r.s[start:r.i]), nil
}

// more reports whether another member or element follows in the object or array that close
// ends, stepping over the comma before it, or over close when none does.
func (r *jsonReader) more(close byte) bool {
	r.skipSpace()
	switch r.s[r.i] {
	case close:
		r.i++
		return false
	case ',':
		r.i++
		r.skipSpace()
	}
	return true
}

// str reads the string at the offset, exactly as encoding/json reads it.
func (r *jsonReader) str() (string, error) {
	start := r.i
	r.i = jsonscan.StringEnd(r.s, r.i)
	return jsonscan.Unquote(r.s[start:r.i])
}

// skipSpace steps over the whitespace JSON allows between tokens.
func (r *jsonReader) skipSpace() { r.i = jsonscan.SkipSpace(r.s, r.i) }

// isNumberByte reports whether c may be part of a JSON number.
func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// member returns the value of key in obj.
func member(obj []field, key string) (any, bool) {
	for _, f := range obj {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}
