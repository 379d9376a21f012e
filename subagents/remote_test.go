package subagents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/principal"
)

// fakeA2A is an A2A JSON-RPC endpoint whose answers the test scripts. answer receives the
// method and the decoded params and returns the JSON of the result (or of an error object,
// when it starts with `{"code"`). It is safe for concurrent use.
type fakeA2A struct {
	srv    *httptest.Server
	answer func(method string, params map[string]any) string
	// raw, when set, replaces the whole HTTP answer.
	raw func(w http.ResponseWriter, r *http.Request, id json.RawMessage)

	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	Method string
	Params map[string]any
	Header http.Header
}

func newFakeA2A(t *testing.T) *fakeA2A {
	t.Helper()
	f := &fakeA2A{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Method string
			Params map[string]any
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.calls = append(f.calls, fakeCall{Method: req.Method, Params: req.Params, Header: r.Header.Clone()})
		f.mu.Unlock()
		if f.raw != nil {
			f.raw(w, r, req.ID)
			return
		}
		result := f.answer(req.Method, req.Params)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(result, `{"code"`) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":`+result+`}`)
			return
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeA2A) recorded() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func remoteDef(url string) *definitions.Definition {
	return &definitions.Definition{Kind: definitions.KindSubAgent, ID: "travel", Name: "Travel",
		Description: "Remote travel agent", A2AURL: url, Timeout: 8 * time.Second}
}

func newTestRemote(t *testing.T, url string, mutate func(*RemoteConfig)) *Remote {
	t.Helper()
	cfg := RemoteConfig{
		Definition: remoteDef(url),
		Credential: func(_ context.Context, p principal.Principal) (string, error) { return "token-for-" + string(p), nil },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatalf("NewRemote() = %v", err)
	}
	return r
}

var aliceAsks = ask.Question{
	Request: "is my flight delayed?",
	Inherited: ask.Inherited{Principal: "alice", EpisodeID: "ep_1", TurnID: "turn_1", Locale: "en-GB",
		Location: "Lisbon", PriorContext: "They asked about offers."},
}

func TestRemoteSendsTheInheritedContext(t *testing.T) {
	f := newFakeA2A(t)
	f.answer = func(string, map[string]any) string {
		return `{"kind":"task","id":"t1","contextId":"ep_1","status":{"state":"completed"},
			"artifacts":[{"artifactId":"reply","parts":[{"kind":"text","text":"UA 212 is on time."}]}]}`
	}
	got, err := newTestRemote(t, f.srv.URL+"/a2a", nil).Ask(t.Context(), aliceAsks)
	if err != nil {
		t.Fatalf("Ask() error = %v", err)
	}
	if diff := cmp.Diff(ask.Answer{Text: "UA 212 is on time.", Outcome: ask.OutcomeOK}, got, ignoreBusy); diff != "" {
		t.Errorf("Ask() reply (-want +got):\n%s", diff)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("calls = %d, want 1", len(calls))
	}
	c := calls[0]
	if c.Method != "message/stream" {
		t.Errorf("method = %q, want message/stream", c.Method)
	}
	if h := c.Header.Get("X-Principal"); h != "alice" {
		t.Errorf("X-Principal = %q, want alice", h)
	}
	if h := c.Header.Get("Authorization"); h != "Bearer token-for-alice" {
		t.Errorf("Authorization = %q, want the credential for alice", h)
	}
	msg := c.Params["message"].(map[string]any)
	wantMsg := map[string]any{
		"kind": "message", "role": "user", "contextId": "ep_1", "messageId": msg["messageId"],
		"parts": []any{map[string]any{"kind": "text", "text": "is my flight delayed?"}},
		"metadata": map[string]any{"principal": "alice", "locale": "en-GB", "location": "Lisbon",
			"prior_context": "They asked about offers."},
	}
	if diff := cmp.Diff(wantMsg, msg); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	wantRest := map[string]any{
		"configuration": map[string]any{"blocking": true, "acceptedOutputModes": []any{"text/plain"}},
	}
	delete(c.Params, "message")
	if diff := cmp.Diff(wantRest, c.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

var ignoreBusy = cmp.Transformer("busy", func(r ask.Answer) ask.Answer { r.Busy = 0; return r })

func TestRemoteAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results []string // answered in order; the last repeats
		want    ask.Answer
		wantErr error
	}{
		{
			name:    "degraded task is partial",
			results: []string{`{"kind":"task","id":"t","status":{"state":"completed"},"metadata":{"outcome":"degraded"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"Only part of it."}]}]}`},
			want:    ask.Answer{Text: "Only part of it.", Outcome: ask.OutcomePartial},
		},
		{
			name:    "message result",
			results: []string{`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"Hello"},{"kind":"data","data":{}},{"kind":"text","text":"there"}]}`},
			want:    ask.Answer{Text: "Hello\nthere", Outcome: ask.OutcomeOK},
		},
		{
			name:    "status message when no artifact",
			results: []string{`{"kind":"task","id":"t","status":{"state":"completed","message":{"kind":"message","messageId":"s","role":"agent","parts":[{"kind":"text","text":"Done."}]}}}`},
			want:    ask.Answer{Text: "Done.", Outcome: ask.OutcomeOK},
		},
		{
			name: "still working, then polled to completion",
			results: []string{
				`{"kind":"task","id":"t9","status":{"state":"working"}}`,
				`{"kind":"task","id":"t9","status":{"state":"submitted"}}`,
				`{"kind":"task","id":"t9","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"Finally."}]}]}`,
			},
			want: ask.Answer{Text: "Finally.", Outcome: ask.OutcomeOK},
		},
		{name: "failed", results: []string{`{"kind":"task","id":"t","status":{"state":"failed"}}`}, wantErr: ErrRemoteTask},
		{name: "canceled", results: []string{`{"kind":"task","id":"t","status":{"state":"canceled"}}`}, wantErr: ErrRemoteTask},
		{name: "rejected", results: []string{`{"kind":"task","id":"t","status":{"state":"rejected"}}`}, wantErr: ErrRemoteTask},
		{name: "input required", results: []string{`{"kind":"task","id":"t","status":{"state":"input-required"}}`}, wantErr: ErrRemoteTask},
		{name: "completed without text", results: []string{`{"kind":"task","id":"t","status":{"state":"completed"}}`}, wantErr: ErrRemoteTask},
		{name: "json-rpc error", results: []string{`{"code":-32001,"message":"No such task."}`}, wantErr: ErrRemote},
		{name: "unknown kind", results: []string{`{"kind":"status-update"}`}, wantErr: ErrRemote},
		{name: "null result", results: []string{`null`}, wantErr: ErrRemote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeA2A(t)
			var mu sync.Mutex
			n := 0
			f.answer = func(string, map[string]any) string {
				mu.Lock()
				defer mu.Unlock()
				r := tc.results[min(n, len(tc.results)-1)]
				n++
				return r
			}
			got, err := newTestRemote(t, f.srv.URL, func(c *RemoteConfig) { c.PollInterval = time.Millisecond }).Ask(t.Context(), aliceAsks)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ask() error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, ignoreBusy); diff != "" {
				t.Errorf("Ask() reply (-want +got):\n%s", diff)
			}
			calls := f.recorded()
			for i, c := range calls[1:] {
				if c.Method != "tasks/get" || c.Params["id"] != "t9" {
					t.Errorf("call %d = %s %v, want tasks/get of t9", i+1, c.Method, c.Params)
				}
			}
		})
	}
}

func TestRemoteTransportFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
	}{
		{"unauthorized", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			http.Error(w, `{"error":{"code":"invalid_token"}}`, http.StatusUnauthorized)
		}},
		{"not json", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			_, _ = io.WriteString(w, "<html>gateway</html>")
		}},
		{"answer to another request", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"other","result":{"kind":"message","parts":[{"kind":"text","text":"hi"}]}}`)
		}},
		{"too large", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"message","parts":[{"kind":"text","text":"`+strings.Repeat("x", 2<<10)+`"}]}}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeA2A(t)
			f.raw = tc.raw
			_, err := newTestRemote(t, f.srv.URL, func(c *RemoteConfig) { c.MaxResponse = 1 << 10 }).Ask(t.Context(), aliceAsks)
			if !errors.Is(err, ErrRemote) {
				t.Errorf("Ask() error = %v, want ErrRemote", err)
			}
		})
	}
}

// The orchestrator's timeout reaches the remote call: a hanging agent costs the deadline, no
// more.
func TestRemoteHonoursTheContext(t *testing.T) {
	f := newFakeA2A(t)
	f.raw = func(_ http.ResponseWriter, r *http.Request, _ json.RawMessage) { <-r.Context().Done() }
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newTestRemote(t, f.srv.URL, nil).Ask(ctx, aliceAsks)
	if !errors.Is(err, ErrRemote) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ask() error = %v, want ErrRemote wrapping the deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Ask() took %v after a 100ms deadline", took)
	}
}

func TestRemoteNeedsAPrincipal(t *testing.T) {
	f := newFakeA2A(t)
	req := aliceAsks
	req.Inherited.Principal = ""
	if _, err := newTestRemote(t, f.srv.URL, nil).Ask(t.Context(), req); !errors.Is(err, ErrNoPrincipal) {
		t.Errorf("Ask() error = %v, want ErrNoPrincipal", err)
	}
	if n := len(f.recorded()); n != 0 {
		t.Errorf("%d calls made without a principal, want 0", n)
	}
}

func TestRemoteCredentialFailureSendsNothing(t *testing.T) {
	f := newFakeA2A(t)
	boom := errors.New("token exchange down")
	r := newTestRemote(t, f.srv.URL, func(c *RemoteConfig) {
		c.Credential = func(context.Context, principal.Principal) (string, error) { return "", boom }
	})
	if _, err := r.Ask(t.Context(), aliceAsks); !errors.Is(err, ErrRemote) || !errors.Is(err, boom) {
		t.Errorf("Ask() error = %v, want ErrRemote wrapping the credential error", err)
	}
	if n := len(f.recorded()); n != 0 {
		t.Errorf("%d calls made without a credential, want 0", n)
	}
}

func TestNewRemoteRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		def  *definitions.Definition
		want error
	}{
		{"nil", nil, ErrNotSubAgent},
		{"orchestrator", &definitions.Definition{Kind: definitions.KindOrchestrator, ID: "c", A2AURL: "http://x/a2a"}, ErrNotSubAgent},
		{"no a2a_url", &definitions.Definition{Kind: definitions.KindSubAgent, ID: "shop"}, ErrNotRemote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewRemote(RemoteConfig{Definition: tc.def}); !errors.Is(err, tc.want) {
				t.Errorf("NewRemote() error = %v, want %v", err, tc.want)
			}
		})
	}
}

// A retried dispatch of the same turn reuses its messageId (the remote's idempotency key);
// anything else gets a new one.
func TestMessageID(t *testing.T) {
	in := aliceAsks.Inherited
	same := messageID(in, "travel", "q")
	if got := messageID(in, "travel", "q"); got != same {
		t.Errorf("messageID differs for the same dispatch: %q vs %q", got, same)
	}
	other := in
	other.TurnID = "turn_2"
	noTurn := in
	noTurn.TurnID = ""
	for name, got := range map[string]string{
		"other request": messageID(in, "travel", "q2"),
		"other agent":   messageID(in, "shop", "q"),
		"other turn":    messageID(other, "travel", "q"),
		"no turn":       messageID(noTurn, "travel", "q"),
	} {
		if got == same {
			t.Errorf("%s: messageID = %q, the same as the original dispatch", name, got)
		}
	}
	if a, b := messageID(noTurn, "travel", "q"), messageID(noTurn, "travel", "q"); a == b {
		t.Errorf("messageID outside a turn repeats: %q", a)
	}
}

func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"1","result":{"kind":"task","id":"t","status":{"state":"completed"},"artifacts":[{"parts":[{"kind":"text","text":"x"}]}]}}`), "1")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no"}}`), "1")
	f.Add([]byte(`{"id":"1","result":{"kind":"message","parts":[{"kind":"text"}]}}`), "1")
	f.Add([]byte(`[]`), "1")
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		res, err := decodeAnswer(data, id, "message/send")
		if err != nil {
			if !errors.Is(err, ErrRemote) {
				t.Fatalf("decodeAnswer() error = %v, not ErrRemote", err)
			}
			return
		}
		// Whatever decoded must be safe to read an answer from.
		reply, err := replyOf(res)
		if err == nil && reply.Text == "" {
			t.Fatalf("replyOf() = empty text without an error")
		}
	})
}

// sseAnswer writes JSON-RPC results as an SSE stream, flushing each, with the UUID-like event
// ids some servers use.
func sseAnswer(w http.ResponseWriter, id json.RawMessage, results ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for i, r := range results {
		_, _ = io.WriteString(w, "id: 3f2c-"+strconv.Itoa(i)+"\n: a comment\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(id)+",\"result\":"+r+"}\n\n")
		w.(http.Flusher).Flush()
	}
}

func TestRemoteStreams(t *testing.T) {
	f := newFakeA2A(t)
	f.raw = func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		calls := f.recorded()
		switch c := calls[len(calls)-1]; c.Method {
		case "message/stream":
			sseAnswer(w, id,
				`{"kind":"task","id":"t-s","contextId":"ep_1","status":{"state":"working"}}`,
				`{"kind":"status-update","taskId":"t-s","contextId":"ep_1","status":{"state":"working"},"final":false}`,
				`{"kind":"artifact-update","taskId":"t-s","contextId":"ep_1","artifact":{"artifactId":"reply","parts":[{"kind":"text","text":"UA 212 "}]}}`,
				`{"kind":"status-update","taskId":"t-s","contextId":"ep_1","status":{"state":"completed"},"final":true}`)
		case "tasks/get":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"task","id":"t-s","status":{"state":"completed"},"artifacts":[{"artifactId":"reply","parts":[{"kind":"text","text":"UA 212 is on time."}]}]}}`)
		}
	}
	got, err := newTestRemote(t, f.srv.URL, nil).Ask(t.Context(), aliceAsks)
	if err != nil || got.Text != "UA 212 is on time." {
		t.Fatalf("Ask() = %+v, %v; want the finished task's answer", got, err)
	}
	calls := f.recorded()
	if len(calls) != 2 || calls[0].Method != "message/stream" || calls[1].Method != "tasks/get" {
		t.Fatalf("calls = %v, want message/stream then tasks/get", calls)
	}
	want := map[string]any{"id": "t-s", "metadata": map[string]any{"principal": "alice"}}
	if diff := cmp.Diff(want, calls[1].Params); diff != "" {
		t.Errorf("tasks/get params (-want +got):\n%s", diff)
	}
	if calls[0].Header.Get("Accept") != "text/event-stream" {
		t.Errorf("message/stream Accept = %q", calls[0].Header.Get("Accept"))
	}
}

// An agent that does not stream is asked with message/send, whether it refuses in JSON or in
// the stream.
func TestRemoteFallsBackToSend(t *testing.T) {
	for _, tc := range []struct {
		code  int
		inSSE bool
	}{{-32601, false}, {-32004, false}, {-32601, true}} {
		code := tc.code
		f := newFakeA2A(t)
		f.raw = func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
			calls := f.recorded()
			refusal := `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":"Method not found"}}`
			switch {
			case calls[len(calls)-1].Method != "message/stream":
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"Sent."}]}}`)
			case tc.inSSE:
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: "+refusal+"\n\n")
			default:
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, refusal)
			}
		}
		got, err := newTestRemote(t, f.srv.URL, nil).Ask(t.Context(), aliceAsks)
		if err != nil || got.Text != "Sent." {
			t.Errorf("code %d: Ask() = %+v, %v; want the message/send answer", code, got, err)
		}
		var methods []string
		for _, c := range f.recorded() {
			methods = append(methods, c.Method)
		}
		if diff := cmp.Diff([]string{"message/stream", "message/send"}, methods); diff != "" {
			t.Errorf("code %d: calls (-want +got):\n%s", code, diff)
		}
	}
}

// A turn cancelled while the remote task works cancels the remote task, streamed or polled.
func TestRemoteCancelsTheRemoteTask(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			f := newFakeA2A(t)
			f.raw = func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
				calls := f.recorded()
				switch calls[len(calls)-1].Method {
				case "message/stream":
					if !streaming {
						_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32004,"message":"This operation is not supported"}}`)
						return
					}
					sseAnswer(w, id, `{"kind":"task","id":"t-hang","status":{"state":"working"}}`)
					<-r.Context().Done() // works on until the caller leaves
				case "message/send", "tasks/get":
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"task","id":"t-hang","status":{"state":"working"}}}`)
				case "tasks/cancel":
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"task","id":"t-hang","status":{"state":"canceled"}}}`)
				}
			}
			// The turn is cancelled once the client has read the working task: a whole SSE
			// event, or a whole JSON response.
			ctx, cancel := context.WithCancel(t.Context())
			client := &http.Client{Transport: &seenTransport{mark: `"t-hang"`, seen: cancel}}
			_, err := newTestRemote(t, f.srv.URL, func(c *RemoteConfig) {
				c.PollInterval = 5 * time.Millisecond
				c.HTTPClient = client
			}).Ask(ctx, aliceAsks)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Ask() error = %v, want the cancellation", err)
			}
			calls := f.recorded()
			last := calls[len(calls)-1]
			want := map[string]any{"id": "t-hang", "metadata": map[string]any{"principal": "alice"}}
			if last.Method != "tasks/cancel" || !cmp.Equal(want, last.Params) {
				t.Errorf("last call = %s %v, want tasks/cancel %v", last.Method, last.Params, want)
			}
			if h := last.Header.Get("Authorization"); h != "Bearer token-for-alice" {
				t.Errorf("tasks/cancel Authorization = %q, want the credential", h)
			}
		})
	}
}

// A turn cancelled after the request left but before the remote named its task still cancels
// that task: the stream is read a moment longer for the id.
func TestRemoteCancelsATaskNamedLate(t *testing.T) {
	f := newFakeA2A(t)
	received, cancelled := make(chan struct{}), make(chan struct{})
	f.raw = func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		calls := f.recorded()
		switch calls[len(calls)-1].Method {
		case "message/stream":
			close(received)
			<-cancelled // the caller's turn is already cancelled when the task is named
			sseAnswer(w, id, `{"kind":"task","id":"t-late","status":{"state":"working"}}`)
			<-r.Context().Done()
		case "tasks/cancel":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"task","id":"t-late","status":{"state":"canceled"}}}`)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-received
		cancel()
		close(cancelled)
	}()
	_, err := newTestRemote(t, f.srv.URL, nil).Ask(ctx, aliceAsks)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Ask() error = %v, want the cancellation", err)
	}
	calls := f.recorded()
	if last := calls[len(calls)-1]; last.Method != "tasks/cancel" || last.Params["id"] != "t-late" {
		t.Errorf("last call = %s %v, want tasks/cancel of t-late", last.Method, last.Params)
	}
}

// seenTransport calls seen once a response body has been read up to the end of an SSE event,
// or to its end, after mark.
type seenTransport struct {
	mark string
	seen func()
	once sync.Once
}

func (s *seenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &seenBody{ReadCloser: resp.Body, t: s}
	}
	return resp, err
}

type seenBody struct {
	io.ReadCloser
	t    *seenTransport
	read strings.Builder
}

func (b *seenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Write(p[:n])
	_, after, found := strings.Cut(b.read.String(), b.t.mark)
	if found && (strings.Contains(after, "\n\n") || errors.Is(err, io.EOF)) {
		b.t.once.Do(b.t.seen)
	}
	return n, err
}

func FuzzSSEData(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "id: x\ndata:a\ndata: b\r\n\r\n", ": c\n\ndata\n\n", "data: " + strings.Repeat("x", 300) + "\n\n", "dataX: y\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		total := 0
		for data, err := range sseData(strings.NewReader(string(body)), 256) {
			if err != nil {
				if !errors.Is(err, errEventTooLarge) {
					t.Fatalf("sseData error = %v", err)
				}
				return
			}
			if len(data) > 256 {
				t.Fatalf("event of %d bytes past the 256 limit", len(data))
			}
			total += len(data)
		}
		if total > len(body) {
			t.Fatalf("yielded %d bytes of data from %d bytes", total, len(body))
		}
	})
}

func TestSSEData(t *testing.T) {
	in := "retry: 10\nid: 9f3e\nevent: x\ndata: one\ndata:two\n\n: keep-alive\n\ndataX: no\ndata\n\ndata: cut"
	var got []string
	for data, err := range sseData(strings.NewReader(in), 1<<10) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if diff := cmp.Diff([]string{"one\ntwo", ""}, got); diff != "" {
		t.Errorf("sseData (-want +got):\n%s", diff)
	}
}
