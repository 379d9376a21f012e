package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// MaxComponentBytes caps the structured components one [ReplyCompleted] carries, in bytes of
// JSON after guarding. Components are render payloads (a list of offers, a balance): a few
// kilobytes each. A CCS payload passed through whole can be most of a megabyte, and every
// follower and every replay would carry it again.
const MaxComponentBytes = 64 << 10

// guardComponents scrubs every string (keys included) inside each component the way reply text
// is scrubbed, and keeps components in order while their total size stays within
// [MaxComponentBytes]: the first component that would pass the cap and every one after it are
// dropped, so a client never renders a later component without an earlier one. A component
// that is not one JSON value is dropped. The reply's text is never affected. It returns the
// kept components and the number of matches scrubbed.
func (sc *scrubber) guardComponents(comps []json.RawMessage) ([]json.RawMessage, int) {
	var kept []json.RawMessage
	total, scrubbed := 0, 0
	for _, c := range comps {
		clean, n, err := sc.scrubJSON(c)
		if err != nil {
			continue
		}
		if total+len(clean) > MaxComponentBytes {
			break
		}
		total += len(clean)
		scrubbed += n
		kept = append(kept, clean)
	}
	return kept, scrubbed
}

var errNotOneValue = errors.New("stream: component is not one JSON value")

// scrubJSON re-encodes the JSON value raw with every string scrubbed until nothing in it
// matches, keeping its structure and the order of object keys; a string that lost a match is
// also trimmed of the blanks left around it. Numbers, booleans and nulls pass unchanged.
func (sc *scrubber) scrubJSON(raw []byte) (json.RawMessage, int, error) {
	if !json.Valid(raw) {
		return nil, 0, errNotOneValue
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(raw))
	// For each open container: whether it is an object, and how many keys and values it
	// has had, which decides the separator before the next one.
	type open struct {
		object bool
		n      int
	}
	var stack []open
	scrubbed := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		if len(stack) > 0 && !closing {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out.WriteByte(':')
			case top.n > 0:
				out.WriteByte(',')
			}
			top.n++
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			if closing {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, open{object: t == '{'})
			}
		case string:
			// Until nothing matches: removing one match can join its neighbours into
			// another ("HTTP principal_mismatch500"). Each pass that matches shortens the
			// string, so this ends. What a removed trace leaves is line breaks and
			// indentation, hence the trim.
			clean := t
			for {
				c, n := sc.scrub(clean)
				if n == 0 {
					break
				}
				clean = strings.TrimSpace(c)
				scrubbed += n
			}
			b, err := json.Marshal(clean)
			if err != nil {
				return nil, 0, err
			}
			out.Write(b)
		case json.Number:
			out.WriteString(t.String())
		case bool:
			if t {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), scrubbed, nil
}
