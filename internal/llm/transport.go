package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// Why the retry loop lives in the model wrapper and the transport only observes:
//
// langchaingo turns every non-200 answer into a plain string error and, in the openai
// client, rewrites transport errors into new strings, so the status code, Retry-After and
// "was this a connection failure" are lost by the time GenerateContent returns. The
// transport below keeps them: it records, for the attempt in flight, the HTTP status, the
// Retry-After delay and any transport or body-read error, in an [attempt] that the
// wrapper put into the request context.
//
// Retrying in the transport instead would be invisible to the wrapper (no attempt count,
// no way to know a stream already reached the caller) and would need its own deadline and
// give-up error that the providers then re-wrap as strings. Retrying in the wrapper costs
// one re-conversion of the messages per attempt, which is negligible, and keeps one place
// that owns the policy: deadline, backoff, Retry-After, "never after streaming started",
// and the usage hook.

// attempt is what the transport saw during one provider call. The provider may read the
// response body on its own goroutine (openai and anthropic stream readers), hence the lock.
type attempt struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	hasAfter   bool
	netErr     error // transport failure, or a body read that failed before EOF
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

func attemptFrom(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

func (a *attempt) recordResponse(resp *http.Response, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.status = resp.StatusCode
	a.retryAfter, a.hasAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
}

func (a *attempt) recordErr(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.netErr == nil {
		a.netErr = err
	}
}

// snapshot returns the recorded values.
func (a *attempt) snapshot() (status int, retryAfter time.Duration, hasAfter bool, netErr error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status, a.retryAfter, a.hasAfter, a.netErr
}

// recordingTransport records each round trip into the request's [attempt]. It never
// retries.
type recordingTransport struct {
	base http.RoundTripper
	now  func() time.Time
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	a := attemptFrom(req.Context())
	resp, err := t.base.RoundTrip(req)
	if a == nil {
		return resp, err
	}
	if err != nil {
		if req.Context().Err() == nil { // a cancelled call is not a connection failure
			a.recordErr(err)
		}
		return resp, err
	}
	a.recordResponse(resp, t.now())
	resp.Body = &recordingBody{ReadCloser: resp.Body, ctx: req.Context(), a: a}
	return resp, nil
}

// recordingBody notes a body that breaks before EOF (a dropped connection mid-reply).
type recordingBody struct {
	io.ReadCloser
	ctx context.Context
	a   *attempt
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && b.ctx.Err() == nil {
		b.a.recordErr(err)
	}
	return n, err
}
