package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/demo"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/store"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// answerWait bounds every wait for a server's answer in these tests: generous for a loaded CI
// machine, and far below the hour a test sets as a bound that must never be reached.
const answerWait = 15 * time.Second

// newBoundedServer serves the handler on a real http.Server built by NewHTTPServer, as serve
// does, over the demo definitions with sub-agents that answer at once.
func newBoundedServer(t *testing.T, edit func(*Config)) *httptest.Server {
	t.Helper()
	return newBoundedServerOf(t, edit, func(h *Handler) http.Handler { return h })
}

// newBoundedServerOf is newBoundedServer serving what serve makes of the handler (its API
// alone, say).
func newBoundedServerOf(t *testing.T, edit func(*Config), serve func(*Handler) http.Handler) *httptest.Server {
	t.Helper()
	defs, err := definitions.LoadFS(demo.Agents, ".")
	if err != nil {
		t.Fatal(err)
	}
	orcDef, _ := defs.Get("concierge")
	runtimes := map[string]ask.Agent{}
	for _, d := range defs.SubAgents(orcDef) {
		runtimes[d.ID] = ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
			return ask.Answer{Text: "An answer.", Outcome: ask.OutcomeOK}, nil
		})
	}
	orc, err := orchestrator.New(orchestrator.Config{Definition: orcDef, SubAgents: defs.SubAgents(orcDef), Model: offline.New(), Runtimes: runtimes},
		orchestrator.WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	hub := stream.NewHub(st)
	svc, err := orchestrator.NewService(orchestrator.ServiceConfig{Orchestrator: orc, Store: st, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	turnTokens, err := principal.NewTurnTokens(principal.RandomSecret(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Service: svc, Hub: hub, TurnTokens: turnTokens, Logger: slog.New(slog.DiscardHandler),
		Auth: surfacetest.Tokens{"tok-alice": "alice"},
	}
	if edit != nil {
		edit(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(serve(h))
	srv.Config = NewHTTPServer(serve(h), ServerOptions{})
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		svc.CancelAll()
		ctx, cancel := context.WithTimeout(context.Background(), answerWait)
		defer cancel()
		_ = svc.Wait(ctx)
		hub.Close()
	})
	return srv
}

// partialBody opens a connection that sends a request's headers and one byte of a 1000-byte
// body, then nothing more.
func partialBody(t *testing.T, srv *httptest.Server, auth string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /v1/turns HTTP/1.1\r\nHost: switchboard\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
	if auth != "" {
		head += "Authorization: Bearer " + auth + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// answer reads what the server sends on conn until it closes the connection: the response, if
// any, and whether the close came (rather than the bound).
func answer(t *testing.T, conn net.Conn) (*http.Response, []byte, bool) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(answerWait))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, false
	}
	body, _ := io.ReadAll(resp.Body)
	_, err = br.ReadByte() // the server closes after the answer
	return resp, body, err == io.EOF
}

func errorCode(body []byte) string {
	var e httpkit.ErrorResponse
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// TestPartialBodiesAreAnsweredOrClosed is the acceptance test of the body read bound: 20
// connections each send a body's first byte and stall. Those without credentials get 401 at
// once; the others 408 once the bound passes; every connection is closed, and the server's
// goroutines return to what they were.
func TestPartialBodiesAreAnsweredOrClosed(t *testing.T) {
	srv := newBoundedServer(t, func(c *Config) { c.BodyReadTimeout = 200 * time.Millisecond })
	baseline := runtime.NumGoroutine()
	conns := make([]net.Conn, 20)
	for i := range conns {
		auth := ""
		if i%2 == 1 {
			auth = "tok-alice"
		}
		conns[i] = partialBody(t, srv, auth)
	}
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Go(func() {
			resp, body, closed := answer(t, conn)
			want, code := http.StatusUnauthorized, "unauthenticated"
			if i%2 == 1 {
				want, code = http.StatusRequestTimeout, "request_timeout"
			}
			switch {
			case resp == nil:
				t.Errorf("socket %d: no answer within %s", i, answerWait)
			case resp.StatusCode != want || errorCode(body) != code:
				t.Errorf("socket %d: %d %s, want %d %s", i, resp.StatusCode, body, want, code)
			case !closed:
				t.Errorf("socket %d: answered but not closed", i)
			}
			conn.Close()
		})
	}
	wg.Wait()
	waitGoroutines(t, baseline)
}

// TestFailedAuthDoesNotWaitForTheBody: with a body bound of an hour, a request without valid
// credentials is still answered and closed at once.
func TestFailedAuthDoesNotWaitForTheBody(t *testing.T) {
	srv := newBoundedServer(t, func(c *Config) { c.BodyReadTimeout = time.Hour })
	for _, auth := range []string{"", "not-a-token"} {
		resp, body, closed := answer(t, partialBody(t, srv, auth))
		if resp == nil || resp.StatusCode != http.StatusUnauthorized || !closed {
			t.Errorf("auth %q: answer %v %s, closed %v; want 401 and the connection closed", auth, resp, body, closed)
			continue
		}
		if !resp.Close {
			t.Errorf("auth %q: the 401 does not say Connection: close", auth)
		}
	}
}

// waitGoroutines waits until the process has no more goroutines than baseline: connections'
// goroutines end asynchronously after their sockets close, so this checks the count again as
// they do, within a bound.
func waitGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(answerWait)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most the %d before the test:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // a leak check, not a synchronisation: see above
	}
}

func TestOversizedHeadersAnswer431InJSON(t *testing.T) {
	srv := newBoundedServer(t, func(c *Config) { c.MaxHeaderBytes = 64 << 10 })
	for _, tc := range []struct {
		pad  int
		want int
	}{
		{60 << 10, http.StatusOK},
		{70 << 10, http.StatusRequestHeaderFieldsTooLarge},
		{1000 << 10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/healthz", nil)
		req.Header.Set("X-Pad", strings.Repeat("a", tc.pad))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%d KiB of headers: %v", tc.pad>>10, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%d KiB of headers = %d, want %d", tc.pad>>10, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusRequestHeaderFieldsTooLarge && errorCode(body) != "headers_too_large" {
			t.Errorf("%d KiB of headers: body %.80q, want the JSON error shape with code headers_too_large", tc.pad>>10, body)
		}
	}
}

// TestNULBytesAnswer400 covers every text and id a client sends: none reaches a store.
func TestNULBytesAnswer400(t *testing.T) {
	srv := newBoundedServer(t, nil)
	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok-alice")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, body := range []string{
		`{"message":"hi\u0000there"}`,
		`{"message":"hi","episode_id":"ep\u0000"}`,
		`{"message":"hi","locale":"en\u0000"}`,
		`{"message":"hi","location":"\u0000"}`,
		// Invalid UTF-8, raw or as a lone surrogate, which encoding/json would replace.
		"{\"message\":\"hi \xff\xfe there\"}",
		"{\"message\":\"hi\",\"episode_id\":\"ep-\xff\"}",
		`{"message":"hi \ud800 there"}`,
		`{"message":"hi","location":"\udfff"}`,
		`{"message":"hi \ud800","locale":"\ufffd"}`, // a replacement character sent beside it hides nothing
	} {
		if status, b := do(http.MethodPost, "/v1/turns", body); status != http.StatusBadRequest || errorCode(b) != "invalid_text" {
			t.Errorf("POST /v1/turns %s = %d %s, want 400 invalid_text", body, status, b)
		}
	}
	// A replacement character the client sent is text like any other.
	for _, body := range []string{`{"message":"hi \ufffd there"}`, "{\"message\":\"hi \ufffd there\"}"} {
		if status, b := do(http.MethodPost, "/v1/turns", body); status != http.StatusAccepted {
			t.Errorf("POST /v1/turns %s = %d %s, want 202", body, status, b)
		}
	}
	// An episode id names the episode in a URL path: no slash, no space, not blank.
	for _, id := range []string{"a/b", "   ", "ep 1", `a\\b`, ".", ".."} {
		body := `{"message":"hi","episode_id":"` + id + `"}`
		if status, b := do(http.MethodPost, "/v1/turns", body); status != http.StatusBadRequest || !strings.Contains(string(b), "episode_id") {
			t.Errorf("POST /v1/turns %s = %d %s, want 400 naming episode_id", body, status, b)
		}
	}
	for _, path := range []string{"/v1/turns/turn_%00", "/v1/turns/%00/events", "/v1/episodes/ep%00", "/v1/turns/%FF"} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			if status, b := do(method, path, ""); status != http.StatusBadRequest || errorCode(b) != "invalid_path" {
				t.Errorf("%s %s = %d %s, want 400 invalid_path", method, path, status, b)
			}
		}
	}
}

// An Idempotency-Key with a tab (which net/http lets through) or invalid UTF-8 gets the JSON
// error, not a stored key with control characters in it.
func TestIdempotencyKeyMustBePrintable(t *testing.T) {
	srv := newBoundedServer(t, nil)
	for _, key := range []string{"key\twith-tab", "key-\xff"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/turns", strings.NewReader(`{"message":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer tok-alice")
		req.Header.Set("Idempotency-Key", key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || errorCode(b) != "invalid_idempotency_key" {
			t.Errorf("POST /v1/turns with Idempotency-Key %q = %d %s, want 400 invalid_idempotency_key", key, resp.StatusCode, b)
		}
	}
}

// A dev server whose CCS is not the embedded demo has no faults to inject: it says so, with a
// code a client can tell apart, rather than "no such route"; a server not in dev mode has no
// such route at all.
func TestDevFaultsWithoutTheEmbeddedCCS(t *testing.T) {
	for _, tc := range []struct {
		name string
		dev  bool
		want int
		code string
	}{
		{"dev mode", true, http.StatusConflict, "ccs_not_embedded"},
		{"not dev mode", false, http.StatusNotFound, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newBoundedServer(t, func(cfg *Config) {
				if tc.dev {
					cfg.DevLogin = func(sub string) (string, error) { return "tok-" + sub, nil }
				}
			})
			for _, method := range []string{http.MethodPut, http.MethodDelete} {
				req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+"/v1/dev/ccs-faults", strings.NewReader(`{"*":"error"}`))
				req.Header.Set("Authorization", "Bearer tok-alice")
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body struct {
					Error struct{ Code, Message string }
				}
				err = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != tc.want || body.Error.Code != tc.code {
					t.Errorf("%s /v1/dev/ccs-faults = %d %+v (%v), want %d %s", method, resp.StatusCode, body.Error, err, tc.want, tc.code)
				}
			}
		})
	}
}
