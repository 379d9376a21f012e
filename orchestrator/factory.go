package orchestrator

import (
	"fmt"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
)

// Config holds what [New] needs to bind an orchestrator.
type Config struct {
	// Definition is the orchestrator's Agent Definition.
	Definition *definitions.Definition
	// SubAgents are the definitions listed in Definition.SubAgents, in any order.
	SubAgents []*definitions.Definition
	// Runtimes answers for each sub-agent id.
	Runtimes map[string]ask.Agent
	// Model is the orchestrator's LLM.
	Model llms.Model
	// Flags resolves feature-flag names of `enabled:`; nil means every flag is off.
	Flags func(name string) bool
}

// Option tunes an [Orchestrator].
type Option func(*options)

type options struct {
	fewShot      bool
	cadence      time.Duration
	historyTurns int
	ask.Telemetry
	now func() time.Time
}

// WithFewShot attaches routing hints to the system prompt: the sub-agents' examples and their
// tools' examples as example requests, and what each sub-agent's tools can look up (from
// their descriptions). On by default: the offline model routes by them, and real models
// route better with them; off, the prompt lists the sub-agents' descriptions only.
func WithFewShot(on bool) Option { return func(o *options) { o.fewShot = on } }

// WithCadence sets how long a sub-agent may run silently before the orchestrator shows a
// progress line for it (users should see progress within 2 s). Default 1.5 s.
func WithCadence(d time.Duration) Option { return func(o *options) { o.cadence = d } }

// WithHistory sets how many earlier exchanges of the episode the LLM sees. Default 6.
func WithHistory(n int) Option { return func(o *options) { o.historyTurns = n } }

// WithTelemetry sets where spans, metrics and logs go; unset fields use the OpenTelemetry
// globals and slog.Default().
func WithTelemetry(t ask.Telemetry) Option { return func(o *options) { o.Telemetry = t } }

// Orchestrator is a bound orchestrator: its tools are fixed for its lifetime.
type Orchestrator struct {
	def      *definitions.Definition
	model    llms.Model
	tools    []llms.Tool
	bindings map[string]*binding // by tool name
	order    []*binding          // in sub_agents order
	prompt   string
	// promptPart is prompt as a message part, boxed once: most turns carry no locale.
	promptPart llms.ContentPart
	vocab      map[string]map[string]definitions.StatusEvent
	opts       options
	inst       *instruments
	labels     outcomeLabels
	lists      *stringLists // the routing.decision event's list values, by content
	// withTools offers the tools to a model call; built once, as the tools never change.
	withTools llms.CallOption
	// tracer starts its spans: asking the provider for it takes a lock and a map lookup.
	tracer trace.Tracer
	// poolAttrs says the tracer's spans copy their attributes, so that a turn's attribute
	// arrays may serve the next turn (see turnAttrs).
	poolAttrs bool
}

// binding is one sub-agent materialised as a tool.
type binding struct {
	def   *definitions.Definition
	agent ask.Agent
	// metrics holds the attribute sets its measurements carry, built once: hashing a fresh
	// attribute set per measurement was a tenth of a turn's CPU.
	metrics bindingMetrics
	// spanName and spanAttrs name its invocation span and give the attributes that depend
	// only on the definition (agent_id, gen_ai.tool.name), built once.
	spanName  string
	spanAttrs []attribute.KeyValue
}

// bindingMetrics are a sub-agent's measurement attributes: by agent, and by agent and outcome.
type bindingMetrics struct {
	// Option slices rather than options: passed on with ..., a slice built once costs
	// nothing per call, where a single option is boxed into a new one every time.
	agent     []metric.RecordOption
	byOutcome map[ask.Outcome][]metric.AddOption
}

func newBindingMetrics(id string) bindingMetrics {
	m := bindingMetrics{
		agent:     []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("agent", id)))},
		byOutcome: map[ask.Outcome][]metric.AddOption{},
	}
	for _, o := range []ask.Outcome{ask.OutcomeOK, ask.OutcomePartial, ask.OutcomeUnavailable, ask.OutcomeFailed, ask.OutcomeTimeout, ask.OutcomeCancelled} {
		m.byOutcome[o] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("agent", id), attribute.String("outcome", string(o))))}
	}
	return m
}

// outcome is the attribute set for id with outcome o.
func (m bindingMetrics) outcome(id string, o ask.Outcome) []metric.AddOption {
	if opts, ok := m.byOutcome[o]; ok {
		return opts
	}
	return []metric.AddOption{metric.WithAttributes(attribute.String("agent", id), attribute.String("outcome", string(o)))}
}

var _ ask.Agent = ask.Func(nil)

// New binds cfg into an [Orchestrator]. Sub-agents that are disabled (or whose flag is off)
// are left out; every enabled entry must have a definition and a runtime.
func New(cfg Config, opts ...Option) (*Orchestrator, error) {
	o := options{fewShot: true, cadence: 1500 * time.Millisecond, historyTurns: 6, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	o.Telemetry = o.Telemetry.OrDefaults()
	def := cfg.Definition
	if def == nil || def.Kind != definitions.KindOrchestrator {
		return nil, ErrNotOrchestrator
	}
	if cfg.Model == nil {
		return nil, fmt.Errorf("%w for %s", ErrNoModel, def.ID)
	}
	byID := make(map[string]*definitions.Definition, len(cfg.SubAgents))
	for _, d := range cfg.SubAgents {
		byID[d.ID] = d
	}
	orc := &Orchestrator{def: def, model: cfg.Model, bindings: map[string]*binding{}, opts: o}
	for _, id := range def.SubAgents {
		sd, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no definition", ErrUnboundSubAgent, id)
		}
		if !sd.Enabled.Resolve(cfg.Flags) {
			continue
		}
		rt, ok := cfg.Runtimes[id]
		if !ok || rt == nil {
			return nil, fmt.Errorf("%w: %s has no runtime", ErrUnboundSubAgent, id)
		}
		b := &binding{def: sd, agent: rt, metrics: newBindingMetrics(sd.ID), spanName: "subagent " + sd.ID,
			spanAttrs: []attribute.KeyValue{attribute.String("switchboard.agent_id", sd.ID), attribute.String("gen_ai.tool.name", sd.ToolName())}}
		orc.bindings[sd.ToolName()] = b
		orc.order = append(orc.order, b)
		orc.tools = append(orc.tools, askTool(sd))
	}
	orc.prompt = systemPrompt(def, orc.order, o.fewShot)
	orc.promptPart = llms.TextContent{Text: orc.prompt}
	orc.vocab = orc.vocabulary()
	orc.withTools = llms.WithTools(orc.tools)
	orc.labels = newOutcomeLabels(orc.order)
	orc.lists = newStringLists()
	orc.tracer = o.Tracers.Tracer(tracerName)
	orc.poolAttrs = o.CopiesAttributes()
	inst, err := newInstruments(o.Meters)
	if err != nil {
		return nil, err
	}
	orc.inst = inst
	return orc, nil
}

// askTool materialises a sub-agent as the tool its LLM sees: name ask_<id>, description
// verbatim from the definition.
func askTool(d *definitions.Definition) llms.Tool {
	return llms.Tool{
		Type: "function",
		Function: &llms.FunctionDefinition{
			Name:        d.ToolName(),
			Description: d.Description,
			Parameters: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"request": map[string]any{
						"type":        "string",
						"description": "What the user wants from this agent, in the user's own words.",
					},
				},
				"required": []any{"request"},
			},
		},
	}
}

// Tools returns the tools the orchestrator's LLM sees, in sub_agents order.
func (o *Orchestrator) Tools() []llms.Tool { return append([]llms.Tool(nil), o.tools...) }

// SystemPrompt returns the assembled system prompt.
func (o *Orchestrator) SystemPrompt() string { return o.prompt }

// HistoryTurns is how many earlier exchanges of an episode a turn's LLM sees (see
// [WithHistory]): a caller needs to load no more than that.
func (o *Orchestrator) HistoryTurns() int { return o.opts.historyTurns }

// Definition returns the orchestrator's definition.
func (o *Orchestrator) Definition() *definitions.Definition { return o.def }

// SubAgents returns the bound sub-agents' definitions in sub_agents order.
func (o *Orchestrator) SubAgents() []*definitions.Definition {
	out := make([]*definitions.Definition, len(o.order))
	for i, b := range o.order {
		out[i] = b.def
	}
	return out
}
