package a2aserver

import (
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
)

// stalledWriter is a response whose client stops reading after the first write: later writes
// block as on a full socket until the write deadline passes, or for good without one.
type stalledWriter struct {
	header http.Header
	never  chan struct{}

	mu       sync.Mutex
	deadline time.Time
	writes   int
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Flush()              {}

func (w *stalledWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	return nil
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, d := w.writes, w.deadline
	w.writes++
	w.mu.Unlock()
	if n == 0 {
		return len(p), nil
	}
	if d.IsZero() {
		<-w.never
		return 0, os.ErrDeadlineExceeded
	}
	timer := time.NewTimer(time.Until(d))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-w.never:
	}
	return 0, os.ErrDeadlineExceeded
}

// A message/stream client that stops reading is let go after the stall timeout: it does not
// hold the handler, and its stream slot, for as long as the connection stays open.
func TestStreamDropsAStalledClient(t *testing.T) {
	svc := surfacetest.New(t, offline.New())
	handler, err := New(Config{Service: svc.Service, Hub: svc.Hub, Auth: surfacetest.AliceAndBob, Logger: slog.New(slog.DiscardHandler),
		Orchestrator: svc.Definition, SubAgents: svc.Orchestrator.SubAgents(), StallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w := &stalledWriter{header: http.Header{}, never: make(chan struct{})}
	t.Cleanup(func() { close(w.never) })
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m-stall","role":"user","parts":[{"kind":"text","text":"` + twoIntents + `"}]}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "/a2a", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok-alice")
	done := make(chan struct{})
	go func() {
		defer close(done)
		handler.ServeHTTP(w, req)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still writes to a client that stopped reading")
	}
}
