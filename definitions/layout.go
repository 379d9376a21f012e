package definitions

import "strings"

// layout remembers where each decoded field of one definition sits in its file, keyed by a
// path such as "id", "tools[1].enricher" or "status_events.searching_offers.policy". It lets
// validation, which works on the decoded [Definition], point problems at the right line.
type layout struct {
	file  string
	base  int // line of the definition itself, used when no field line is known
	lines map[string]int
	// unknown lists the keys the decoder did not know, which may be required keys misspelt.
	unknown []unknownKey
}

// unknownKey is a key the decoder did not know, in the mapping at path mapping.
type unknownKey struct {
	mapping, key string
	suggest      string // the known key it is closest to, or ""
	line         int
}

// layoutOf is the layout of a definition built in Go rather than read from YAML: every problem
// points at its Source.
func layoutOf(def *Definition) *layout {
	return &layout{file: def.Source.File, base: def.Source.Line}
}

// at locates path, falling back to its closest recorded ancestor and then to the definition.
func (l *layout) at(path string) Source {
	for p := path; p != ""; p = parentPath(p) {
		if line, ok := l.lines[p]; ok {
			return Source{File: l.file, Line: line}
		}
	}
	return Source{File: l.file, Line: l.base}
}

// parentPath strips the last segment of a field path: "tools[1].name" -> "tools[1]" -> "tools".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// childPath joins a field path and a key.
func childPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
