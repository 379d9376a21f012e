package stream

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/internal/jsonscan"
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
// also trimmed of the blanks left around it. Numbers, booleans and nulls pass unchanged. The
// result is compact: what json.Marshal gives each string, the rest of raw without its blanks.
//
// raw is walked byte by byte once json.Valid has passed it: json.Decoder's tokens cost more
// than the scrubbing (each scalar token builds, and drops, a syntax error message).
func (sc *scrubber) scrubJSON(raw []byte) (json.RawMessage, int, error) {
	if !json.Valid(raw) {
		return nil, 0, errNotOneValue
	}
	out := make([]byte, 0, len(raw))
	scrubbed := 0
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end := jsonscan.StringEnd(raw, i)
			var n int
			var err error
			if out, n, err = sc.appendScrubbed(out, raw[i:end]); err != nil {
				return nil, 0, err
			}
			scrubbed += n
			i = end
		default: // punctuation, and the bytes of numbers, booleans and nulls
			out = append(out, c)
			i++
		}
	}
	return out, scrubbed, nil
}

// appendScrubbed appends to out the valid JSON string quoted with its text scrubbed, as
// json.Marshal encodes it, and returns the matches removed.
func (sc *scrubber) appendScrubbed(out, quoted []byte) ([]byte, int, error) {
	inner := quoted[1 : len(quoted)-1]
	verbatim := plainJSONString(inner)
	if verbatim && anchorsIn(sc, inner) == 0 {
		// Nothing can match in it (find would say so of its text): it goes out as it came,
		// without being read into a string first. Most of a payload's strings are such.
		return append(out, quoted...), 0, nil
	}
	var text string
	if verbatim {
		text = string(inner)
	} else {
		var err error
		if text, err = unquoteJSON(quoted); err != nil {
			return nil, 0, err
		}
	}
	// Until nothing matches: removing one match can join its neighbours into another
	// ("HTTP principal_mismatch500"). Each pass that matches shortens the string, so this
	// ends. What a removed trace leaves is line breaks and indentation, hence the trim.
	clean, scrubbed := text, 0
	for {
		c, n := sc.scrub(clean)
		if n == 0 {
			break
		}
		clean = strings.TrimSpace(c)
		scrubbed += n
	}
	if verbatim && scrubbed == 0 {
		return append(out, quoted...), 0, nil
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return nil, 0, err
	}
	return append(out, b...), scrubbed, nil
}

// plainJSONString reports whether inner, the bytes between the quotes of a valid JSON string,
// is exactly what json.Marshal gives their text: no escapes, and nothing Marshal would escape
// (<, >, &, U+2028, U+2029, a byte that is not UTF-8).
func plainJSONString(inner []byte) bool {
	for i := 0; i < len(inner); {
		c := inner[i]
		if c < utf8.RuneSelf {
			if c == '\\' || c == '<' || c == '>' || c == '&' || c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(inner[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// unquoteJSON decodes the valid JSON string quoted as json.Unmarshal does. It is a function of
// its own so that only the strings that need it pay for the decoder's string on the heap.
func unquoteJSON(quoted []byte) (string, error) {
	var text string
	err := json.Unmarshal(quoted, &text)
	return text, err
}
