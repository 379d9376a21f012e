package definitions

import (
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// maxJSONDepth bounds the nesting of a tool's parameters schema; real schemas stay far below it.
const maxJSONDepth = 32

// present reports whether v holds a value: null means "not set" and anchors or aliases were
// already reported by rejectAnchors.
func present(v *yaml.Node) bool {
	if v.Kind == yaml.AliasNode || v.Anchor != "" {
		return false
	}
	return v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null"
}

// kind checks that a set value has the wanted node kind, reporting it otherwise.
func (d *decoder) kind(v *yaml.Node, k yaml.Kind, path, want string) bool {
	if !present(v) {
		return false
	}
	if v.Kind != k {
		d.problem(v.Line, "%s: want %s", path, want)
		return false
	}
	return true
}

func (d *decoder) str(v *yaml.Node, path string) (string, bool) {
	if !d.kind(v, yaml.ScalarNode, path, "a string") {
		return "", false
	}
	if v.ShortTag() != "!!str" {
		d.problem(v.Line, "%s: want a string, got %s (quote it)", path, strings.TrimPrefix(v.ShortTag(), "!!"))
		return "", false
	}
	d.given[path] = true
	return v.Value, true
}

func (d *decoder) strs(v *yaml.Node, path string) []string {
	if !d.kind(v, yaml.SequenceNode, path, "a list of strings") {
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, item := range v.Content {
		if !present(item) || item.Kind != yaml.ScalarNode || item.ShortTag() != "!!str" {
			if item.Kind != yaml.AliasNode && item.Anchor == "" {
				d.problem(item.Line, "%s: want a list of strings", path)
			}
			continue
		}
		// Entries index the decoded slice so that validation can point at them.
		d.lines[path+"["+strconv.Itoa(len(out))+"]"] = item.Line
		out = append(out, item.Value)
	}
	d.given[path] = true
	return out
}

func (d *decoder) duration(v *yaml.Node, path string) (time.Duration, bool) {
	if !d.kind(v, yaml.ScalarNode, path, "a duration such as 8s or 250ms") {
		return 0, false
	}
	dur, err := time.ParseDuration(v.Value)
	if err != nil {
		d.problem(v.Line, "%s: bad duration %q: want a Go duration such as 8s or 250ms", path, v.Value)
		return 0, false
	}
	d.given[path] = true
	return dur, true
}

func (d *decoder) integer(v *yaml.Node, path string) (int, bool) {
	if !d.kind(v, yaml.ScalarNode, path, "an integer") {
		return 0, false
	}
	var n int
	if v.ShortTag() != "!!int" || v.Decode(&n) != nil {
		d.problem(v.Line, "%s: want an integer, got %q", path, v.Value)
		return 0, false
	}
	d.given[path] = true
	return n, true
}

func (d *decoder) enabled(v *yaml.Node, path string) (Enabled, bool) {
	if !d.kind(v, yaml.ScalarNode, path, "true, false or a feature flag name") {
		return Enabled{}, false
	}
	switch v.ShortTag() {
	case "!!bool":
		var b bool
		if v.Decode(&b) == nil {
			d.given[path] = true
			return Enabled{Value: b}, true
		}
	case "!!str":
		if v.Value != "" {
			d.given[path] = true
			return Enabled{Flag: v.Value}, true
		}
	}
	d.problem(v.Line, "%s: want true, false or a feature flag name, got %q", path, v.Value)
	return Enabled{}, false
}

// jsonValue converts a YAML subtree into the values encoding/json produces: map[string]any,
// []any, string, float64 or int, bool and nil.
func (d *decoder) jsonValue(v *yaml.Node, path string, depth int) any {
	if v.Kind == yaml.AliasNode || v.Anchor != "" {
		return nil
	}
	if depth > maxJSONDepth {
		d.problem(v.Line, "%s: nested more than %d levels deep", path, maxJSONDepth)
		return nil
	}
	d.given[path] = true
	switch v.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		d.fields(v, path, nil, func(key, p string, c *yaml.Node) bool {
			m[key] = d.jsonValue(c, p, depth+1)
			return true
		})
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(v.Content))
		for i, c := range v.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			d.lines[p] = c.Line
			s = append(s, d.jsonValue(c, p, depth+1))
		}
		return s
	}
	switch v.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if v.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var n int
		if v.Decode(&n) == nil {
			return n
		}
	case "!!float":
		var f float64
		if v.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		d.problem(v.Line, "%s: %q is not a JSON number", path, v.Value)
		return nil
	}
	// Strings, and scalars JSON has no type for (timestamps, binary), stay as written.
	return v.Value
}
