package ccs

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/switchboard-ai/switchboard/internal/gostack"
)

// NewInProcessTransport returns a RoundTripper that serves each request by calling h directly,
// with no socket, so an embedded CCS (configured as ccs: {url: embedded}) runs through the very
// same [Client] code as a remote one: headers, body, status mapping and limits included.
//
// Each request runs h on its own goroutine. RoundTrip returns when h returns, or with the
// request context's error as soon as the context ends (h then finishes in the background and
// its output is dropped), as a real transport would. A panic in h becomes a RoundTrip error.
// The response body is fully buffered.
func NewInProcessTransport(h http.Handler) http.RoundTripper {
	return inProcess{h: h}
}

type inProcess struct{ h http.Handler }

var _ http.RoundTripper = inProcess{}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// The handler sees a server-side view of the request, like net/http would give it.
	sreq := req.Clone(ctx)
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "in-process"
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}

	w := &bufferedWriter{header: make(http.Header)}
	done := make(chan error, 1)
	go func() {
		gostack.To16K(len(sreq.URL.Path)) // what the demo CCS reaches decoding a request and encoding its envelope
		// RoundTrip must close the request body; doing it here, once the handler is finished
		// with it, avoids racing a handler that is still reading after the caller gave up.
		defer closeBody(req)
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("in-process handler panicked: %v", r)
			}
		}()
		t.h.ServeHTTP(w, sreq)
		done <- nil
	}()

	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case err := <-done:
		if err != nil {
			return nil, err
		}
	}

	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	body := w.body.Bytes()
	// The handler has returned: its headers are the response's own, with no copy.
	header := w.header
	header.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// bufferedWriter collects a handler's response. It is written by the handler goroutine only and
// read by RoundTrip only after that goroutine signalled completion.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}
