package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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

// decodeOrdered decodes one JSON value, keeping object member order.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errJSONShape // trailing data
	}
	return v, nil
}

// decodeValue decodes the next value of dec, depth objects and arrays deep.
func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errJSONShape
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := []field{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errJSONShape
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj = append(obj, field{key: k, val: v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, errJSONShape
	default:
		return t, nil // nil, bool, json.Number or string
	}
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
