package httpkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// errBodyTimeout is the error a request body's reads return once its read bound has passed.
var errBodyTimeout = errors.New("request body not received in time")

// BodyTimedOut reports whether err is a body read that ran out of time.
func BodyTimedOut(err error) bool { return errors.Is(err, errBodyTimeout) }

type deadlineBodyKey struct{}

// WithBodyDeadline makes r's body readable until timeout from now, after which reads fail
// with an error [BodyTimedOut] recognises. Writers that cannot set a read deadline (tests'
// recorders) read without one.
func WithBodyDeadline(w http.ResponseWriter, r *http.Request, timeout time.Duration) *http.Request {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return r
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return r
	}
	b := &deadlineBody{ReadCloser: r.Body, rc: rc}
	// The context keeps the body at hand for DropBody: handlers wrap r.Body further.
	r = r.WithContext(context.WithValue(r.Context(), deadlineBodyKey{}, b))
	r.Body = b
	return r
}

// deadlineBody is a request body read under a connection read deadline. When the body ends,
// net/http lifts the deadline itself as it starts its own read of the connection (which
// notices a client going away), so a long event stream after the body is never cut. A
// timed-out read leaves the deadline in the past, so that net/http's discarding of the rest
// fails at once and the connection closes.
type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController

	mu       sync.Mutex
	complete bool
	timedOut bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		b.complete = true
	case errors.As(err, &ne) && ne.Timeout():
		b.timedOut = true
		return n, fmt.Errorf("%w: %w", errBodyTimeout, err)
	}
	return n, err
}

// abandon stops reading a body nobody will use (a request that failed auth): net/http would
// otherwise wait for its rest, to reuse the connection, before it closes. A complete body has
// nothing left to wait for, and its connection's deadline belongs to net/http again.
func (b *deadlineBody) abandon() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.complete {
		_ = b.rc.SetReadDeadline(time.Now())
	}
}

// DropBody readies an answer given without reading the request's body (a rejection): the
// connection closes after the answer, and a body still arriving is not waited for, neither
// before the answer (net/http reads an unread body before it writes a response's head) nor
// after it. Call it before the answer's head is written. A request without a body keeps its
// connection.
func DropBody(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	if b, ok := r.Context().Value(deadlineBodyKey{}).(*deadlineBody); ok {
		b.abandon()
	}
}
