package assembly

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/config"
)

// blockingModel holds every call until released (or until the call's context ends) and keeps
// the highest number of calls held at once: with one held call per running turn, that is the
// most turns that ever ran at once.
type blockingModel struct {
	release chan struct{}
	once    sync.Once

	mu      sync.Mutex
	held    int
	maxHeld int
	changed chan struct{} // closed and replaced whenever held changes
}

func newBlockingModel() *blockingModel {
	return &blockingModel{release: make(chan struct{}), changed: make(chan struct{})}
}

func (m *blockingModel) open() { m.once.Do(func() { close(m.release) }) }

func (m *blockingModel) add(d int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held += d
	m.maxHeld = max(m.maxHeld, m.held)
	close(m.changed)
	m.changed = make(chan struct{})
}

// waitHeld waits until exactly n calls are held.
func (m *blockingModel) waitHeld(t *testing.T, n int) {
	t.Helper()
	for {
		m.mu.Lock()
		held, changed := m.held, m.changed
		m.mu.Unlock()
		if held == n {
			return
		}
		select {
		case <-changed:
		case <-t.Context().Done():
			t.Fatalf("held model calls = %d, want %d", held, n)
		}
	}
}

func (m *blockingModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.add(1)
	defer m.add(-1)
	select {
	case <-m.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Done.", StopReason: "stop"}}}, nil
}

func (m *blockingModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

type apiErrorBody struct {
	Error struct{ Code, Message string }
}

// TestBurstOfSlowTurnsIsLimitedPerPrincipal is the acceptance test of the per-principal
// limits: 200 slow turns started at once by one principal get 429 rate_limited with
// Retry-After once the running-turns limit is reached, another principal still gets 202, and
// no more turns than the limit ever run at once.
func TestBurstOfSlowTurnsIsLimitedPerPrincipal(t *testing.T) {
	const burst, limit = 200, 8
	model := newBlockingModel()
	ta := newStreamApp(t, streamSetup{
		models: map[string]llms.Model{"default": model},
		edit: func(c *config.Config) {
			c.Limits.TurnsRunning = limit
			c.Limits.TurnsBurst = burst // only the running limit applies to this burst
		},
	})
	t.Cleanup(model.open)
	alice, bob := ta.token(t, "alice"), ta.token(t, "bob")

	type answer struct {
		status     int
		retryAfter string
		code       string
	}
	answers := make(chan answer, burst)
	var wg sync.WaitGroup
	for i := range burst {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ta.srv.URL+"/v1/turns",
				jsonBody(t, map[string]string{"message": fmt.Sprintf("slow question %d", i)}))
			req.Header.Set("Authorization", "Bearer "+alice)
			resp, err := ta.srv.Client().Do(req)
			if err != nil {
				t.Errorf("POST #%d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			var body apiErrorBody
			_ = json.NewDecoder(resp.Body).Decode(&body)
			answers <- answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), code: body.Error.Code}
		})
	}
	wg.Wait()
	close(answers)
	counts := map[int]int{}
	for a := range answers {
		counts[a.status]++
		if a.status != http.StatusTooManyRequests {
			continue
		}
		if n, err := strconv.Atoi(a.retryAfter); err != nil || n < 1 {
			t.Errorf("429 Retry-After = %q, want whole seconds >= 1", a.retryAfter)
		}
		if a.code != "rate_limited" {
			t.Errorf("429 error code = %q, want rate_limited", a.code)
		}
	}
	if counts[http.StatusAccepted] != limit || counts[http.StatusTooManyRequests] != burst-limit {
		t.Fatalf("answers to %d slow turns = %v, want %d × 202 and the rest 429", burst, counts, limit)
	}
	model.waitHeld(t, limit)

	resp := ta.do(t, http.MethodPost, "/v1/turns", bob, map[string]string{"message": "bob is unaffected"}, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("bob's POST /v1/turns while alice is limited = %d, want 202", resp.StatusCode)
	}
	model.waitHeld(t, limit+1)

	// A2A shares the turn service, so it shares the limit: a JSON-RPC error that says so.
	r := ta.rpc(t, alice, "message/send", userMessage("m-limited", "one more"))
	if r.Error == nil || r.Error.Code != -32029 {
		t.Errorf("A2A message/send over the limit = %+v, want JSON-RPC error -32029 (rate limited)", r.Error)
	}

	model.open()
	if err := ta.Service.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	model.mu.Lock()
	maxHeld := model.maxHeld
	model.mu.Unlock()
	if maxHeld > limit+1 { // alice's limit, plus bob's one turn
		t.Errorf("at most %d turns ran at once, want at most %d", maxHeld, limit+1)
	}
	resp = ta.do(t, http.MethodPost, "/v1/turns", alice, map[string]string{"message": "after the burst"}, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("alice's POST after her turns ended = %d, want 202", resp.StatusCode)
	}
}

// TestTurnEndsBeforeTheNextStart: a client that keeps exactly turns_running turns going, each
// started once the last one's turn.completed arrived, is never refused: a turn stops counting
// before its end is published.
func TestTurnEndsBeforeTheNextStart(t *testing.T) {
	ta := newTestApp(t, "../../demo", func(c *config.Config) {
		c.Limits.TurnsRunning = 1
		c.Limits.TurnsBurst = 100
	})
	tok := ta.token(t, "alice")
	for i := range 30 {
		events := ta.streamTurn(t, tok, "", fmt.Sprintf("how many points do I have? (%d)", i)) // fails the test on 429
		if last := events[len(events)-1]; last.Name != "turn.completed" {
			t.Fatalf("turn %d ended with %s", i, last.Name)
		}
	}
}

// TestEventStreamsAreLimited: open event streams are bounded per turn and per principal.
func TestEventStreamsAreLimited(t *testing.T) {
	model := newBlockingModel()
	ta := newStreamApp(t, streamSetup{
		models: map[string]llms.Model{"default": model},
		edit: func(c *config.Config) {
			c.Limits.StreamsPerTurn = 2
			c.Limits.StreamsPerPrincipal = 3
		},
	})
	t.Cleanup(model.open)
	alice := ta.token(t, "alice")
	start := func() string {
		resp := ta.do(t, http.MethodPost, "/v1/turns", alice, map[string]string{"message": "hold on"}, nil)
		var c struct {
			TurnID string `json:"turn_id"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /v1/turns = %d, %v", resp.StatusCode, err)
		}
		return c.TurnID
	}
	// follow opens an event stream and reads its first event, so the stream is surely open.
	follow := func(turnID string) *http.Response {
		resp := ta.do(t, http.MethodGet, "/v1/turns/"+turnID+"/events", alice, nil, nil)
		if resp.StatusCode == http.StatusOK {
			buf := make([]byte, 1)
			if _, err := io.ReadFull(resp.Body, buf); err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
		}
		return resp
	}
	expectLimited := func(resp *http.Response, what string) {
		t.Helper()
		var body apiErrorBody
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusTooManyRequests || body.Error.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s = %d %q (Retry-After %q), want 429 rate_limited with Retry-After", what, resp.StatusCode, body.Error.Code, resp.Header.Get("Retry-After"))
		}
	}
	one, two := start(), start()
	for i := range 2 {
		if resp := follow(one); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of turn one = %d, want 200", i, resp.StatusCode)
		}
	}
	expectLimited(follow(one), "a third stream of one turn")
	first := follow(two)
	if first.StatusCode != http.StatusOK {
		t.Fatalf("stream of turn two = %d, want 200", first.StatusCode)
	}
	expectLimited(follow(two), "a fourth stream of one principal")
	resp := ta.do(t, http.MethodPost, "/v1/turns", alice, map[string]string{"message": "stream me"}, map[string]string{"Accept": "text/event-stream"})
	expectLimited(resp, "POST /v1/turns with Accept: text/event-stream at the principal's limit")

	first.Body.Close() // a closed stream frees its slot
	// The server learns of the close from its connection's read, asynchronously: retry until
	// it has (each refused retry is a cheap 429).
	var resumed *http.Response
	for deadline := time.Now().Add(streamWait); time.Now().Before(deadline); {
		if resumed = follow(two); resumed.StatusCode == http.StatusOK {
			break
		}
	}
	if resumed.StatusCode != http.StatusOK {
		t.Errorf("a stream after one closed = %d, want 200", resumed.StatusCode)
	}
}

func jsonBody(t *testing.T, v any) io.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

func TestLimitedRequestsAreCounted(t *testing.T) {
	oa := newObservedApp(t, func(c *config.Config) {
		c.Limits.TurnsPerMinute, c.Limits.TurnsBurst = 1, 1
	})
	tok := oa.token(t, "alice")
	if resp := oa.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": "first"}, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("first POST = %d, want 202", resp.StatusCode)
	}
	if resp := oa.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": "second"}, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second POST within the minute = %d, want 429", resp.StatusCode)
	}
	if got := oa.scrape(t)[`switchboard_limited_total{limit="turns_per_minute"}`]; got != 1 {
		t.Errorf(`switchboard_limited_total{limit="turns_per_minute"} = %v, want 1`, got)
	}
}

// TestRunningLimitHoldsAcrossReplicas: the running-turns limit counts from the shared store, so
// turns running on replica A count when alice starts one on replica B.
func TestRunningLimitHoldsAcrossReplicas(t *testing.T) {
	dsn := replicaSchemaDSN(t)
	edit := func(c *config.Config) {
		c.Store = config.Store{Driver: "postgres", DSN: dsn}
		c.Limits.TurnsRunning = 3
	}
	modelA, modelB := newBlockingModel(), newBlockingModel()
	a := newStreamApp(t, streamSetup{edit: edit, models: map[string]llms.Model{"default": modelA}})
	b := newStreamApp(t, streamSetup{edit: edit, models: map[string]llms.Model{"default": modelB}})
	t.Cleanup(modelA.open)
	t.Cleanup(modelB.open)
	post := func(ta *testApp, user, msg string) int {
		resp := ta.do(t, http.MethodPost, "/v1/turns", ta.token(t, user), map[string]string{"message": msg}, nil)
		return resp.StatusCode
	}
	for i := range 2 {
		if got := post(a, "alice", fmt.Sprint("on A ", i)); got != http.StatusAccepted {
			t.Fatalf("alice's turn %d on A = %d, want 202", i, got)
		}
	}
	if got := post(b, "alice", "on B"); got != http.StatusAccepted {
		t.Fatalf("alice's third turn, on B = %d, want 202", got)
	}
	modelA.waitHeld(t, 2)
	modelB.waitHeld(t, 1)
	for name, ta := range map[string]*testApp{"A": a, "B": b} {
		if got := post(ta, "alice", "one too many"); got != http.StatusTooManyRequests {
			t.Errorf("alice's fourth turn on %s = %d, want 429", name, got)
		}
	}
	if got := post(b, "bob", "hello"); got != http.StatusAccepted {
		t.Errorf("bob's turn on B = %d, want 202", got)
	}
}
