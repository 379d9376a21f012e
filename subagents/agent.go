package subagents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/principal"
)

// Enricher is the CCS as a sub-agent sees it; *ccs.Client implements it.
type Enricher interface {
	Enrich(ctx context.Context, req ccs.EnricherRequest) (*ccs.RawResponse, error)
}

var _ Enricher = (*ccs.Client)(nil)

// Config holds what [New] needs to instantiate a sub-agent runtime.
type Config struct {
	Definition *definitions.Definition
	Model      llms.Model
	CCS        Enricher
	Registry   *ccs.Registry
	Check      ccs.CheckOptions
}

// Option tunes an [Agent].
type Option func(*options)

type options struct {
	maxSteps     int
	onSuppressed func(context.Context, Suppression)
	now          func() time.Time // today's date, stated in the system prompt (WithClock)
	ask.Telemetry
}

// collect applies opts over the defaults in o.
func collect(o options, opts []Option) options {
	for _, opt := range opts {
		opt(&o)
	}
	o.Telemetry = o.Telemetry.OrDefaults()
	return o
}

// WithMaxSteps bounds the sub-agent's LLM loop (LLM calls per invocation). Default 4.
func WithMaxSteps(n int) Option { return func(o *options) { o.maxSteps = n } }

// WithTelemetry sets where spans, metrics and logs (security alerts among them) go; unset
// fields use the OpenTelemetry globals and slog.Default().
func WithTelemetry(t ask.Telemetry) Option { return func(o *options) { o.Telemetry = t } }

// Agent runs one sub-agent definition.
type Agent struct {
	def    *definitions.Definition
	model  llms.Model
	ccs    Enricher
	reg    *ccs.Registry
	check  ccs.CheckOptions
	tools  []llms.Tool
	byName map[string]definitions.Tool
	// answers holds the compiled answer templates, by tool name.
	answers map[string]*definitions.AnswerTemplate
	opts    options
	inst    *instruments
	// Built once, as every invocation asks with them: the prompt without inherited context,
	// and the call options of a tool step and of the last step (which must answer in words).
	basePrompt          string
	toolOpts, finalOpts []llms.CallOption
	// dated is basePrompt with the date line of the day it was last asked on: boxing a
	// string into an interface allocates, and most invocations inherit nothing that changes
	// the prompt.
	dated atomic.Pointer[datedPrompt]
	// spanAttrs are the attributes of its LLM calls' spans that depend only on the
	// definition: gen_ai.operation.name and agent_id.
	spanAttrs [2]attribute.KeyValue
	// tracer starts its spans: asking the provider for it takes a lock and a map lookup.
	tracer trace.Tracer
	// poolAttrs says the tracer's spans copy their attributes, so that an invocation's
	// attribute array may serve the next one (see spanAttrsRoom).
	poolAttrs bool
}

// New instantiates the runtime for cfg.Definition.
func New(cfg Config, opts ...Option) (*Agent, error) {
	o := collect(options{maxSteps: 4, now: time.Now}, opts)
	def := cfg.Definition
	switch {
	case def == nil || def.Kind != definitions.KindSubAgent:
		return nil, ErrNotSubAgent
	case cfg.Model == nil:
		return nil, fmt.Errorf("%w: %s", ErrNoModel, def.ID)
	case len(def.Tools) > 0 && (cfg.CCS == nil || cfg.Registry == nil):
		return nil, fmt.Errorf("%w: %s", ErrNoCCS, def.ID)
	}
	inst, err := newInstruments(o.Meters)
	if err != nil {
		return nil, err
	}
	a := &Agent{def: def, model: cfg.Model, ccs: cfg.CCS, reg: cfg.Registry, check: cfg.Check,
		byName: map[string]definitions.Tool{}, answers: map[string]*definitions.AnswerTemplate{}, opts: o, inst: inst}
	for _, t := range def.Tools {
		a.byName[t.Name] = t
		tmpl, err := t.AnswerTemplate()
		if err != nil {
			return nil, fmt.Errorf("subagents: %s: tool %s: %w", def.ID, t.Name, err)
		}
		if tmpl != nil {
			a.answers[t.Name] = tmpl
		}
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		a.tools = append(a.tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name, Description: toolDescription(t), Parameters: params,
		}})
	}
	if len(a.tools) > 0 {
		a.toolOpts = []llms.CallOption{llms.WithTools(a.tools)}
		a.finalOpts = []llms.CallOption{llms.WithTools(a.tools), llms.WithToolChoice("none")}
	}
	a.basePrompt = strings.TrimSpace(def.Prompt) + "\n\nUse only the data your tools return. If a tool result says the data is unavailable, say so plainly; if it carries a caveat, mention it briefly. A result's answer states its data as the agent's team wants it said: keep its facts."
	a.tracer = o.Tracers.Tracer(tracerName)
	a.poolAttrs = o.CopiesAttributes()
	a.spanAttrs = [2]attribute.KeyValue{attribute.String("gen_ai.operation.name", "chat"), attribute.String("switchboard.agent_id", def.ID)}
	return a, nil
}

// toolExamplesHead starts the line of a tool description that lists the tool's examples: the
// sub-agent's LLM reads them as hints of when the tool is the right one, and the offline model
// matches questions against them.
const toolExamplesHead = "Users ask for this tool with requests such as:"

// toolDescription is the description the sub-agent's LLM sees: the declared one, and the
// tool's examples as hints.
func toolDescription(t definitions.Tool) string {
	if len(t.Examples) == 0 {
		return t.Description
	}
	quoted := make([]string, len(t.Examples))
	for i, ex := range t.Examples {
		quoted[i] = fmt.Sprintf("%q", strings.TrimSpace(ex))
	}
	return strings.TrimSpace(t.Description) + "\n" + toolExamplesHead + " " + strings.Join(quoted, "; ")
}

// Ask runs the sub-agent's LLM loop for req. A returned error (the sub-agent's model failed,
// the context ended) is a failure of the sub-agent itself for the orchestrator to acknowledge.
func (a *Agent) Ask(ctx context.Context, req ask.Question) (ask.Answer, error) {
	if req.Inherited.Principal == "" {
		return ask.Answer{}, ErrNoPrincipal
	}
	ctx = principal.NewContext(ctx, req.Inherited.Principal)
	run := &invocation{a: a, req: req}
	defer run.release()
	msgs := run.messages()
	for step := 0; ; step++ {
		// The last step must answer in words. The tools still go with the request: some
		// providers refuse a history holding tool calls when no tools are defined.
		final := step >= a.opts.maxSteps-1 || len(a.tools) == 0
		opts := a.toolOpts
		if final && len(a.tools) > 0 {
			opts = a.finalOpts
		}
		resp, err := run.generate(ctx, msgs, opts...)
		if err != nil {
			return ask.Answer{Tools: run.tools, Busy: run.busy}, err
		}
		calls := ask.ToolCalls(resp)
		if len(calls) == 0 || final {
			text := strings.TrimSpace(ask.Text(resp))
			if text == "" {
				text = run.plainSummary()
			}
			return ask.Answer{Text: text, Outcome: run.outcome(), Components: run.components, Tools: run.tools, Busy: run.busy}, nil
		}
		for _, tc := range calls {
			if tc.Type == "" {
				tc.Type = "function"
			}
			result := run.callTool(ctx, tc)
			msgs = append(msgs,
				llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{tc}},
				llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
					ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: result,
				}}},
			)
		}
	}
}

// messages are the conversation an invocation starts with: the system prompt and the request.
// They live in the invocation, which is allocated anyway.
func (r *invocation) messages() []llms.MessageContent {
	base := r.a.datedBase()
	r.parts[0] = base.part
	if sys := systemPrompt(base.text, r.req.Inherited); sys != base.text {
		r.parts[0] = llms.TextContent{Text: sys}
	}
	r.parts[1] = llms.TextContent{Text: r.req.Request}
	r.first[0] = llms.MessageContent{Role: llms.ChatMessageTypeSystem, Parts: r.parts[0:1:1]}
	r.first[1] = llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: r.parts[1:2:2]}
	return r.first[:]
}

// systemPrompt is base, the definition's prompt and today's date, plus the inherited context
// the LLM may use.
func systemPrompt(base string, in ask.Inherited) string {
	if in.Locale == "" && in.Location == "" && in.PriorContext == "" {
		return base
	}
	var b strings.Builder
	b.WriteString(base)
	if in.Locale != "" {
		b.WriteString(ask.LocaleLine + in.Locale + ".")
	}
	if in.Location != "" {
		b.WriteString(ask.LocationLine + in.Location + ".")
	}
	if in.PriorContext != "" {
		b.WriteString(ask.PriorContextLine + in.PriorContext)
	}
	return b.String()
}

// invocation is the state of one [Agent.Ask].
type invocation struct {
	a          *Agent
	req        ask.Question
	busy       time.Duration
	used       int // tool results usable as they are
	caveats    int // usable with a caveat
	missing    int // unavailable
	components []json.RawMessage
	tools      []string // the definition's tools called, in order
	// first and parts back the conversation's first two messages.
	first [2]llms.MessageContent
	parts [2]llms.ContentPart
	// spanAttrs are its LLM calls' span attributes, laid out by the first recorded call in an
	// array from spanAttrsPool when the spans copy them (the SDK's do), given back when the
	// invocation ends; in one of its own otherwise.
	spanAttrs *spanAttrsRoom
}

// spanAttrsRoom holds an invocation's LLM span attributes: the definition's (operation and
// agent id) and the turn id. Invocations reuse them rather than allocate 192 bytes each.
type spanAttrsRoom [3]attribute.KeyValue

var spanAttrsPool = sync.Pool{New: func() any { return new(spanAttrsRoom) }}

// release gives back what the invocation took from a pool; its spans have all ended.
func (r *invocation) release() {
	if r.spanAttrs != nil && r.a.poolAttrs {
		*r.spanAttrs = spanAttrsRoom{} // keeps no turn's id alive
		spanAttrsPool.Put(r.spanAttrs)
		r.spanAttrs = nil
	}
}

func (r *invocation) generate(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	ctx, span := r.a.tracer.Start(ctx, "llm.subagent")
	defer span.End()
	if span.IsRecording() {
		if r.spanAttrs == nil {
			if r.a.poolAttrs {
				r.spanAttrs = spanAttrsPool.Get().(*spanAttrsRoom)
			} else {
				r.spanAttrs = new(spanAttrsRoom)
			}
			*r.spanAttrs = spanAttrsRoom{r.a.spanAttrs[0], r.a.spanAttrs[1], attribute.String("switchboard.turn_id", r.req.Inherited.TurnID)}
		}
		span.SetAttributes(r.spanAttrs[:]...)
	}
	start := time.Now()
	resp, err := r.a.model.GenerateContent(ctx, msgs, opts...)
	r.busy += time.Since(start)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil && resp == nil {
		err = errNoResponse // a provider (or fake) answering nothing must not crash the loop
	}
	if err != nil {
		span.SetStatus(codes.Error, "model call failed")
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	return resp, nil
}

func (r *invocation) outcome() ask.Outcome {
	switch {
	case r.missing > 0 && r.used+r.caveats == 0:
		return ask.OutcomeUnavailable
	case r.missing > 0 || r.caveats > 0:
		return ask.OutcomePartial
	default:
		return ask.OutcomeOK
	}
}

// plainSummary answers when the model returned no text: the outcome in plain words.
func (r *invocation) plainSummary() string {
	if r.outcome() == ask.OutcomeUnavailable {
		return "That information is unavailable right now."
	}
	return "I looked into it but have nothing to add."
}
