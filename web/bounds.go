package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of the request bounds (config http.*).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 10 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	// hardHeaderBytes is what net/http itself reads of a request's head before answering its
	// own plain-text 431 (at least; twice the handler's cap when that is larger): well above the
	// handler's cap, so that the JSON 431 answers first.
	hardHeaderBytes = 1 << 20
)

// ServerOptions tunes the http.Server of [NewHTTPServer].
type ServerOptions struct {
	// ReadHeaderTimeout bounds reading a request's line and headers; default 10 s.
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds a keep-alive connection between requests; default 2 min.
	IdleTimeout time.Duration
	// MaxHeaderBytes is the handler's own cap (Config.MaxHeaderBytes), so that the server
	// reads heads past it and the handler can answer them in JSON.
	MaxHeaderBytes int
}

// NewHTTPServer returns the http.Server that serves h: bounded header reads, and a head size
// cap that leaves room for h (a [Handler]) to answer oversized heads with a JSON 431. The body
// read bound is h's (Config.BodyReadTimeout), which answers a late body with a JSON 408 and
// lets a request that failed auth go without waiting for its body.
func NewHTTPServer(h http.Handler, o ServerOptions) *http.Server {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 2 * time.Minute
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    max(hardHeaderBytes, 2*o.MaxHeaderBytes),
	}
}

// errBodyTimeout is the error a request body's reads return once its read bound has passed.
var errBodyTimeout = errors.New("web: request body not received in time")

// bounded applies the request bounds before any route runs: the head size (431), the path
// (400 for NUL bytes or invalid UTF-8, which no id can hold) and the body's read deadline.
// Answers are in the JSON error shape; it returns nil when it answered, else the request to
// serve.
func (h *Handler) bounded(w http.ResponseWriter, r *http.Request) *http.Request {
	if n := headSize(r); n > h.maxHeaderBytes {
		w.Header().Set("Connection", "close")
		writeJSONError(w, http.StatusRequestHeaderFieldsTooLarge, "headers_too_large",
			fmt.Sprintf("The request's headers are larger than %d KiB.", h.maxHeaderBytes>>10))
		return nil
	}
	if p := r.URL.Path; !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
		writeJSONError(w, http.StatusBadRequest, "invalid_path", "The path must be valid UTF-8 without NUL bytes.")
		return nil
	}
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		rc := http.NewResponseController(w)
		// Writers that cannot set a deadline (tests' recorders) read without one.
		if rc.SetReadDeadline(time.Now().Add(h.bodyReadTimeout)) == nil {
			b := &deadlineBody{ReadCloser: r.Body, rc: rc}
			// The context keeps the body at hand for dropBody: handlers wrap r.Body further.
			r = r.WithContext(context.WithValue(r.Context(), deadlineBodyKey{}, b))
			r.Body = b
		}
	}
	return r
}

type deadlineBodyKey struct{}

// headSize approximates the bytes of a request's line and headers as received.
func headSize(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len(r.Host) + len("Host: \r\n")
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
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

// dropBody answers a request without reading its body: the connection closes after the
// answer, and a body still arriving is not waited for.
func dropBody(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	if b, ok := r.Context().Value(deadlineBodyKey{}).(*deadlineBody); ok {
		b.abandon()
	}
}

// bodyTimedOut reports whether err is a body read that ran out of time.
func bodyTimedOut(err error) bool { return errors.Is(err, errBodyTimeout) }

// writeJSONError writes the JSON error shape outside gin (before any route runs).
func writeJSONError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(apiError{Error: errorBody{Code: code, Message: message}})
}
