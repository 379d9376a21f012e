package definitions

import (
	"fmt"
	"regexp"
	"strings"
)

// placeholderName is what may appear between braces in a transform template.
var placeholderName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,63}$`)

// Placeholders returns the names of the {name} placeholders in a status-event text, in order of
// first appearance and without repeats. Names match ^[a-z_][a-z0-9_]*$; braces have no escape,
// so a lone "{" or "}", an empty "{}" or a bad name is an error. A text without braces has no
// placeholders and no error.
//
// This is the template syntax of [PolicyTransform]: a renderer replaces each placeholder with
// the parameter of the same name.
func Placeholders(text string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	rest := text
	for {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			return names, nil
		}
		if rest[open] == '}' {
			return nil, fmt.Errorf("unmatched %q", "}")
		}
		end := strings.IndexAny(rest[open+1:], "{}")
		if end < 0 || rest[open+1+end] == '{' {
			return nil, fmt.Errorf("unclosed %q", "{")
		}
		name := rest[open+1 : open+1+end]
		if !placeholderName.MatchString(name) {
			return nil, fmt.Errorf("bad placeholder %q: want {name} with lowercase letters, digits and _", "{"+name+"}")
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		rest = rest[open+1+end+1:]
	}
}
