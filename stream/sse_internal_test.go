package stream

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/r3labs/sse/v2"
)

// TestSSEConnPublishKeepsBacklog checks that the room check and the publish are one step: the
// feeder and the heartbeat each used to check for room and then publish, so together they could
// queue one more than the backlog, overfill the stream's channel (as large as the backlog) and
// drop a client that was keeping up.
func TestSSEConnPublishKeepsBacklog(t *testing.T) {
	const backlog = 2
	srv := sse.New()
	srv.AutoReplay = false
	srv.BufferSize = backlog
	srv.CreateStream(sseStreamID)
	defer srv.RemoveStream(sseStreamID) // no subscriber: nothing is left behind
	w := httptest.NewRecorder()
	rc := http.NewResponseController(w)
	fw := &flushWriter{ResponseWriter: w, rc: rc, flushed: make(chan struct{})}
	fw.Flush() // the headers; no event reaches the wire after it
	c := &sseConn{srv: srv, fw: fw, rc: rc, cancel: func() {}, backlog: backlog}

	event := func(id uint64) *sse.Event { return &sse.Event{ID: []byte{'0' + byte(id)}, Data: []byte("{}")} }
	heartbeat := &sse.Event{Comment: []byte("keep-alive")}
	type outcome struct {
		Target   int
		Full, OK bool
	}
	steps := []struct {
		name string
		ev   *sse.Event
		id   uint64
		want outcome
	}{
		{"first event", event(1), 1, outcome{2, false, true}},
		{"heartbeat fills the backlog", heartbeat, 0, outcome{3, false, true}},
		{"event behind a full backlog", event(2), 2, outcome{0, true, false}},
		{"heartbeat behind a full backlog", heartbeat, 0, outcome{0, true, false}},
	}
	for _, s := range steps {
		var got outcome
		got.Target, got.Full, got.OK = c.publish(s.ev, s.id, false)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: publish (-want +got):\n%s", s.name, diff)
		}
	}
	if q := c.queued(fw.flushCount()); q != backlog {
		t.Errorf("queued = %d, want %d", q, backlog)
	}
	if c.dropped {
		t.Error("a full backlog dropped the client")
	}
}
