package assembly

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
	"github.com/switchboard-ai/switchboard/web"
)

// streamWait bounds every wait in the streaming tests: long enough for a loaded CI machine under
// -race, short enough that a hang fails the test instead of the whole run.
const streamWait = 10 * time.Second

// heldCCS is a demo CCS served over real HTTP behind a handler the test controls: it can hold
// chosen enrichers' requests until released (or until the caller goes away), and it counts the
// requests that started and ended, so tests can see that a CCS call is still running or that a
// cancellation reached it, without timing anything.
type heldCCS struct {
	demo *ccsdemo.Server
	srv  *httptest.Server

	mu      sync.Mutex
	gates   map[string]chan struct{} // enricher id -> closed on release
	started map[string]int
	ended   map[string]int
	changed chan struct{} // closed and replaced on every change
}

func newHeldCCS(t *testing.T) *heldCCS {
	t.Helper()
	h := &heldCCS{
		demo:    ccsdemo.New(ccsdemo.Options{}),
		gates:   map[string]chan struct{}{},
		started: map[string]int{},
		ended:   map[string]int{},
		changed: make(chan struct{}),
	}
	h.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		h.releaseAll()
		h.srv.CloseClientConnections()
		h.srv.Close()
	})
	return h
}

func (h *heldCCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, id, _ := strings.Cut(r.URL.Path, ccs.EnrichPathPrefix)
	h.mu.Lock()
	h.started[id]++
	gate := h.gates[id]
	h.notifyLocked()
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.ended[id]++
		h.notifyLocked()
		h.mu.Unlock()
	}()
	if gate != nil {
		// Read the body first, as the demo does: net/http notices that the client went away
		// (and ends r.Context()) only once the request body has been read to its end.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case <-gate:
		case <-r.Context().Done():
			return // the caller is gone: like the demo's Hang, answer nobody
		}
	}
	h.demo.ServeHTTP(w, r)
}

func (h *heldCCS) notifyLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// hold makes the next requests for enricher wait until release.
func (h *heldCCS) hold(enricher string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gates[enricher] = make(chan struct{})
}

func (h *heldCCS) release(enricher string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if g := h.gates[enricher]; g != nil {
		close(g)
		delete(h.gates, enricher)
	}
}

func (h *heldCCS) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, g := range h.gates {
		close(g)
		delete(h.gates, id)
	}
}

// running reports how many requests for enricher have started and not ended.
func (h *heldCCS) running(enricher string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started[enricher] - h.ended[enricher]
}

// counts returns how many requests for enricher started and ended.
func (h *heldCCS) counts(enricher string) (started, ended int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started[enricher], h.ended[enricher]
}

// waitUntil waits, without polling, until cond holds for the CCS's state.
func (h *heldCCS) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timer := time.NewTimer(streamWait)
	defer timer.Stop()
	for {
		h.mu.Lock()
		ch := h.changed
		h.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("CCS: timed out waiting until %s", what)
		}
	}
}

// streamSetup describes a service for the streaming tests.
type streamSetup struct {
	agents string               // agents folder; "" means the repository's
	edit   func(*config.Config) // config changes after the test defaults
	// models adds model aliases (used by a temp agents folder's `model:` keys) to the offline
	// "default" one.
	models map[string]llms.Model
	// sse, when set, serves the app's service through a web handler built here with these
	// options (app.New leaves them at their defaults).
	sse *stream.SSEOptions
	// smallSendBuffers shrinks the server's socket send buffers, so that a client that does
	// not read pushes back on the server after a few kilobytes instead of megabytes.
	smallSendBuffers bool
}

// newStreamApp is newTestApp with the knobs the streaming tests need. Its cleanup releases the
// held CCS requests and cancels running turns before closing the server, so that no handler is
// left following a turn that cannot end.
func newStreamApp(t *testing.T, s streamSetup) *testApp {
	t.Helper()
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Turns.Deadline = 20 * time.Second
	if s.edit != nil {
		s.edit(&cfg)
	}
	if s.agents == "" {
		s.agents = agentsDir
	}
	// Aliases the scenario does not script run the offline model, as configured by default.
	models := map[string]llmModel{}
	for alias, m := range s.models {
		models[alias] = m
	}
	a, err := New(t.Context(), Input{Config: &cfg, Agents: s.agents, Logger: slog.New(slog.DiscardHandler), Models: models})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	handler := a.Handler
	if s.sse != nil {
		tokens, err := principal.NewTurnTokens(principal.RandomSecret(), 10*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		handler, err = web.New(web.Config{
			Service: a.Service, Hub: a.Hub, Auth: principal.BearerAuth(a.DevSigner.Verifier()), TurnTokens: tokens,
			CancelOnDisconnect: cfg.Turns.CancelOnDisconnect, SSE: *s.sse, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewUnstartedServer(handler)
	if s.smallSendBuffers {
		srv.Listener = smallBufferListener{srv.Listener}
	}
	srv.Start()
	t.Cleanup(func() {
		a.Service.CancelAll()
		srv.CloseClientConnections()
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Service.Wait(ctx)
		_ = a.Close()
	})
	return &testApp{App: a, srv: srv}
}

// smallBufferListener gives every accepted TCP connection a small kernel send buffer.
type smallBufferListener struct{ net.Listener }

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// agentsWithEdits copies the repository's agents folder to a temp folder, applying edits: file name
// -> old -> new, each old string required to be present.
func agentsWithEdits(t *testing.T, edits map[string]map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(agentsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(agentsDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for old, repl := range edits[e.Name()] {
			if !bytes.Contains(data, []byte(old)) {
				t.Fatalf("%s: %q not found", e.Name(), old)
			}
			data = bytes.Replace(data, []byte(old), []byte(repl), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gatedModel is a model whose first call waits until the test opens the gate (or the call's
// context ends), then behaves like next. It lets a test decide when a sub-agent starts its
// first tool, which is when its status event is emitted.
type gatedModel struct {
	next llms.Model
	gate chan struct{}
	once sync.Once
}

func newGatedModel(next llms.Model) *gatedModel {
	return &gatedModel{next: next, gate: make(chan struct{})}
}

func (m *gatedModel) open() { m.once.Do(func() { close(m.gate) }) }

func (m *gatedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return m.next.GenerateContent(ctx, msgs, opts...)
}

func (m *gatedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// wordyModel answers every call with the same long text and no tool call: as the orchestrator's
// model it makes a turn whose reply streams as one reply.delta per word.
type wordyModel struct{ text string }

func newWordyModel(words int) *wordyModel {
	var b strings.Builder
	for i := range words {
		fmt.Fprintf(&b, "word%05d ", i)
	}
	return &wordyModel{text: strings.TrimSpace(b.String())}
}

func (m *wordyModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.text, StopReason: "stop"}}}, nil
}

func (m *wordyModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// awaitTurnStored polls the stored turn until it is completed.
func awaitTurnStored(t *testing.T, ta *testApp, sub, turnID string) orchestrator.TurnRecord {
	t.Helper()
	deadline := time.Now().Add(streamWait)
	for {
		rec, err := ta.Service.Turn(t.Context(), principal.Principal(sub), turnID)
		if err != nil {
			t.Fatalf("Turn(%s) = %v", turnID, err)
		}
		if rec.State == orchestrator.TurnCompleted {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("turn %s still %s after %s", turnID, rec.State, streamWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hubLog returns the turn's whole log as the hub serves it.
func hubLog(t *testing.T, ta *testApp, turnID string) []stream.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), streamWait)
	defer cancel()
	var recs []stream.Record
	for rec, err := range ta.Hub.Follow(ctx, turnID, 0) {
		if err != nil {
			t.Fatalf("Follow(%s) = %v", turnID, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// settledGoroutines waits until the goroutine count has not dropped for a few samples and
// returns it: goroutines of closed connections take a moment to exit.
func settledGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(3 * time.Second); same < 5 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m < n {
			n, same = m, 0
			continue
		}
		same++
	}
	return n
}

// waitGoroutinesAtMost fails, with a dump of every stack, unless the goroutine count falls to
// at most limit in time.
func waitGoroutinesAtMost(t *testing.T, limit int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= limit {
			return
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Fatalf("goroutines = %d, want at most %d (baseline):\n%s", n, limit, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
