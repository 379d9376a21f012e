package stream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
)

// WireEvent is one event as an SSE client receives it.
type WireEvent struct {
	ID   uint64 // the last event id seen on the stream (0 if none): ids persist across events
	Name string // the event field, "message" when absent
	Data []byte // data lines joined by "\n"
}

// maxWireLine bounds a line and an event's data in [ReadEvents].
const maxWireLine = 1 << 20

// ReadEvents parses an SSE stream as the HTML standard's EventSource does: lines end in CRLF,
// LF or CR; a leading BOM is skipped; a line starting with ':' is a comment; fields are id,
// event, data (repeatable, joined with "\n") and retry (accepted and ignored); a blank line
// dispatches the event unless it has no data; an event cut off by the end of the stream is
// discarded. Unlike a browser it requires ids to be decimal integers, as ours are, and yields
// [ErrBadEventID] otherwise.
//
// The sequence ends at the end of r, or after yielding a read error, [ErrBadEventID] or
// [ErrLineTooLong]. It reads r only as the caller pulls, and never closes it.
func ReadEvents(r io.Reader) iter.Seq2[WireEvent, error] {
	return func(yield func(WireEvent, error) bool) {
		lr := lineReader{br: bufio.NewReader(r)}
		var (
			data    []byte
			hasData bool
			name    string
			lastID  uint64
			first   = true
		)
		for {
			line, err := lr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					yield(WireEvent{}, err)
				}
				return
			}
			if first {
				line = bytes.TrimPrefix(line, []byte("\uFEFF"))
				first = false
			}
			if len(line) == 0 {
				if hasData {
					ev := WireEvent{ID: lastID, Name: name, Data: data}
					if ev.Name == "" {
						ev.Name = "message"
					}
					if ev.Data == nil {
						ev.Data = []byte{}
					}
					if !yield(ev, nil) {
						return
					}
				}
				data, hasData, name = nil, false, ""
				continue
			}
			if line[0] == ':' {
				continue
			}
			field, value := line, []byte(nil)
			if i := bytes.IndexByte(line, ':'); i >= 0 {
				field, value = line[:i], line[i+1:]
				value = bytes.TrimPrefix(value, []byte(" "))
			}
			switch string(field) {
			case "event":
				name = string(value)
			case "data":
				if len(data)+len(value) > maxWireLine {
					yield(WireEvent{}, ErrLineTooLong)
					return
				}
				if hasData {
					data = append(data, '\n')
				}
				data, hasData = append(data, value...), true
			case "id":
				if bytes.IndexByte(value, 0) >= 0 {
					continue // the standard ignores ids containing NUL
				}
				if len(value) == 0 {
					lastID = 0
					continue
				}
				id, err := strconv.ParseUint(string(value), 10, 64)
				if err != nil {
					yield(WireEvent{}, fmt.Errorf("%w: %q", ErrBadEventID, value))
					return
				}
				lastID = id
			}
		}
	}
}

// lineReader splits on CRLF, LF or CR. It does not wait for the byte after a CR, so an event
// ending in CR CR is dispatched as soon as it arrives.
type lineReader struct {
	br     *bufio.Reader
	skipLF bool // the previous line ended in CR: a following LF belongs to it
	line   []byte
}

// next returns the next complete line; its contents are valid until the following call. A
// final line without a terminator is reported as io.EOF, not returned.
func (lr *lineReader) next() ([]byte, error) {
	lr.line = lr.line[:0]
	for {
		b, err := lr.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if lr.skipLF {
			lr.skipLF = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return lr.line, nil
		case '\r':
			lr.skipLF = true
			return lr.line, nil
		}
		if len(lr.line) >= maxWireLine {
			return nil, ErrLineTooLong
		}
		lr.line = append(lr.line, b)
	}
}
