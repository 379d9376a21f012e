package breaker_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/subagents"
)

const agentYAML = `kind: sub_agent
id: points
name: Points
description: Looks up the member's points balance.
prompt: Answer from the tool.
timeout: 8s
tools:
  - name: get_points
    enricher: points.balance
    domain_type: points_balance
    description: Get the points balance.
`

const envelope = `{"status":"ok","principal":"alice","domain_type":"points_balance","enricher_id":"points.balance","version":"1.0.0","payload":{"points":2550}}`

// flakyCCS is a CCS whose one enricher fails with 500 until it is told to recover, counting
// every call that reaches it.
type flakyCCS struct {
	calls     atomic.Int64
	recovered atomic.Bool
}

func (c *flakyCCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.calls.Add(1)
	if !c.recovered.Load() {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(envelope))
}

// toolModel asks for the points tool once, then answers with no text, so the sub-agent says
// in its own plain words whether the data was there.
type toolModel struct{}

func (toolModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, toolModel{}, prompt, options...)
}

func (toolModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if msgs[len(msgs)-1].Role == llms.ChatMessageTypeTool {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
		ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_points", Arguments: "{}"},
	}}}}}, nil
}

// newPointsAgent is a real sub-agent runtime whose CCS client sits behind set's breakers.
func newPointsAgent(t *testing.T, set *breaker.Set, cc ccs.ClientConfig) *subagents.Agent {
	t.Helper()
	def, problems := definitions.Parse("points.yaml", []byte(agentYAML))
	if len(problems) > 0 {
		t.Fatalf("definitions.Parse() problems: %v", problems)
	}
	client, err := ccs.NewClient(cc)
	if err != nil {
		t.Fatalf("ccs.NewClient() = %v", err)
	}
	a, err := subagents.New(subagents.Config{
		Definition: def, Model: toolModel{}, CCS: breaker.NewEnricher(set, client), Registry: ccs.NewRegistry(),
	}, subagents.WithTelemetry(ask.Telemetry{Logger: quiet}))
	if err != nil {
		t.Fatalf("subagents.New() = %v", err)
	}
	return a
}

// quiet drops the logs of the failures these tests cause on purpose.
var quiet = slog.New(slog.DiscardHandler)

var question = ask.Question{Request: "how many points do I have?", Inherited: ask.Inherited{Principal: "alice", TurnID: "t1"}}

// TestFailingCCSIsNotCalledPastTheThreshold runs the scenario: twelve turns against a
// CCS that answers 500. Only the first five reach it; every turn still ends with the plain
// "unavailable" answer. Once the CCS is back and half_open_after has passed, one probe reaches
// it and closes the breaker.
func TestFailingCCSIsNotCalledPastTheThreshold(t *testing.T) {
	cs := &flakyCCS{}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	synctest.Test(t, func(t *testing.T) {
		set, err := breaker.New(breaker.Config{}, breaker.WithLogger(quiet))
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		// No idle connections: a connection left reading its socket would keep the bubble's
		// clock from moving.
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		agent := newPointsAgent(t, set, ccs.ClientConfig{BaseURL: srv.URL, HTTPClient: hc})
		target := breaker.EnricherTarget("points.balance")

		for i := range 12 {
			ans, err := agent.Ask(t.Context(), question)
			if err != nil || ans.Outcome != ask.OutcomeUnavailable || !strings.Contains(ans.Text, "unavailable") {
				t.Fatalf("turn %d: Ask() = %+v, %v; want outcome unavailable said in words", i+1, ans, err)
			}
		}
		if got := cs.calls.Load(); got != breaker.DefaultErrorThreshold {
			t.Errorf("CCS calls after 12 turns = %d, want %d (none once the breaker opened)", got, breaker.DefaultErrorThreshold)
		}
		if got := set.State(target); got != breaker.Open {
			t.Fatalf("State(%s) = %v, want open", target, got)
		}

		cs.recovered.Store(true)
		time.Sleep(breaker.DefaultHalfOpenAfter - time.Second)
		if ans, _ := agent.Ask(t.Context(), question); ans.Outcome != ask.OutcomeUnavailable || cs.calls.Load() != breaker.DefaultErrorThreshold {
			t.Errorf("before half_open_after: outcome %q, CCS calls %d; want unavailable without a call", ans.Outcome, cs.calls.Load())
		}
		time.Sleep(2 * time.Second)
		for i := range 3 {
			ans, err := agent.Ask(t.Context(), question)
			if err != nil || ans.Outcome != ask.OutcomeOK {
				t.Errorf("turn %d after recovery: Ask() = %+v, %v; want outcome ok", i+1, ans, err)
			}
		}
		if got, want := cs.calls.Load(), int64(breaker.DefaultErrorThreshold+3); got != want {
			t.Errorf("CCS calls = %d, want %d (the probe and the two turns after it)", got, want)
		}
		if got := set.State(target); got != breaker.Closed {
			t.Errorf("State(%s) after a good probe = %v, want closed", target, got)
		}
	})
}

// hangingCCS answers nothing until the caller gives up.
type hangingCCS struct {
	mu    sync.Mutex
	calls int
}

func (c *hangingCCS) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	<-r.Context().Done()
}

// TestOpenBreakerDoesNotWaitOutTheTimeout measures on the bubble's fake clock, which moves only
// while every goroutine waits on time: each turn against a hanging CCS waits out the client's
// timeout until the breaker opens, and from then on a turn takes no time at all.
func TestOpenBreakerDoesNotWaitOutTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := breaker.New(breaker.Config{}, breaker.WithLogger(quiet))
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		cs := &hangingCCS{}
		const timeout = 2 * time.Second
		agent := newPointsAgent(t, set, ccs.ClientConfig{
			BaseURL: "http://ccs.test", Timeout: timeout,
			HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(cs)},
		})
		var waited []time.Duration
		for range 8 {
			start := time.Now()
			ans, err := agent.Ask(t.Context(), question)
			if err != nil || ans.Outcome != ask.OutcomeUnavailable {
				t.Fatalf("Ask() = %+v, %v; want outcome unavailable", ans, err)
			}
			waited = append(waited, time.Since(start))
			synctest.Wait() // the abandoned handler goroutines finish
		}
		want := []time.Duration{timeout, timeout, timeout, timeout, timeout, 0, 0, 0}
		for i := range want {
			if waited[i] != want[i] {
				t.Errorf("turn %d waited %s on the fake clock, want %s (all: %v)", i+1, waited[i], want[i], waited)
			}
		}
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if cs.calls != breaker.DefaultErrorThreshold {
			t.Errorf("CCS calls = %d, want %d", cs.calls, breaker.DefaultErrorThreshold)
		}
	})
}
