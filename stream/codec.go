package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal encodes ev for the wire and for a [LogStore]: name is [Event.Name] and data is one
// compact JSON object without newlines, so it fits a single SSE data: line. [Decode] reverses it.
func Marshal(ev Event) (name string, data []byte, err error) {
	if ev == nil {
		return "", nil, fmt.Errorf("stream: marshal: nil event")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Replies are shown as text, not HTML; escaping <>& only makes the wire harder to read.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return "", nil, fmt.Errorf("stream: marshal %s: %w", ev.Name(), err)
	}
	return ev.Name(), bytes.TrimRight(buf.Bytes(), "\n"), nil
}
