package stream_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

func readAll(t testing.TB, in []byte, oneByte bool) ([]stream.WireEvent, error) {
	t.Helper()
	var src io.Reader = bytes.NewReader(in)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	var evs []stream.WireEvent
	for ev, err := range stream.ReadEvents(src) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestReadEvents(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []stream.WireEvent
		wantErr error
	}{
		{
			name: "r3labs framing",
			in:   "id: 1\ndata: {\"a\":1}\nevent: status\n\n: keep-alive\n\nid: 2\ndata: {}\nevent: turn.completed\n\n",
			want: []stream.WireEvent{{ID: 1, Name: "status", Data: []byte(`{"a":1}`)}, {ID: 2, Name: "turn.completed", Data: []byte(`{}`)}},
		},
		{
			name: "multi-line data, default name, no space after colon",
			in:   "data:first\ndata: second\n\n",
			want: []stream.WireEvent{{Name: "message", Data: []byte("first\nsecond")}},
		},
		{
			name: "CR and CRLF line ends, BOM",
			in:   "\uFEFFid: 7\r\ndata: x\r\rdata: y\r\n\r\n",
			want: []stream.WireEvent{{ID: 7, Name: "message", Data: []byte("x")}, {ID: 7, Name: "message", Data: []byte("y")}},
		},
		{
			name: "id persists, empty id resets, retry ignored, unknown field ignored",
			in:   "id: 3\ndata: a\n\nretry: 1000\nfoo: bar\ndata: b\n\nid\ndata: c\n\n",
			want: []stream.WireEvent{{ID: 3, Name: "message", Data: []byte("a")}, {ID: 3, Name: "message", Data: []byte("b")}, {ID: 0, Name: "message", Data: []byte("c")}},
		},
		{
			name: "event without data is not dispatched, empty data line is",
			in:   "event: ping\n\ndata\n\n",
			want: []stream.WireEvent{{Name: "message", Data: []byte{}}},
		},
		{
			name: "cut off event is discarded",
			in:   "data: whole\n\ndata: partial\n",
			want: []stream.WireEvent{{Name: "message", Data: []byte("whole")}},
		},
		{
			name:    "non-numeric id",
			in:      "id: abc\ndata: x\n\n",
			wantErr: stream.ErrBadEventID,
		},
		{
			name:    "line too long",
			in:      "data: " + strings.Repeat("x", 1<<20+1) + "\n\n",
			wantErr: stream.ErrLineTooLong,
		},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			if oneByte && len(tt.in) > 1<<16 {
				continue // slow and adds nothing
			}
			t.Run(tt.name, func(t *testing.T) {
				got, err := readAll(t, []byte(tt.in), oneByte)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadEvents() error = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ReadEvents() mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReadEventsStopsWhenCallerStops(t *testing.T) {
	n := 0
	for range stream.ReadEvents(strings.NewReader("data: a\n\ndata: b\n\n")) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("events read after break = %d, want 1", n)
	}
}

// FuzzReadEvents feeds arbitrary bytes: the parser must not panic, must give the same events
// however the input is chunked, and must give the same events for LF, CR and CRLF line ends.
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("id: 1\ndata: {\"a\":1}\nevent: status\n\n"))
	f.Add([]byte(": comment\r\ndata:x\r\ndata\r\n\r\nid: 18446744073709551615\ndata: y\n\n"))
	f.Add([]byte("\uFEFFretry: 10\nevent:e\ndata: z\rid\r\r"))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, errWhole := readAll(t, in, false)
		bytewise, errBytewise := readAll(t, in, true)
		if (errWhole == nil) != (errBytewise == nil) {
			t.Fatalf("errors differ: whole %v, one byte at a time %v", errWhole, errBytewise)
		}
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Fatalf("chunking changed the events (-whole +bytewise):\n%s", diff)
		}
		for _, ev := range whole {
			if ev.Name == "" {
				t.Fatalf("event with an empty name: %+v", ev)
			}
		}
		if bytes.ContainsRune(in, '\r') {
			return
		}
		crlf, err := readAll(t, bytes.ReplaceAll(in, []byte("\n"), []byte("\r\n")), false)
		if (err == nil) != (errWhole == nil) {
			return // a line limit can trip on the longer input
		}
		if diff := cmp.Diff(whole, crlf); diff != "" {
			t.Fatalf("CRLF line ends changed the events (-LF +CRLF):\n%s", diff)
		}
	})
}
