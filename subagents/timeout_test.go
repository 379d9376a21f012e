package subagents_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/subagents"
)

// slack is how long past a deadline Ask may take to unwind under -race on a busy machine. The
// hang itself never ends on its own, so without the deadline these tests would time out.
const slack = 2 * time.Second

// TestHangEndsAtInvocationDeadline: a CCS that never answers is cut off by the invocation's
// context, Ask returns soon after the deadline with an error (the orchestrator reports a
// timeout), and the call is not retried.
func TestHangEndsAtInvocationDeadline(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	h.demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	a := h.agent("rewards", m, ccs.CheckOptions{})

	const deadline = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	start := time.Now()
	_, err := a.Ask(ctx, ask.Question{
		Request:   "how many points do i have",
		Inherited: ask.Inherited{Principal: ccsdemo.Alice},
	})
	elapsed := time.Since(start)

	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, subagents.ErrModel) {
		t.Errorf("Ask() error = %v, want %v wrapping %v", err, subagents.ErrModel, context.DeadlineExceeded)
	}
	if elapsed > deadline+slack {
		t.Errorf("Ask() took %v, want about the %v deadline", elapsed, deadline)
	}
	if n := len(h.demo.Calls()); n != 1 {
		t.Errorf("CCS calls = %d, want 1", n)
	}
}

// TestHangEndsAtClientTimeout: the ccs client's own per-call timeout cuts a hanging enricher
// short while the invocation still has time; the LLM is told the data is unavailable and the
// sub-agent still answers.
func TestHangEndsAtClientTimeout(t *testing.T) {
	const perCall = 200 * time.Millisecond
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{Timeout: perCall})
	h.demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	a := h.agent("rewards", m, ccs.CheckOptions{})

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	reply, err := a.Ask(ctx, ask.Question{
		Request:   "how many points do i have",
		Inherited: ask.Inherited{Principal: ccsdemo.Alice},
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Ask() error = %v", err)
	}
	if reply.Outcome != ask.OutcomeUnavailable {
		t.Errorf("Ask().Outcome = %q, want unavailable", reply.Outcome)
	}
	if got := m.toolResults(""); len(got) != 1 || got[0] != unavailableResult {
		t.Errorf("tool results = %q, want [%s]", got, unavailableResult)
	}
	if elapsed > perCall+slack {
		t.Errorf("Ask() took %v, want about the %v client timeout", elapsed, perCall)
	}
}
