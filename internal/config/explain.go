package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/definitions"
)

// FileError lists what is wrong with a config file, one "file:line: message" per problem, in
// the words agent definition files use.
type FileError struct {
	Problems []string
}

func (e *FileError) Error() string { return "config " + strings.Join(e.Problems, "\n  ") }

// unknownKeys walks a parsed config against the type it decodes into and reports each key that
// type has no field for, with the closest known key. yaml.v3's own report names a Go type
// ("field dns not found in type config.Store"), which a person editing YAML cannot act on.
func unknownKeys(n *yaml.Node, t reflect.Type, path string, report func(line int, msg string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			unknownKeys(c, t, path, report)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	switch t.Kind() {
	case reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			unknownKeys(n.Content[i+1], t.Elem(), path+n.Content[i].Value+".", report)
		}
	case reflect.Struct:
		fields := map[string]reflect.Type{}
		var known []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			fields[name] = f.Type
			known = append(known, name)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				where := ""
				if path != "" {
					where = " in " + strings.TrimSuffix(path, ".")
				}
				report(k.Line, fmt.Sprintf("unknown key %q%s%s", k.Value, where, definitions.SuggestKey(k.Value, known)))
				continue
			}
			unknownKeys(v, ft, path+k.Value+".", report)
		}
	}
}

var cannotUnmarshal = regexp.MustCompile("^line (\\d+): cannot unmarshal \\S+ `(.*)` into (\\S+)$")

// typeProblem rewords one of yaml.v3's type errors ("line 4: cannot unmarshal !!str `fast`
// into time.Duration") as "file:4: "fast" is not a duration (like 5s or 250ms)".
func typeProblem(file, e string) string {
	m := cannotUnmarshal.FindStringSubmatch(e)
	if m == nil {
		line, rest, ok := strings.Cut(strings.TrimPrefix(e, "line "), ": ")
		if _, err := strconv.Atoi(line); ok && err == nil {
			return file + ":" + line + ": " + rest
		}
		return file + ": " + e
	}
	return fmt.Sprintf("%s:%s: %q is not %s", file, m[1], m[2], wantOf(m[3]))
}

// wantOf describes a Go type as the YAML value it wants.
func wantOf(goType string) string {
	switch {
	case goType == reflect.TypeFor[time.Duration]().String():
		return "a duration (like 5s or 250ms)"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a single value (text)"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "config."), strings.HasPrefix(goType, "llm."):
		return "a mapping of keys"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "what this key takes"
}
