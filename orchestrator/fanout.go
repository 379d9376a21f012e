package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/gostack"
	"github.com/switchboard-ai/switchboard/stream"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"golang.org/x/sync/errgroup"
)

// keptCall is a tool call that survived the cap, with the sub-agent it resolves to.
type keptCall struct {
	call llms.ToolCall
	b    *binding
}

// dispatchResult is one sub-agent invocation's outcome, kept per index.
type dispatchResult struct {
	answer     ask.Answer
	outcome    ask.Outcome
	toolResult string // what the composing LLM sees: the answer, or the unavailable note
	started    time.Time
	latency    time.Duration
}

// dispatch runs the kept calls concurrently, at most cap at a time. Errors are kept per call
// and never returned, so one failure cannot cancel its siblings; ctx (the turn's) cancels all.
func (tr *turnRun) dispatch(ctx context.Context, kept []keptCall, prior string) []dispatchResult {
	if len(kept) == 0 {
		return []dispatchResult{}
	}
	f := newFanOut(len(kept))
	if tr.attrs != nil {
		tr.agents = newAgentAttrs(kept, tr.attrs)
	}
	w := &f.watch
	w.deadlines(ctx, kept)
	defer w.stop()
	// One timer for the whole fan-out rather than one per call: the calls start together.
	cadence := time.AfterFunc(tr.o.opts.cadence, func() { w.remind(tr.render, kept) })
	defer cadence.Stop()
	f.g.SetLimit(max(1, tr.o.def.FanOutCap))
	last := len(kept) - 1
	for i := range last {
		f.g.Go(func() error {
			// What a sub-agent call reaches when its model answers at once: its span, the
			// tracing SDK's sampler, the model call (4% of a turn's CPU grown in steps). A
			// call that goes deeper (a model behind HTTP) still grows it later, from there.
			gostack.To8K(i)
			f.results[i] = tr.invoke(ctx, w, i, kept[i], prior)
			return nil // kept per call: one failure must not cancel its siblings
		})
	}
	// The last call runs here, alongside the others: this goroutine's stack has already grown
	// to what an invocation needs, where a fresh one would grow it again. The cap still holds,
	// since the cap keeps at most FanOutCap calls.
	f.results[last] = tr.invoke(ctx, w, last, kept[last], prior)
	_ = f.g.Wait()
	return f.results
}

// fanOut is one dispatch's state in one allocation: the calls' results, what the cadence
// timer knows of them, and the errgroup that runs them. A fan-out of up to fanOutRoom calls
// (the default cap) needs no other; room for more would be garbage in most turns.
type fanOut struct {
	watch
	g       errgroup.Group
	results []dispatchResult

	resultRoom [fanOutRoom]dispatchResult
	callRoom   [fanOutRoom]watchedCall
}

const fanOutRoom = definitions.DefaultFanOutCap

func newFanOut(n int) *fanOut {
	f := &fanOut{}
	if n <= fanOutRoom {
		f.results, f.calls = f.resultRoom[:n:n], f.callRoom[:n:n]
	} else {
		f.results, f.calls = make([]dispatchResult, n), make([]watchedCall, n)
	}
	return f
}

// watch is what the fan-out's cadence timer knows of its calls. The progress line must never
// follow a call's reply: the timer checks, under the lock that ends each call, that the call
// is still running.
type watch struct {
	mu    sync.Mutex
	calls []watchedCall
}

type watchedCall struct {
	ctx      context.Context    // bounded by the call's timeout; set before the calls start
	cancel   context.CancelFunc // ctx's, when this call made it
	finished bool               // under mu
	spoke    atomic.Bool        // the sub-agent emitted a status event of its own
}

// deadlines gives each call a context bounded by its definition's timeout; stop cancels them
// all once every call has returned. The calls start together, so those with the same timeout
// (usually all of them) share one context and its one timer.
func (w *watch) deadlines(ctx context.Context, kept []keptCall) {
	for i, k := range kept {
		timeout := timeoutOf(k.b.def)
		for j := range i {
			if timeoutOf(kept[j].b.def) == timeout {
				w.calls[i].ctx = w.calls[j].ctx
				break
			}
		}
		if w.calls[i].ctx == nil {
			w.calls[i].ctx, w.calls[i].cancel = context.WithTimeout(ctx, timeout)
		}
	}
}

// stop cancels the contexts deadlines made.
func (w *watch) stop() {
	for i := range w.calls {
		if cancel := w.calls[i].cancel; cancel != nil {
			cancel()
		}
	}
}

// remind shows the progress line of every call still running that has said nothing.
func (w *watch) remind(render *stream.Renderer, kept []keptCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.calls {
		c := &w.calls[i]
		if !c.finished && !c.spoke.Load() && c.ctx.Err() == nil {
			render.Emit(stream.Emission{AgentID: kept[i].b.def.ID, Event: workingEvent})
		}
	}
}

func (w *watch) finish(i int) {
	w.mu.Lock()
	w.calls[i].finished = true
	w.mu.Unlock()
}

// invoke runs one sub-agent under its definition's timeout, recovering a panic into a failure,
// and showing a progress line if it stays silent past the cadence threshold.
func (tr *turnRun) invoke(parent context.Context, w *watch, i int, k keptCall, prior string) (res dispatchResult) {
	def := k.b.def
	res.started = time.Now()
	// The call's deadline is its fan-out's (see watch.deadlines); the turn's own context is
	// parent, which tells a cancelled turn from a call out of time.
	ctx, span := tr.o.tracer.Start(w.calls[i].ctx, k.b.spanName)

	spoke := &w.calls[i].spoke
	emit := func(event string, params map[string]string) {
		spoke.Store(true)
		tr.render.Emit(stream.Emission{AgentID: def.ID, Event: event, Params: params})
	}

	defer func() {
		w.finish(i)
		res.latency = time.Since(res.started)
		res.toolResult = res.answer.Text
		if res.outcome != ask.OutcomeOK && res.outcome != ask.OutcomePartial {
			res.toolResult = unavailableNote(def)
		}
		if span.IsRecording() {
			span.SetAttributes(tr.agentAttrs(i, k, res.outcome)...)
		}
		if res.outcome == ask.OutcomeFailed || res.outcome == ask.OutcomeTimeout {
			span.SetStatus(codes.Error, string(res.outcome))
		}
		span.End()
		tr.o.inst.subDuration.Record(context.Background(), res.latency.Seconds(), k.b.metrics.agent...)
		tr.o.inst.subOutcomes.Add(context.Background(), 1, k.b.metrics.outcome(def.ID, res.outcome)...)
	}()
	defer func() {
		if p := recover(); p != nil {
			tr.o.opts.Logger.ErrorContext(ctx, "sub-agent panicked", "agent", def.ID, "turn_id", tr.t.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res.outcome = ask.OutcomeFailed
			res.answer = ask.Answer{}
		}
	}()

	ans, err := k.b.agent.Ask(ctx, ask.Question{
		Request: requestOf(k.call, tr.t.Message),
		Inherited: ask.Inherited{
			Principal:    tr.t.Principal,
			EpisodeID:    tr.t.EpisodeID,
			TurnID:       tr.t.ID,
			Locale:       tr.t.Locale,
			Location:     tr.t.Location,
			PriorContext: prior,
		},
		Emit: emit,
	})
	res.answer = ans
	switch {
	case parent.Err() != nil:
		res.outcome = ask.OutcomeCancelled
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.outcome = ask.OutcomeTimeout
	case err != nil:
		tr.o.opts.Logger.WarnContext(ctx, "sub-agent failed", "agent", def.ID, "turn_id", tr.t.ID, "err", err)
		res.outcome = ask.OutcomeFailed
	case ans.Outcome == "":
		res.outcome = ask.OutcomeOK
	default:
		res.outcome = ans.Outcome
	}
	return res
}

// agentAttrs are the attributes of call i's span, ending with its outcome o: those dispatch
// built, or, for a span recorded under a turn span that is not, new ones.
func (tr *turnRun) agentAttrs(i int, k keptCall, o ask.Outcome) []attribute.KeyValue {
	if tr.agents != nil {
		return tr.agents.call(i, o)
	}
	return newAgentAttrs([]keptCall{k}, tr.ids()).call(0, o)
}

// timeoutOf is how long a call of def may run.
func timeoutOf(def *definitions.Definition) time.Duration {
	if def.Timeout <= 0 {
		return defaultTimeout
	}
	return def.Timeout
}

// defaultTimeout applies when a definition sets none.
const defaultTimeout = 8 * time.Second

// workingEvent is the progress line the orchestrator shows for a silent sub-agent.
const workingEvent = "working"

// requestOf reads the request argument of an ask_<id> call, falling back to the user's
// message when the model sent none.
func requestOf(tc llms.ToolCall, message string) string {
	if r, ok := plainRequest(tc.FunctionCall.Arguments); ok {
		if strings.TrimSpace(r) != "" {
			return r
		}
		return message
	}
	var args struct {
		Request string `json:"request"`
	}
	if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args); err == nil && strings.TrimSpace(args.Request) != "" {
		return args.Request
	}
	return message
}

// plainRequest reads arguments of exactly the shape {"request": "..."} whose string holds no
// escape, control character or invalid UTF-8, without a JSON decoder: nearly every call has
// that shape, and decoding cost a fifth of a turn's allocations. Anything else is left to the
// decoder (ok false).
func plainRequest(args string) (request string, ok bool) {
	const space = " \t\r\n" // JSON's whitespace, narrower than unicode.IsSpace
	s, ok := strings.CutPrefix(strings.Trim(args, space), "{")
	if !ok {
		return "", false
	}
	for _, tok := range []string{`"request"`, ":", `"`} {
		if s, ok = strings.CutPrefix(strings.TrimLeft(s, space), tok); !ok {
			return "", false
		}
	}
	end := strings.IndexByte(s, '"')
	if end < 0 || strings.TrimLeft(s[end+1:], space) != "}" {
		return "", false
	}
	v := s[:end]
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == '\\' {
			return "", false
		}
	}
	return v, utf8.ValidString(v)
}
