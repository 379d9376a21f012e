package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

func runTurn(t *testing.T, o *Orchestrator, msg string) (*Result, *collector) {
	t.Helper()
	out := &collector{}
	res, err := o.Run(t.Context(), Turn{ID: "turn_1", EpisodeID: "ep_1", Principal: "alice", Message: msg}, out)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	return res, out
}

// The orchestrator's LLM sees exactly one ask_<id> tool per sub-agent, with the
// definitions' descriptions verbatim.
func TestLLMSeesAskToolsWithDescriptions(t *testing.T) {
	model := &scriptedModel{route: func([]llms.MessageContent, llms.CallOptions) (*llms.ContentResponse, error) {
		return textResponse("Hello!"), nil
	}}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	runTurn(t, o, "hi")

	calls := model.recorded()
	if len(calls) == 0 {
		t.Fatal("model was never called")
	}
	got := map[string]string{}
	for _, tool := range calls[0].opts.Tools {
		got[tool.Function.Name] = tool.Function.Description
	}
	want := map[string]string{}
	for _, d := range demoSubs {
		want["ask_"+d.ID] = d.Description
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools the LLM saw (-want +got):\n%s", diff)
	}
}

// A single intent runs one sub-agent and the reply comes from the orchestrator's
// composition, not from the sub-agent.
func TestSingleIntentIsComposedByOrchestrator(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop"), compose: composeAll}
	var invoked atomic.Int32
	shop := ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		invoked.Add(1)
		return ask.Answer{Text: "sub-agent text", Outcome: ask.OutcomeOK}, nil
	})
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": shop, "rewards": answer("b"), "support": answer("c")})
	res, out := runTurn(t, o, "any deals on running shoes?")

	if n := invoked.Load(); n != 1 {
		t.Errorf("sub-agent invocations = %d, want 1", n)
	}
	if n := len(model.recorded()); n != 2 {
		t.Errorf("orchestrator LLM calls = %d, want 2 (route, compose)", n)
	}
	if want := "Composed: sub-agent text"; res.Reply != want {
		t.Errorf("Reply = %q, want %q", res.Reply, want)
	}
	if diff := cmp.Diff([]string{"shop"}, res.Decision.Invoked); diff != "" {
		t.Errorf("Invoked (-want +got):\n%s", diff)
	}
	var deltas strings.Builder
	var completed string
	for _, ev := range out.all() {
		switch e := ev.(type) {
		case stream.ReplyDelta:
			deltas.WriteString(e.Text)
		case stream.ReplyCompleted:
			completed = e.Text
		}
	}
	if deltas.String() != res.Reply || completed != res.Reply {
		t.Errorf("deltas = %q, completed = %q, want both %q", deltas.String(), completed, res.Reply)
	}
}

// Two intents run concurrently even when one is much slower. Each sub-agent waits
// until the other has started, which can only happen if they overlap.
func TestFanOutRunsConcurrently(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	agent := func(text string, extra time.Duration) ask.Func {
		return func(ctx context.Context, q ask.Question) (ask.Answer, error) {
			started.Done()
			select {
			case <-both:
			case <-ctx.Done():
				return ask.Answer{}, ctx.Err()
			}
			select {
			case <-time.After(extra): // one sub-agent is much slower than the other
			case <-ctx.Done():
				return ask.Answer{}, ctx.Err()
			}
			return ask.Answer{Text: text, Outcome: ask.OutcomeOK}, nil
		}
	}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{
		"shop": agent("offers", 0), "rewards": agent("points", 150*time.Millisecond), "support": answer("c"),
	})
	res, _ := runTurn(t, o, "deals and my points")

	if res.Outcome != stream.OutcomeOK {
		t.Fatalf("Outcome = %v, want ok (a sub-agent never saw its sibling start)", res.Outcome)
	}
	if !strings.Contains(res.Reply, "offers") || !strings.Contains(res.Reply, "points") {
		t.Errorf("Reply = %q, want both results", res.Reply)
	}
	a, b := res.Decision.Agents[0], res.Decision.Agents[1]
	if !(a.Started.Before(b.Started.Add(b.Latency)) && b.Started.Before(a.Started.Add(a.Latency))) {
		t.Errorf("invocation intervals do not overlap: %+v, %+v", a, b)
	}
}

// A fan-out wider than the room a dispatch starts with keeps every call's result, in order.
func TestWideFanOutKeepsEveryResult(t *testing.T) {
	names := []string{"ask_shop", "ask_rewards", "ask_support", "ask_shop", "ask_rewards"}
	model := &scriptedModel{route: callTools(names...), compose: composeAll}
	echo := func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		return ask.Answer{Text: "answer to " + q.Request, Outcome: ask.OutcomeOK}, nil
	}
	o := newTestOrchestrator(t, len(names), model, map[string]ask.Agent{
		"shop": ask.Func(echo), "rewards": ask.Func(echo), "support": ask.Func(echo),
	})
	res, _ := runTurn(t, o, "everything at once")

	if res.Outcome != stream.OutcomeOK {
		t.Fatalf("Outcome = %v, want ok", res.Outcome)
	}
	var want []string
	for _, n := range names {
		want = append(want, "answer to about "+n)
	}
	if got, wantReply := res.Reply, "Composed: "+strings.Join(want, " | "); got != wantReply {
		t.Errorf("Reply = %q, want %q", got, wantReply)
	}
	if got := len(res.Decision.Agents); got != len(names) {
		t.Errorf("len(Decision.Agents) = %d, want %d", got, len(names))
	}
}

// N+1 calls with cap N: N run, the extra is dropped before running and recorded.
func TestCapDropsCallsBeforeRunning(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards", "ask_support"), compose: composeAll}
	var supportRan atomic.Bool
	o := newTestOrchestrator(t, 2, model, map[string]ask.Agent{
		"shop": answer("offers"), "rewards": answer("points"),
		"support": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
			supportRan.Store(true)
			return ask.Answer{Text: "orders"}, nil
		}),
	})
	res, _ := runTurn(t, o, "deals, points and my order")

	if supportRan.Load() {
		t.Error("the over-cap sub-agent ran")
	}
	want := Decision{Invoked: []string{"shop", "rewards"}, IntentCount: 3, Cap: 2, CapBehaviour: CapOver, Dropped: []string{"ask_support"}}
	got := res.Decision
	got.Agents = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decision (-want +got):\n%s", diff)
	}
}

func TestCapBehaviour(t *testing.T) {
	for _, tc := range []struct {
		calls []string
		want  string
	}{
		{[]string{"ask_shop"}, CapWithin},
		{[]string{"ask_shop", "ask_rewards"}, CapAt},
		{[]string{"ask_shop", "ask_rewards", "ask_support"}, CapOver},
	} {
		t.Run(tc.want, func(t *testing.T) {
			model := &scriptedModel{route: callTools(tc.calls...), compose: composeAll}
			o := newTestOrchestrator(t, 2, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
			res, _ := runTurn(t, o, "x")
			if res.Decision.CapBehaviour != tc.want {
				t.Errorf("CapBehaviour = %q, want %q", res.Decision.CapBehaviour, tc.want)
			}
		})
	}
}

// M of N fail; the composition gets the M answers and a plain unavailable note
// for the others, and no error text reaches the stream.
func TestPartialFailureReachesCompositionAsPlainNote(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards", "ask_support"), compose: composeAll}
	slow := *demoSubs[2]
	slow.Timeout = 30 * time.Millisecond
	o, err := New(Config{
		Definition: orchDef(3, "shop", "rewards", "support"),
		SubAgents:  []*definitions.Definition{demoSubs[0], demoSubs[1], &slow},
		Runtimes: map[string]ask.Agent{
			"shop": answer("offers found"),
			"rewards": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
				return ask.Answer{}, errors.New("rewards-db: dial tcp 10.0.0.7:5432: connection refused")
			}),
			"support": ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
				<-ctx.Done() // hangs until its timeout
				return ask.Answer{}, ctx.Err()
			}),
		},
		Model: model,
	}, WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	res, out := runTurn(t, o, "deals, points and my order")

	calls := model.recorded()
	results := toolResults(calls[len(calls)-1].msgs)
	want := map[string]string{
		"ask_shop":    "offers found",
		"ask_rewards": "unavailable: I couldn't get an answer from Rewards right now.",
		"ask_support": "unavailable: I couldn't get an answer from Support right now.",
	}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("tool results at composition (-want +got):\n%s", diff)
	}
	outcomes := map[string]ask.Outcome{}
	for _, a := range res.Decision.Agents {
		outcomes[a.Agent] = a.Outcome
	}
	if diff := cmp.Diff(map[string]ask.Outcome{"shop": ask.OutcomeOK, "rewards": ask.OutcomeFailed, "support": ask.OutcomeTimeout}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if res.Outcome != stream.OutcomeDegraded {
		t.Errorf("Outcome = %v, want degraded", res.Outcome)
	}
	if s := out.text(); strings.Contains(s, "connection refused") || strings.Contains(s, "deadline") {
		t.Errorf("error text reached the stream: %s", s)
	}
}

// A panic in one sub-agent is that sub-agent's failure only.
func TestPanicInSubAgentIsContained(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{
		"shop":    answer("offers found"),
		"rewards": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) { panic("nil map write") }),
		"support": answer("c"),
	})
	res, out := runTurn(t, o, "deals and points")

	if !strings.Contains(res.Reply, "offers found") {
		t.Errorf("Reply = %q, want the sibling's answer", res.Reply)
	}
	if got := res.Decision.Agents[1].Outcome; got != ask.OutcomeFailed {
		t.Errorf("panicking agent outcome = %v, want failed", got)
	}
	if strings.Contains(out.text(), "nil map") {
		t.Error("panic text reached the stream")
	}
}

// Cancelling the turn cancels every sub-agent, and no goroutine is left behind.
func TestCancelReachesEverySubAgent(t *testing.T) {
	before := runtime.NumGoroutine()
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards", "ask_support"), compose: composeAll}
	var started, observed sync.WaitGroup
	started.Add(3)
	observed.Add(3)
	blocker := ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		started.Done()
		<-ctx.Done()
		observed.Done()
		return ask.Answer{}, ctx.Err()
	})
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": blocker, "rewards": blocker, "support": blocker})

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var res *Result
	go func() {
		var err error
		res, err = o.Run(ctx, Turn{ID: "t", Principal: "alice", Message: "everything"}, &collector{})
		done <- err
	}()
	started.Wait()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run() error = %v, want context.Canceled", err)
	}
	observed.Wait() // every fake saw its context end
	if res.Outcome != stream.OutcomeCancelled {
		t.Errorf("Outcome = %v, want cancelled", res.Outcome)
	}
	waitGoroutines(t, before)
}

// waitGoroutines fails if goroutines started by the test are still running once the runtime
// has had every chance to retire them.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= want {
			return
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond) // polling for exit, not ordering work
	}
	t.Errorf("goroutines = %d, want <= %d", runtime.NumGoroutine(), want)
}

// The principal and the rest of the inherited context reach each sub-agent unchanged.
func TestInheritedContext(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop"), compose: composeAll}
	var got ask.Inherited
	var request string
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{
		"shop": ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
			got, request = q.Inherited, q.Request
			return ask.Answer{Text: "ok"}, nil
		}),
		"rewards": answer("b"), "support": answer("c"),
	})
	_, err := o.Run(t.Context(), Turn{ID: "turn_9", EpisodeID: "ep_9", Principal: "bob", Message: "deals",
		Locale: "en-GB", Location: "London",
		History: []Exchange{{User: "how many points?", Reply: "You have 1,200 points.", Agents: []string{"rewards"}}},
	}, &collector{})
	if err != nil {
		t.Fatal(err)
	}
	want := ask.Inherited{Principal: "bob", EpisodeID: "ep_9", TurnID: "turn_9", Locale: "en-GB", Location: "London", PriorContext: got.PriorContext}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Inherited (-want +got):\n%s", diff)
	}
	if got.PriorContext == "" {
		t.Error("PriorContext is empty after a switch from rewards to shop")
	}
	if request != "about ask_shop" {
		t.Errorf("Request = %q, want the tool call's argument", request)
	}
}

// The routing record names each sub-agent's tools as its answer gave them, and its JSON
// form (what GET /v1/turns/{id} shows) carries them, leaving the key out where none ran.
func TestDecisionRecordsToolsCalled(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{
		"shop": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
			return ask.Answer{Text: "offers", Outcome: ask.OutcomeOK, Tools: []string{"search_offers", "get_offer"}}, nil
		}),
		"rewards": answer("points"), "support": answer("c"),
	})
	res, _ := runTurn(t, o, "deals and my points")
	if got := res.Decision.Agents[0].Tools; !slices.Equal(got, []string{"search_offers", "get_offer"}) {
		t.Errorf("shop's Tools = %v, want [search_offers get_offer]", got)
	}
	b, err := json.Marshal(res.Decision)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Agents []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(wire.Agents[0]["tools"]); got != "[search_offers get_offer]" {
		t.Errorf(`agents[0]["tools"] = %s, want [search_offers get_offer] (%s)`, got, b)
	}
	if _, ok := wire.Agents[1]["tools"]; ok {
		t.Errorf("agents[1] has tools though none ran: %s", b)
	}
}
