package stream

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// streamHead writes what the head once was, the handler's headers cloned and the stream's set
// over them, line for line (a map's lines come in no set order), and leaves h untouched.
func TestStreamHeadIsTheClonedHeadersWithTheStreams(t *testing.T) {
	for _, h := range []http.Header{
		{},
		{"X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {"default-src 'self'"}},
		{"Content-Type": {"application/json"}, "Connection": {"keep-alive"}, "Cache-Control": {"max-age=9"}, "X-Accel-Buffering": {"yes"}},
		{"Set-Cookie": {"a=1", "b=2"}, "content-type": {"text/plain"}, "X-Request-Id": {""}},
	} {
		before := h.Clone()
		got := lines(string(streamHead(h)))
		want := lines(clonedHead(h))
		if !slices.Equal(got, want) {
			t.Errorf("streamHead(%v) lines = %q, want %q", h, got, want)
		}
		if !strings.HasPrefix(string(streamHead(h)), "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(string(streamHead(h)), "\r\n\r\n") {
			t.Errorf("streamHead(%v) = %q: not a status line, headers and a blank line", h, streamHead(h))
		}
		if !slices.Equal(lines(clonedHead(before)), lines(clonedHead(h))) || len(h) != len(before) {
			t.Errorf("streamHead changed its headers: %v, was %v", h, before)
		}
	}
}

// clonedHead is how takeOver wrote a head before streamHead.
func clonedHead(w http.Header) string {
	h := w.Clone()
	setStreamHeaders(h)
	h.Set("Connection", "close")
	head := []byte("HTTP/1.1 200 OK\r\n")
	for k, vs := range h {
		for _, v := range vs {
			head = append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
		}
	}
	return string(append(head, "\r\n"...))
}

func lines(head string) []string {
	out := strings.Split(head, "\r\n")
	slices.Sort(out)
	return out
}
