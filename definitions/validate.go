package definitions

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinDescriptionLen is the shortest description accepted, in characters. The description is
// the routing signal: the orchestrator's LLM reads it as the tool description.
const MinDescriptionLen = 20

var (
	// idPattern is the shape of agent and status-event ids.
	idPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{1,31}$`)
	// toolNamePattern is what every function-calling API accepts as a tool name.
	toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	enricherPattern = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,127}$`)
	domainPattern   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	flagPattern     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]{0,127}$`)
)

// checker collects the problems of one definition, located through its layout.
type checker struct {
	lay      *layout
	problems []Problem
	// missing holds the required keys left out of a file that has unknown keys: one of those is
	// often the required key misspelt, so the unknown key is the cause and is listed first.
	missing []Problem
}

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Source: c.lay.at(path), Message: fmt.Sprintf(format, args...)})
}

// require reports that key, required in the mapping at path mapping, is missing (or empty).
// When an unknown key of that mapping is probably key misspelt, the problem says so.
func (c *checker) require(mapping, key, format string, args ...any) {
	p := Problem{Source: c.lay.at(childPath(mapping, key)), Message: fmt.Sprintf(format, args...)}
	if len(c.lay.unknown) == 0 {
		c.problems = append(c.problems, p)
		return
	}
	for _, u := range c.lay.unknown {
		if u.mapping == mapping && u.suggest == key {
			p.Message += fmt.Sprintf("; line %d has the unknown key %q: rename it to %q", u.line, u.key, key)
			break
		}
	}
	c.missing = append(c.missing, p)
}

// validate checks one definition on its own; cross-definition checks live in bind. Problems
// about required keys that are missing while the file has unknown keys come back apart, in
// missing, to be listed after the unknown keys (see [causesFirst]).
func validate(def *Definition, lay *layout) (problems, missing []Problem) {
	c := &checker{lay: lay}
	c.identity(def)
	switch def.Kind {
	case KindSubAgent:
		c.subAgent(def)
	case KindOrchestrator:
		c.orchestrator(def)
	case "":
		c.require("", "kind", "kind is required: want sub_agent or orchestrator")
	default:
		c.add("kind", "unknown kind %q: want sub_agent or orchestrator", def.Kind)
	}
	c.tools(def)
	c.statusEvents(def)
	return c.problems, c.missing
}

func (c *checker) identity(def *Definition) {
	switch {
	case def.ID == "":
		c.require("", "id", "id is required")
	case !idPattern.MatchString(def.ID):
		c.add("id", "bad id %q: want 2-32 characters of a-z, 0-9 and _, starting with a letter", def.ID)
	}
	desc := strings.TrimSpace(def.Description)
	switch n := utf8.RuneCountInString(desc); {
	case n == 0:
		c.require("", "description", "description is required: it is what the orchestrator routes on")
	case n < MinDescriptionLen:
		c.add("description", "description is too short (%d characters, want at least %d): say what the agent does and for which questions", n, MinDescriptionLen)
	}
	for i, ex := range def.Examples {
		if strings.TrimSpace(ex) == "" {
			c.add(fmt.Sprintf("examples[%d]", i), "examples: entry %d is empty", i+1)
		}
	}
	if strings.TrimSpace(def.Model) == "" {
		c.add("model", "model must name a model alias (default %q)", DefaultModel)
	}
	if def.Timeout <= 0 {
		c.add("timeout", "timeout must be positive, got %s", def.Timeout)
	}
	if def.Enabled.Flag != "" && !flagPattern.MatchString(def.Enabled.Flag) {
		c.add("enabled", "bad feature flag name %q", def.Enabled.Flag)
	}
}

func (c *checker) subAgent(def *Definition) {
	if len(def.SubAgents) > 0 {
		c.add("sub_agents", "sub_agents is only for orchestrators; %q is a sub_agent", def.ID)
	}
	if def.FanOutCap != 0 {
		c.add("fan_out_cap", "fan_out_cap is only for orchestrators")
	}
	if def.Rendering != (Rendering{}) {
		c.add("rendering", "rendering is only for orchestrators")
	}
	if def.A2AURL == "" {
		return
	}
	if len(def.Tools) > 0 {
		c.add("a2a_url", "a2a_url and tools exclude each other: a remote agent brings its own tools")
	}
	u, err := url.Parse(def.A2AURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add("a2a_url", "bad a2a_url %q: want an absolute http or https URL", def.A2AURL)
	}
}

func (c *checker) orchestrator(def *Definition) {
	if len(def.Tools) > 0 {
		c.add("tools", "tools is only for sub_agents: an orchestrator calls its sub_agents")
	}
	if def.A2AURL != "" {
		c.add("a2a_url", "a2a_url is only for sub_agents")
	}
	if len(def.SubAgents) == 0 {
		c.require("", "sub_agents", "an orchestrator needs at least one sub_agents entry")
	}
	seen := map[string]bool{}
	for i, id := range def.SubAgents {
		if seen[id] {
			c.add(fmt.Sprintf("sub_agents[%d]", i), "sub_agents lists %q twice", id)
		}
		seen[id] = true
	}
	if def.FanOutCap < 1 {
		c.add("fan_out_cap", "fan_out_cap must be at least 1, got %d", def.FanOutCap)
	}
	if def.Rendering.BatchWindow < 0 {
		c.add("rendering.batch_window", "batch_window must not be negative")
	}
	if def.Rendering.MinInterval < 0 {
		c.add("rendering.min_interval", "min_interval must not be negative")
	}
}

func (c *checker) tools(def *Definition) {
	seen := map[string]bool{}
	for i, t := range def.Tools {
		p := fmt.Sprintf("tools[%d]", i)
		label := t.Name
		switch {
		case t.Name == "":
			label = fmt.Sprintf("#%d", i+1)
			c.require(p, "name", "tool %s has no name", label)
		case !toolNamePattern.MatchString(t.Name):
			c.add(p+".name", "bad tool name %q: want letters, digits, _ or -", t.Name)
		case seen[t.Name]:
			c.add(p+".name", "duplicate tool name %q", t.Name)
		}
		seen[t.Name] = true
		switch {
		case t.Enricher == "":
			c.require(p, "enricher", "tool %s has no enricher", label)
		case !enricherPattern.MatchString(t.Enricher):
			c.add(p+".enricher", "tool %s: bad enricher id %q", label, t.Enricher)
		}
		switch {
		case t.DomainType == "":
			c.require(p, "domain_type", "tool %s has no domain_type", label)
		case !domainPattern.MatchString(t.DomainType):
			c.add(p+".domain_type", "tool %s: bad domain_type %q", label, t.DomainType)
		}
		if strings.TrimSpace(t.Description) == "" {
			c.require(p, "description", "tool %s has no description: the sub-agent's LLM chooses tools by it", label)
		}
		c.parameters(p+".parameters", label, t.Parameters)
		for j, ex := range t.Examples {
			if strings.TrimSpace(ex) == "" {
				c.add(fmt.Sprintf("%s.examples[%d]", p, j), "tool %s: examples: entry %d is empty", label, j+1)
			}
		}
		if t.Answer != "" {
			if _, err := t.AnswerTemplate(); err != nil {
				var ae *AnswerError
				if errors.As(err, &ae) {
					c.problems = append(c.problems, Problem{Source: ae.Source, Message: fmt.Sprintf("tool %s: answer: %s", label, ae.Message)})
				} else {
					c.add(p+".answer", "tool %s: answer: %v", label, err)
				}
			}
		}
		if t.StatusEvent != "" {
			if _, ok := def.StatusEvents[t.StatusEvent]; !ok {
				c.add(p+".status_event", "tool %s uses status event %q, which status_events does not declare", label, t.StatusEvent)
			}
		}
	}
}

// parameters checks the top of a tool's JSON Schema: an object whose required entries are
// declared properties. Deeper schema rules are left to the LLM provider.
func (c *checker) parameters(p, label string, schema map[string]any) {
	if schema == nil {
		return
	}
	if typ, ok := schema["type"]; ok && typ != "object" {
		c.add(p+".type", "tool %s: parameters type must be object, got %v", label, typ)
	}
	props, ok := schema["properties"].(map[string]any)
	if _, set := schema["properties"]; set && !ok {
		c.add(p+".properties", "tool %s: parameters properties must be a mapping", label)
	}
	for name, prop := range props {
		if _, ok := prop.(map[string]any); !ok {
			c.add(p+".properties."+name, "tool %s: parameter %q must be a schema mapping", label, name)
		}
	}
	raw, set := schema["required"]
	if !set {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		c.add(p+".required", "tool %s: parameters required must be a list of property names", label)
		return
	}
	for i, r := range list {
		name, ok := r.(string)
		if _, declared := props[name]; !ok || !declared {
			c.add(fmt.Sprintf("%s.required[%d]", p, i), "tool %s: required parameter %v is not in properties", label, r)
		}
	}
}

func (c *checker) statusEvents(def *Definition) {
	ids := make([]string, 0, len(def.StatusEvents))
	for id := range def.StatusEvents {
		ids = append(ids, id)
	}
	slices.Sort(ids) // map order would make the problem list flap
	for _, id := range ids {
		ev := def.StatusEvents[id]
		p := "status_events." + id
		if !idPattern.MatchString(id) {
			c.add(p, "bad status event id %q: want 2-32 characters of a-z, 0-9 and _, starting with a letter", id)
		}
		switch ev.Policy {
		case PolicyForward, PolicyTransform, PolicyBatch, PolicySuppress:
		default:
			c.add(p+".policy", "status event %s: unknown policy %q: want forward, transform, suppress or batch", id, ev.Policy)
			continue
		}
		if ev.Policy != PolicySuppress && strings.TrimSpace(ev.Text) == "" {
			c.require(p, "text", "status event %s has no text", id)
			continue
		}
		c.template(def, id, ev)
	}
}

// template checks placeholders: only transform renders them, and each must be a required
// parameter of every tool that emits the event, so the rendered line never has a hole.
func (c *checker) template(def *Definition, id string, ev StatusEvent) {
	p := "status_events." + id + ".text"
	names, err := Placeholders(ev.Text)
	if err != nil {
		c.add(p, "status event %s: bad template: %v", id, err)
		return
	}
	if ev.Policy != PolicyTransform {
		if len(names) > 0 {
			c.add(p, "status event %s: placeholders render only with policy transform (policy is %s)", id, ev.Policy)
		}
		return
	}
	if len(names) == 0 {
		c.add(p, "status event %s: policy transform needs a {placeholder} in its text; use forward", id)
		return
	}
	for _, t := range def.Tools {
		if t.StatusEvent != id {
			continue
		}
		required := requiredParams(t.Parameters)
		for _, name := range names {
			if !required[name] {
				c.add(p, "status event %s: placeholder {%s} is not a required parameter of tool %s", id, name, t.Name)
			}
		}
	}
}

func requiredParams(schema map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := schema["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			out[name] = true
		}
	}
	return out
}
