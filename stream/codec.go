package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Marshal encodes ev for the wire and for a [LogStore]: name is [Event.Name] and data is one
// compact JSON object without newlines, so it fits a single SSE data: line. [Decode] reverses it.
func Marshal(ev Event) (name string, data []byte, err error) {
	if ev == nil {
		return "", nil, fmt.Errorf("stream: marshal: nil event")
	}
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= 64<<10 { // one huge reply must not pin its buffer forever
			encoders.Put(e)
		}
	}()
	e.buf.Reset()
	if err := e.enc.Encode(ev); err != nil {
		return "", nil, fmt.Errorf("stream: marshal %s: %w", ev.Name(), err)
	}
	return ev.Name(), bytes.Clone(bytes.TrimRight(e.buf.Bytes(), "\n")), nil
}

// encoder is a JSON encoder and its buffer, reused across events: every event of every turn
// is encoded once, and a fresh encoder for each cost more than the event.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	// Replies are shown as text, not HTML; escaping <>& only makes the wire harder to read.
	e.enc.SetEscapeHTML(false)
	return e
}}
