package ccs

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// NewInProcessTransport returns a RoundTripper that serves each request by calling h directly,
// with no socket, so an embedded CCS (configured as ccs: {url: embedded}) runs through the very
// same [Client] code as a remote one: headers, body, status mapping and limits included.
//
// Each request runs h on a goroutine other than the caller's, one the transport keeps for a
// few seconds after a request for the next one (a new goroutine's stack grows anew through
// every decode, which cost more than the enricher's own work). RoundTrip returns when h
// returns, or with the request context's error as soon as the context ends (h then finishes
// in the background and its output is dropped), as a real transport would. A panic in h
// becomes a RoundTrip error. The response body is fully buffered.
func NewInProcessTransport(h http.Handler) http.RoundTripper {
	return &inProcess{h: h, work: make(chan func())}
}

type inProcess struct {
	h    http.Handler
	work chan func() // unbuffered: a send succeeds only when a goroutine waits for work
}

var _ http.RoundTripper = (*inProcess)(nil)

// handlerIdle is how long a handler goroutine waits for another request before it ends.
const handlerIdle = 5 * time.Second

// run runs job on a waiting handler goroutine, or on a new one when none waits.
func (t *inProcess) run(job func()) {
	select {
	case t.work <- job:
	default:
		go t.serve(job)
	}
}

// serve runs job, then each job handed to it until none comes for handlerIdle.
func (t *inProcess) serve(job func()) {
	idle := time.NewTimer(handlerIdle)
	defer idle.Stop()
	for {
		job()
		idle.Reset(handlerIdle)
		select {
		case job = <-t.work:
		case <-idle.C:
			return
		}
	}
}

func (t *inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
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
	t.run(func() {
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
	})

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
	header := w.header.Clone()
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
