package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
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

// bounded applies the request bounds before any route runs: the head size (431), the path
// (400 for NUL bytes or invalid UTF-8, which no id can hold) and the body's read deadline.
// Answers are in the JSON error shape; it returns nil when it answered, else the request to
// serve.
func (h *Handler) bounded(w http.ResponseWriter, r *http.Request) *http.Request {
	r = httpkit.WithBodyDeadline(w, r, h.bodyReadTimeout)
	if n := headSize(r); n > h.maxHeaderBytes {
		w.Header().Set("Connection", "close")
		httpkit.DropBody(w, r)
		httpkit.WriteError(w, http.StatusRequestHeaderFieldsTooLarge, "headers_too_large",
			fmt.Sprintf("The request's headers are larger than %d KiB.", h.maxHeaderBytes>>10))
		return nil
	}
	if p := r.URL.Path; !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
		httpkit.DropBody(w, r)
		httpkit.WriteError(w, http.StatusBadRequest, "invalid_path", "The path must be valid UTF-8 without NUL bytes.")
		return nil
	}
	return r
}

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
