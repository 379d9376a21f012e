package definitions

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// Parse decodes one Agent Definition file, fills defaults and validates the definition on its
// own (checks that need the other definitions, such as unknown sub_agents, happen in [Load]).
// name is used as the file in every [Problem]. The definition is returned decoded as far as
// possible even when there are problems; it is nil only when data is not a YAML mapping.
// Problems are sorted by line, except that a missing key comes after the unknown keys: one of
// them is often that key, misspelt, and is the thing to fix.
func Parse(name string, data []byte) (*Definition, []Problem) {
	def, lay, problems := parse(name, data)
	var missing []Problem
	if def != nil {
		var more []Problem
		more, missing = validate(def, lay)
		problems = append(problems, more...)
	}
	return def, causesFirst(problems, missing)
}

// parse decodes and fills defaults without validating.
func parse(name string, data []byte) (*Definition, *layout, []Problem) {
	d := &decoder{file: name, lines: map[string]int{}, given: map[string]bool{}}
	root := d.document(data)
	if root == nil {
		return nil, nil, d.problems
	}
	d.rejectAnchors(root)
	def := &Definition{Source: Source{File: name, Line: root.Line}}
	d.definition(root, def)
	d.applyDefaults(def)
	return def, &layout{file: name, base: root.Line, lines: d.lines, unknown: d.unknown}, d.problems
}

// decoder walks the yaml.Node tree of one file, collecting problems instead of stopping.
type decoder struct {
	file     string
	lines    map[string]int  // field path -> line of its value
	given    map[string]bool // field paths that held a usable, non-null value
	unknown  []unknownKey
	problems []Problem
}

func (d *decoder) problem(line int, format string, args ...any) {
	d.problems = append(d.problems, Problem{
		Source:  Source{File: d.file, Line: line},
		Message: fmt.Sprintf(format, args...),
	})
}

// document parses data as exactly one YAML document holding a mapping and returns that mapping.
func (d *decoder) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.problem(0, "file is empty: want one agent definition")
		} else {
			d.syntaxProblem(err)
		}
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		d.problem(extra.Line, "more than one YAML document: want one agent definition per file")
	case !errors.Is(err, io.EOF):
		d.syntaxProblem(err)
	}
	if len(doc.Content) == 0 {
		d.problem(doc.Line, "file is empty: want one agent definition")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		d.problem(root.Line, "want a mapping of definition keys (kind, id, description, ...)")
		return nil
	}
	return root
}

func (d *decoder) syntaxProblem(err error) {
	line, msg := SyntaxError(err)
	d.problem(line, "invalid YAML: %s", msg)
}

// rejectAnchors reports anchors and aliases: definitions are short enough to write out, and
// refusing aliases keeps decoding linear in the size of the file.
func (d *decoder) rejectAnchors(n *yaml.Node) {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.problem(n.Line, "YAML anchors and aliases are not supported")
		return
	}
	for _, c := range n.Content {
		d.rejectAnchors(c)
	}
}

// fields calls fn for each key of mapping n, recording each key's line under its path. Keys
// for which fn returns false are reported as unknown, with a suggestion taken from known.
func (d *decoder) fields(n *yaml.Node, prefix string, known []string, fn func(key, path string, v *yaml.Node) bool) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			if k.Kind != yaml.AliasNode && k.Anchor == "" {
				d.problem(k.Line, "keys must be plain strings")
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.problem(k.Line, "duplicate key %q (first at line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		path := childPath(prefix, k.Value)
		// The key's line, not the value's: a block value starts on the next line.
		d.lines[path] = k.Line
		if !fn(k.Value, path, v) {
			best := closestKey(k.Value, known)
			d.problem(k.Line, "unknown key %q%s", k.Value, didYouMean(best))
			d.unknown = append(d.unknown, unknownKey{mapping: prefix, key: k.Value, suggest: best, line: k.Line})
		}
	}
}

var (
	definitionKeys = []string{"kind", "id", "name", "description", "examples", "model", "prompt",
		"timeout", "enabled", "tools", "status_events", "a2a_url", "sub_agents", "fan_out_cap", "rendering"}
	toolKeys      = []string{"name", "enricher", "domain_type", "description", "parameters", "status_event", "examples", "answer"}
	eventKeys     = []string{"text", "policy"}
	renderingKeys = []string{"batch_window", "min_interval"}
)

func (d *decoder) definition(root *yaml.Node, def *Definition) {
	d.fields(root, "", definitionKeys, func(key, path string, v *yaml.Node) bool {
		switch key {
		case "kind":
			if s, ok := d.str(v, path); ok {
				def.Kind = Kind(s)
			}
		case "id":
			def.ID, _ = d.str(v, path)
		case "name":
			def.Name, _ = d.str(v, path)
		case "description":
			def.Description, _ = d.str(v, path)
		case "examples":
			def.Examples = d.strs(v, path)
		case "model":
			def.Model, _ = d.str(v, path)
		case "prompt":
			def.Prompt, _ = d.str(v, path)
		case "timeout":
			def.Timeout, _ = d.duration(v, path)
		case "enabled":
			def.Enabled, _ = d.enabled(v, path)
		case "tools":
			def.Tools = d.tools(v, path)
		case "status_events":
			def.StatusEvents = d.statusEvents(v, path)
		case "a2a_url":
			def.A2AURL, _ = d.str(v, path)
		case "sub_agents":
			def.SubAgents = d.strs(v, path)
		case "fan_out_cap":
			def.FanOutCap, _ = d.integer(v, path)
		case "rendering":
			def.Rendering = d.rendering(v, path)
		default:
			return false
		}
		return true
	})
}

func (d *decoder) tools(v *yaml.Node, path string) []Tool {
	if !d.kind(v, yaml.SequenceNode, path, "a list of tools") {
		return nil
	}
	var tools []Tool
	for _, item := range v.Content {
		if !d.kind(item, yaml.MappingNode, path, "tool entries to be mappings (name, enricher, ...)") {
			continue
		}
		// Paths index the decoded slice, not the YAML sequence, so that validation finds them.
		tp := fmt.Sprintf("%s[%d]", path, len(tools))
		d.lines[tp] = item.Line
		var t Tool
		d.fields(item, tp, toolKeys, func(key, p string, v *yaml.Node) bool {
			switch key {
			case "name":
				t.Name, _ = d.str(v, p)
			case "enricher":
				t.Enricher, _ = d.str(v, p)
			case "domain_type":
				t.DomainType, _ = d.str(v, p)
			case "description":
				t.Description, _ = d.str(v, p)
			case "parameters":
				if d.kind(v, yaml.MappingNode, p, "a JSON Schema mapping") {
					t.Parameters, _ = d.jsonValue(v, p, 0).(map[string]any)
				}
			case "status_event":
				t.StatusEvent, _ = d.str(v, p)
			case "examples":
				t.Examples = d.strs(v, p)
			case "answer":
				t.Answer, _ = d.str(v, p)
				t.AnswerSource = Source{File: d.file, Line: v.Line}
				if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
					t.AnswerSource.Line++ // a block scalar's text starts below its "|"
				}
			default:
				return false
			}
			return true
		})
		tools = append(tools, t)
	}
	return tools
}

func (d *decoder) statusEvents(v *yaml.Node, path string) map[string]StatusEvent {
	if !d.kind(v, yaml.MappingNode, path, "a mapping of event id to {text, policy}") {
		return nil
	}
	events := map[string]StatusEvent{}
	d.fields(v, path, nil, func(id, ep string, v *yaml.Node) bool {
		if !d.kind(v, yaml.MappingNode, ep, "a mapping with text and policy") {
			return true
		}
		var ev StatusEvent
		d.fields(v, ep, eventKeys, func(key, p string, v *yaml.Node) bool {
			switch key {
			case "text":
				ev.Text, _ = d.str(v, p)
			case "policy":
				if s, ok := d.str(v, p); ok {
					ev.Policy = Policy(s)
				}
			default:
				return false
			}
			return true
		})
		if !d.given[ep+".policy"] {
			ev.Policy = PolicyForward
		}
		events[id] = ev
		return true
	})
	return events
}

func (d *decoder) rendering(v *yaml.Node, path string) Rendering {
	var r Rendering
	if !d.kind(v, yaml.MappingNode, path, "a mapping with batch_window and min_interval") {
		return r
	}
	d.fields(v, path, renderingKeys, func(key, p string, v *yaml.Node) bool {
		switch key {
		case "batch_window":
			r.BatchWindow, _ = d.duration(v, p)
		case "min_interval":
			r.MinInterval, _ = d.duration(v, p)
		default:
			return false
		}
		return true
	})
	return r
}
