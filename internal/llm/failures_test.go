package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
)

// refusingTransport fails the first n round trips as a refused connection would.
type refusingTransport struct {
	n     atomic.Int32
	calls atomic.Int32
}

func (rt *refusingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.calls.Add(1)
	if rt.n.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestProviderRetriesConnectionErrors(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{Text: "back again"})
			rt := &refusingTransport{}
			rt.n.Store(2)
			var sl sleeps
			m := newModel(t, w.config(srv), WithTransport(rt), sl.option())
			resp, err := m.GenerateContent(t.Context(), human("hi"))
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			if got := resp.Choices[0].Content; got != "back again" {
				t.Errorf("Choices[0].Content = %q, want %q", got, "back again")
			}
			if got := rt.calls.Load(); got != 3 {
				t.Errorf("transport saw %d round trips, want 3", got)
			}
			if got := len(sl.got()); got != 2 {
				t.Errorf("slept %d times, want 2", got)
			}
		})
	}
}

// TestProviderTimeout: a reply that stalls past the configured timeout ends the call
// with ErrUnavailable (and DeadlineExceeded), while the caller's context is still live.
func TestProviderTimeout(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{Text: "slow reply here", Stall: true})
			cfg := w.config(srv)
			cfg.Timeout = 200 * time.Millisecond
			m := newModel(t, cfg)
			var col collector
			start := time.Now()
			_, err := m.GenerateContent(t.Context(), human("hi"), llms.WithStreamingFunc(col.fn))
			if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("GenerateContent() error = %v, want ErrUnavailable and DeadlineExceeded", err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("GenerateContent() took %v, want about the %v timeout", elapsed, cfg.Timeout)
			}
			if diff := cmp.Diff([]string{"slow "}, col.got()); diff != "" {
				t.Errorf("streamed chunks mismatch (-want +got):\n%s", diff)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server got %d requests, want 1", got)
			}
		})
	}
}

// TestProviderCallbackError: an error from the caller's streaming callback ends the call
// with that error and no retry.
func TestProviderCallbackError(t *testing.T) {
	stop := errors.New("client gone")
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := w.newServer(t, llmtest.Step{Text: "one two three"})
			m := newModel(t, w.config(srv))
			_, err := m.GenerateContent(t.Context(), human("hi"), llms.WithStreamingFunc(func(context.Context, []byte) error {
				return stop
			}))
			if !errors.Is(err, stop) {
				t.Fatalf("GenerateContent() error = %v, want the callback's error", err)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("server got %d requests, want 1", got)
			}
		})
	}
}
