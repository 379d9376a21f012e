package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// Turn is one user message to answer.
type Turn struct {
	ID        string
	EpisodeID string
	Principal principal.Principal
	Message   string
	Locale    string
	Location  string
	// History holds the episode's earlier exchanges, oldest first.
	History []Exchange
}

// Exchange is an earlier turn of the episode as the orchestrator remembers it.
type Exchange struct {
	User   string
	Reply  string
	Agents []string // sub-agents invoked for it
}

// Result is what a turn produced.
type Result struct {
	Reply      string
	Components []json.RawMessage
	Outcome    stream.Outcome
	Decision   Decision
}

// cutNote ends a streamed reply that broke off.
const cutNote = " … Sorry, I was cut off there. Ask me again for the rest."

// fallbackReply is said when the orchestrator's own LLM cannot answer at all.
const fallbackReply = "I'm sorry, I couldn't work on that just now. Please try again in a moment."

// Run answers one turn, publishing status lines and the streamed reply to out (which the
// caller guards). It returns when the turn is over. On cancellation it returns the context's
// error with a Result whose Outcome is cancelled; every other failure is folded into a
// natural-language reply and a degraded or failed outcome, never returned as an error.
func (o *Orchestrator) Run(ctx context.Context, t Turn, out stream.Sink) (*Result, error) {
	start := o.opts.now()
	ctx = principal.NewContext(ctx, t.Principal)
	ctx, span := o.tracer.Start(ctx, "switchboard.turn")
	tr := &turnRun{o: o, t: t, out: out}
	recorded := false
	if span.IsRecording() {
		tr.attrs = o.newTurnAttrs(t)
	}
	defer func() {
		if tr.attrs != nil && !recorded { // a panic: the ids without an outcome
			span.SetAttributes(tr.attrs.all[1:4]...)
		}
		span.End()
		if tr.attrs != nil { // every span of the turn has ended: the SDK holds copies
			o.releaseAttrs(tr.attrs)
		}
	}()

	tr.render = stream.NewRenderer(stream.RendererConfig{
		Vocabulary: o.vocab,
		Rendering:  o.def.Rendering,
		Out:        out,
		Observe:    o.inst.statusEvent,
	})
	res, err := tr.run(ctx)
	tr.render.Close()
	if err != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		res.Outcome = stream.OutcomeFailed // ran out of time: a failure, not a cancel
	}

	elapsed := o.opts.now().Sub(start)
	o.record(span, tr.attrs, res, elapsed, tr.llmBusy+tr.maxAgentBusy)
	recorded = res != nil
	if err != nil {
		span.SetStatus(codes.Error, "turn ended early: "+string(res.Outcome))
	}
	return res, err
}

// turnRun is the state of one [Orchestrator.Run].
type turnRun struct {
	o      *Orchestrator
	t      Turn
	out    stream.Sink
	render *stream.Renderer
	// attrs and agents are the attributes of the turn's spans, built once when the turn's span
	// records (nil otherwise); agents is built by dispatch before its calls start.
	attrs  *turnAttrs
	agents agentAttrs

	llmBusy      time.Duration // inside the orchestrator's own LLM calls
	maxAgentBusy time.Duration // the busiest sub-agent's time inside LLM and CCS calls
	composeCut   bool          // the composed reply broke off mid-stream
	streamed     stream.Text   // the composed reply as it streamed
}

func (tr *turnRun) run(ctx context.Context) (*Result, error) {
	o := tr.o
	msgs := tr.messages()

	// Step 2: the orchestrator's LLM decides whom to ask. Its text is held back: it becomes
	// the reply only when no sub-agent is asked.
	resp, err := tr.generate(ctx, "llm.route", msgs, o.withTools)
	if err != nil {
		return tr.fail(ctx, err)
	}
	calls := ask.ToolCalls(resp)
	if len(calls) == 0 {
		text := strings.TrimSpace(ask.Text(resp))
		if text == "" {
			text = fallbackReply
		}
		tr.render.Flush()
		publishChunked(tr.out, text)
		tr.out.Publish(stream.ReplyCompleted{Text: text})
		return &Result{Reply: text, Outcome: stream.OutcomeOK, Decision: Decision{CapBehaviour: CapWithin, Cap: o.def.FanOutCap}}, nil
	}

	// Step 3: the cap is enforced before anything runs.
	kept, decision := tr.o.applyCap(calls)

	// Step 4-5: concurrent dispatch.
	prior := tr.priorContext(ctx, kept)
	results := tr.dispatch(ctx, kept, prior)
	tr.render.Flush()
	decision.Agents = make([]AgentOutcome, 0, len(results))
	for i, r := range results {
		decision.Agents = append(decision.Agents, AgentOutcome{
			Agent: kept[i].b.def.ID, Outcome: r.outcome, Started: r.started, Latency: r.latency, Tools: r.answer.Tools,
		})
		tr.maxAgentBusy = max(tr.maxAgentBusy, r.answer.Busy)
	}
	if err := ctx.Err(); err != nil {
		return &Result{Outcome: stream.OutcomeCancelled, Decision: decision}, err
	}

	// Step 6: the orchestrator composes the one reply, streamed as deltas.
	msgs = slices.Grow(msgs, 2*len(kept))
	parts := make([]llms.ContentPart, 2*len(kept)) // one backing array for every message's part
	for i, c := range kept {
		tc := c.call
		if tc.Type == "" {
			tc.Type = "function"
		}
		// One AI message per call, each followed by its result: the shape every provider
		// converts correctly (see LIBRARIES notes on anthropic's Parts[0]).
		parts[2*i] = tc
		parts[2*i+1] = llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: results[i].toolResult}
		msgs = append(msgs,
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts[2*i : 2*i+1 : 2*i+1]},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts[2*i+1 : 2*i+2 : 2*i+2]},
		)
	}
	text, err := tr.compose(ctx, msgs, kept, results)
	if err != nil {
		return &Result{Outcome: stream.OutcomeCancelled, Decision: decision}, err
	}
	var comps []json.RawMessage
	for _, r := range results {
		comps = append(comps, r.answer.Components...)
	}
	tr.out.Publish(stream.ReplyCompleted{Text: text, Components: comps})
	outcome := turnOutcome(results)
	if tr.composeCut {
		outcome = stream.OutcomeDegraded
	}
	return &Result{Reply: text, Components: comps, Outcome: outcome, Decision: decision}, nil
}

// compose asks the LLM for the final reply, streaming its text as reply deltas. When the model
// fails or says nothing, the reply is composed here from the same tool results, so the user
// always gets the answers that did arrive.
func (tr *turnRun) compose(ctx context.Context, msgs []llms.MessageContent, kept []keptCall, results []dispatchResult) (string, error) {
	// The streamed text is kept in the turn's state, so that the callback captures tr alone.
	onChunk := func(_ context.Context, chunk []byte) error {
		if len(chunk) == 0 {
			return nil
		}
		text := string(chunk)
		tr.streamed.Write(text)
		tr.out.Publish(stream.ReplyDelta{Text: text})
		return nil
	}
	resp, err := tr.generate(ctx, "llm.compose", msgs, tr.o.withTools, llms.WithStreamingFunc(onChunk))
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		tr.o.opts.Logger.WarnContext(ctx, "composition failed", "turn_id", tr.t.ID, "streamed", tr.streamed.Len() > 0, "err", err)
	}
	if tr.streamed.Len() > 0 {
		if err != nil { // the stream broke off: say so rather than pass a cut reply as whole
			tr.composeCut = true
			tr.out.Publish(stream.ReplyDelta{Text: cutNote})
			tr.streamed.Write(cutNote)
		}
		return tr.streamed.String(), nil
	}
	text := ""
	if err == nil {
		text = strings.TrimSpace(ask.Text(resp))
	}
	if text == "" {
		text = fallbackComposition(kept, results)
	}
	publishChunked(tr.out, text)
	return text, nil
}

// fail answers when the orchestrator's own LLM could not route the turn.
func (tr *turnRun) fail(ctx context.Context, err error) (*Result, error) {
	dec := Decision{CapBehaviour: CapWithin, Cap: tr.o.def.FanOutCap}
	if ctx.Err() != nil {
		return &Result{Outcome: stream.OutcomeCancelled, Decision: dec}, ctx.Err()
	}
	tr.o.opts.Logger.ErrorContext(ctx, "orchestrator model failed", "turn_id", tr.t.ID, "err", err)
	tr.render.Flush()
	publishChunked(tr.out, fallbackReply)
	tr.out.Publish(stream.ReplyCompleted{Text: fallbackReply})
	return &Result{Reply: fallbackReply, Outcome: stream.OutcomeFailed, Decision: dec}, nil
}

// generate calls the orchestrator's LLM in a span named spanName and accounts its time.
func (tr *turnRun) generate(ctx context.Context, spanName string, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	ctx, span := tr.o.tracer.Start(ctx, spanName)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(tr.ids().llm()...)
	}
	start := time.Now()
	resp, err := tr.o.model.GenerateContent(ctx, msgs, opts...)
	tr.llmBusy += time.Since(start)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // a provider may return a partial response on cancellation
	}
	if err != nil {
		span.SetStatus(codes.Error, "model call failed")
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	setUsage(span, resp)
	return resp, nil
}

// ids are the turn's span attributes: those built for the turn's span, or, for a span recorded
// under a turn span that is not (a sampler may decide so), new ones.
func (tr *turnRun) ids() *turnAttrs {
	if tr.attrs != nil {
		return tr.attrs
	}
	return tr.o.newTurnAttrs(tr.t)
}

// messages builds the conversation the orchestrator's LLM sees: system prompt, a bounded
// window of earlier exchanges, and the user's message.
func (tr *turnRun) messages() []llms.MessageContent {
	hist := tr.t.History
	if n := tr.o.opts.historyTurns; len(hist) > n {
		hist = hist[len(hist)-n:]
	}
	// Room for the composition's tool calls and results too (two per sub-agent asked), and
	// one backing array for every message's part rather than one per message.
	msgs := make([]llms.MessageContent, 0, 2+2*len(hist)+2*max(1, tr.o.def.FanOutCap))
	parts := make([]llms.ContentPart, 0, 2+2*len(hist))
	addPart := func(role llms.ChatMessageType, part llms.ContentPart) {
		parts = append(parts, part)
		msgs = append(msgs, llms.MessageContent{Role: role, Parts: parts[len(parts)-1 : len(parts) : len(parts)]})
	}
	add := func(role llms.ChatMessageType, text string) { addPart(role, llms.TextContent{Text: text}) }
	if tr.t.Locale == "" {
		addPart(llms.ChatMessageTypeSystem, tr.o.promptPart)
	} else {
		add(llms.ChatMessageTypeSystem, turnPrompt(tr.o.prompt, tr.t.Locale))
	}
	for _, ex := range hist {
		add(llms.ChatMessageTypeHuman, ex.User)
		if ex.Reply != "" {
			add(llms.ChatMessageTypeAI, ex.Reply)
		}
	}
	add(llms.ChatMessageTypeHuman, tr.t.Message)
	return msgs
}

// priorContext writes the summary a sub-agent inherits when the conversation moves to it from
// another vertical. It is generated once per turn, only on such a switch, and bounded.
func (tr *turnRun) priorContext(ctx context.Context, kept []keptCall) string {
	hist := tr.t.History
	if len(hist) == 0 {
		return ""
	}
	last := hist[len(hist)-1].Agents
	switched := false
	for _, k := range kept {
		if !contains(last, k.b.def.ID) {
			switched = true
			break
		}
	}
	if !switched {
		return ""
	}
	var convo strings.Builder
	for _, ex := range hist[max(0, len(hist)-tr.o.opts.historyTurns):] {
		fmt.Fprintf(&convo, "User: %s\nAssistant: %s\n", ex.User, ex.Reply)
	}
	resp, err := tr.generate(ctx, "llm.summarize", []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, summaryPrompt),
		llms.TextParts(llms.ChatMessageTypeHuman, convo.String()),
	})
	if err != nil {
		// The sub-agents still run, without the summary.
		tr.o.opts.Logger.WarnContext(ctx, "prior-context summary failed", "turn_id", tr.t.ID, "err", err)
		return ""
	}
	return truncate(strings.TrimSpace(ask.Text(resp)), maxPriorContext)
}

// maxPriorContext bounds the inherited summary: references over transcripts.
const maxPriorContext = 600

// turnOutcome is ok when every sub-agent answered from good data, and degraded when the reply
// had to acknowledge something missing. A turn fails only when the orchestrator itself could
// not answer (see fail); sub-agent failures are acknowledged, not fatal.
func turnOutcome(results []dispatchResult) stream.Outcome {
	for _, r := range results {
		if r.outcome != ask.OutcomeOK {
			return stream.OutcomeDegraded
		}
	}
	return stream.OutcomeOK
}

// toolCalls collects the tool calls of a response from every choice: some providers return
// one choice per content block.

// publishChunked streams text as word-sized deltas, for replies that did not arrive streamed.
func publishChunked(out stream.Sink, text string) {
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out.Publish(stream.ReplyDelta{Text: text})
			return
		}
		out.Publish(stream.ReplyDelta{Text: text[:i+1]})
		text = text[i+1:]
	}
}

// fallbackComposition presents each result in turn when the LLM could not compose.
func fallbackComposition(kept []keptCall, results []dispatchResult) string {
	var parts []string
	for i, r := range results {
		if r.outcome == ask.OutcomeOK || r.outcome == ask.OutcomePartial {
			parts = append(parts, strings.TrimSpace(r.answer.Text))
		} else {
			parts = append(parts, fmt.Sprintf("I couldn't get an answer from %s right now.", kept[i].b.def.Name))
		}
	}
	return strings.Join(parts, "\n\n")
}

// setUsage records the tokens a call used, when the provider reported any: zero from a
// provider that reports nothing would read as a free call.
func setUsage(span trace.Span, resp *llms.ContentResponse) {
	t := ask.TokensOf(resp)
	if t.Input == 0 && t.Output == 0 {
		return
	}
	span.SetAttributes(attribute.Int("gen_ai.usage.input_tokens", t.Input), attribute.Int("gen_ai.usage.output_tokens", t.Output))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	return s[:cut] + "…"
}
