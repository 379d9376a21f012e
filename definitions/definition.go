package definitions

import "time"

// Kind says what a definition describes.
type Kind string

const (
	// KindSubAgent is a specialist the orchestrator can ask through an ask_<id> tool.
	KindSubAgent Kind = "sub_agent"
	// KindOrchestrator routes a turn to its bound sub-agents and composes the reply.
	KindOrchestrator Kind = "orchestrator"
)

// Policy is the orchestrator's rendering decision for one typed status event.
type Policy string

const (
	PolicyForward   Policy = "forward"   // render the declared text as is
	PolicyTransform Policy = "transform" // render the text as a template over safe parameters
	PolicySuppress  Policy = "suppress"  // never shown
	PolicyBatch     Policy = "batch"     // merged with parallel events inside the batch window
)

// Definition is one Agent Definition as loaded from YAML.
type Definition struct {
	Kind         Kind
	ID           string
	Name         string
	Description  string
	Examples     []string
	Model        string
	Prompt       string
	Timeout      time.Duration
	Enabled      Enabled
	Tools        []Tool
	StatusEvents map[string]StatusEvent
	A2AURL       string

	// Orchestrator-only fields.
	SubAgents []string
	FanOutCap int
	Rendering Rendering

	// Source is where the definition was read from, for error messages.
	Source Source
}

// ToolName is the name under which the orchestrator's LLM sees this sub-agent.
func (d *Definition) ToolName() string { return "ask_" + d.ID }

// Remote reports whether a remote A2A agent answers for this definition instead of a local
// model-and-tools loop.
func (d *Definition) Remote() bool { return d.A2AURL != "" }

// Tool returns the tool called name, if the definition declares one.
func (d *Definition) Tool(name string) (Tool, bool) {
	for _, t := range d.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Tool is a CCS enricher a sub-agent may call.
type Tool struct {
	Name        string
	Enricher    string
	DomainType  string
	Description string
	Parameters  map[string]any // JSON Schema of the arguments
	StatusEvent string         // emitted when the tool starts; declared in StatusEvents
	// Examples are what users say when this tool is the right one: hints for the sub-agent's
	// LLM, and what the offline model matches a question against to pick the tool.
	Examples []string
	// Answer, when set, is a Go text/template over the tool's payload that states its data
	// (see [Tool.AnswerTemplate] for the helpers it may use).
	Answer string
	// AnswerSource is where the first line of Answer sits in its file, for error messages.
	AnswerSource Source
}

// StatusEvent is the default rendering of one typed status event.
type StatusEvent struct {
	Text   string // the line shown, or a template with {param} placeholders for PolicyTransform
	Policy Policy
}

// Rendering tunes how the orchestrator renders status events during a turn.
type Rendering struct {
	BatchWindow time.Duration // parallel events inside this window become one line
	MinInterval time.Duration // at most one line per agent per interval; excess events are dropped and counted
}

// Enabled is either a constant or the name of a feature flag resolved at factory time.
// When Flag is set, Value is ignored.
type Enabled struct {
	Value bool
	Flag  string
}

// Resolve returns whether the definition is enabled, asking flag for the value of a named
// feature flag. A nil flag function treats every flag as off.
func (e Enabled) Resolve(flag func(name string) bool) bool {
	if e.Flag == "" {
		return e.Value
	}
	return flag != nil && flag(e.Flag)
}

// UnsetIn returns the flag e names when flags does not define it, or "": such a definition is
// off (see Resolve), whether its flag is meant to be off or misspelt.
func (e Enabled) UnsetIn(flags map[string]bool) string {
	if _, set := flags[e.Flag]; e.Flag == "" || set {
		return ""
	}
	return e.Flag
}

// Source locates a definition or a problem in a file.
type Source struct {
	File string
	Line int
}
