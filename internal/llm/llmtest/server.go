package llmtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// dialect is one provider's wire format.
type dialect interface {
	// base is the path prefix of the base URL a client is configured with.
	base() string
	// paths are the URL path patterns the provider's client posts to; a trailing "/"
	// matches every path below it.
	paths() []string
	// decode turns a request body and its HTTP request (headers, path, query) into a
	// Request.
	decode(body []byte, r *http.Request) (Request, error)
	// writeError answers with an HTTP error status in the provider's error shape.
	writeError(w http.ResponseWriter, status int, retryAfter string)
	// writeReply answers a request with st, streamed when req.Stream. n numbers the
	// request (1-based) for generated ids. A stalled stream waits on hold. r is the
	// request as received, for dialects whose reply format depends on its query.
	writeReply(w http.ResponseWriter, r *http.Request, req Request, st Step, n int, hold <-chan struct{})
}

// Server is a scripted fake LLM endpoint. It is safe for concurrent use.
type Server struct {
	t       testing.TB
	dialect dialect
	hs      *httptest.Server
	closing chan struct{}

	mu       sync.Mutex
	steps    []*step
	requests []Request
}

// NewOpenAI starts a fake OpenAI-compatible server answering POST /chat/completions and
// /v1/chat/completions with script. It is closed by t.Cleanup.
func NewOpenAI(t testing.TB, script ...Step) *Server { return newServer(t, openAIDialect{}, script) }

// NewAnthropic starts a fake Anthropic server answering POST /v1/messages (and
// /messages) with script. It is closed by t.Cleanup.
func NewAnthropic(t testing.TB, script ...Step) *Server {
	return newServer(t, anthropicDialect{}, script)
}

// NewGemini starts a fake of Gemini's OpenAI-compatible endpoint, answering POST
// /v1beta/openai/chat/completions with script the way Gemini does (calls without ids,
// whole calls in one stream chunk, "stop" as the finish reason, errors as an array).
// Gemini correlates calls and results by function name: see [Request] for how they are
// recorded. It is closed by t.Cleanup.
func NewGemini(t testing.TB, script ...Step) *Server { return newServer(t, geminiDialect{}, script) }

func newServer(t testing.TB, d dialect, script []Step) *Server {
	t.Helper()
	s := &Server{t: t, dialect: d, closing: make(chan struct{})}
	for _, st := range script {
		s.steps = append(s.steps, &step{Step: st})
	}
	mux := http.NewServeMux()
	for _, p := range d.paths() {
		mux.HandleFunc("POST "+p, s.serve)
	}
	s.hs = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.closing) // release stalled replies so Close does not wait for them
		s.hs.Close()
	})
	return s
}

// URL is the base URL to configure a client with. For OpenAI and Anthropic it ends in
// "/v1" (their clients append "/chat/completions" and "/messages"); for Gemini it is the
// server root, as a googleai base_url is configured (llm adds "/v1beta/openai").
func (s *Server) URL() string { return s.hs.URL + s.dialect.base() }

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	req, err := s.dialect.decode(body, r)
	if err != nil {
		s.t.Errorf("llmtest: cannot decode %s request: %v", r.URL.Path, err)
		s.dialect.writeError(w, http.StatusBadRequest, "")
		return
	}
	req.Path = r.URL.Path
	req.Body = body

	st, n, ok := s.pick(req)
	if !ok {
		s.t.Errorf("llmtest: no step matches request %d (last user text %q, %d tools, %d messages)",
			n, req.LastUserText(), len(req.Tools), len(req.Messages))
		s.dialect.writeError(w, http.StatusBadRequest, "")
		return
	}
	if st.Status != 0 {
		s.dialect.writeError(w, st.Status, st.RetryAfter)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.dialect.writeReply(w, r, req, st, n, ctx.Done())
}

// pick records req and selects its step. n is the request's 1-based arrival number.
func (s *Server) pick(req Request) (st Step, n int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	n = len(s.requests)
	for _, candidate := range s.steps {
		if !candidate.available() || (candidate.Match != nil && !candidate.Match(req)) {
			continue
		}
		candidate.used++
		return candidate.Step, n, true
	}
	return Step{}, n, false
}

// sse writes Server-Sent Events and flushes each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w: w, f: f}
}

func (s sse) send(event, data string) {
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if s.f != nil {
		s.f.Flush()
	}
}
