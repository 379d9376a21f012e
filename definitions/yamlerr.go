package definitions

import (
	"regexp"
	"strconv"
	"strings"
)

// The helpers below tell a person what is wrong with a YAML file; the config file's reader uses
// them too, so both kinds of file explain themselves the same way.

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// SyntaxError splits a yaml.v3 syntax error into its 1-based line (0 when it cannot be known)
// and its message without the "yaml: line N:" prefix.
func SyntaxError(err error) (line int, msg string) {
	msg = err.Error()
	m := yamlErrLine.FindStringSubmatch(msg)
	if m == nil {
		msg = strings.TrimPrefix(msg, "yaml: ")
		// yaml.v3 leaves "line N:" out when N would be the first line, and for the few errors
		// that keep no position at all.
		if isUnplaced(msg) {
			return 0, msg
		}
		return 1, msg
	}
	line, _ = strconv.Atoi(m[1])
	msg = m[2]
	// yaml.v3 numbers parser errors (as opposed to scanner errors) from 0.
	if line > 0 && isParserError(msg) {
		line++
	}
	return line, msg
}

// isUnplaced reports whether msg is one of the yaml.v3 errors that keep no position: the
// reader's (input that does not decode as text) and those about anchors and aliases.
func isUnplaced(msg string) bool {
	for _, prefix := range []string{"invalid leading UTF-8", "incomplete UTF-8", "invalid trailing UTF-8",
		"invalid length of a UTF-8", "invalid Unicode character", "incomplete UTF-16", "unexpected low surrogate",
		"expected low surrogate", "control characters are not allowed", "input error:",
		"unknown anchor", "anchor '", "document contains excessive aliasing"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

func isParserError(msg string) bool {
	for _, prefix := range []string{"did not find expected", "found duplicate", "found incompatible", "found undefined tag"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// SuggestKey proposes the closest of known for a misspelt key, as ` (did you mean "x"?)`, or
// "" when none is close.
func SuggestKey(key string, known []string) string {
	return didYouMean(closestKey(key, known))
}

// didYouMean is the suggestion of key best, or "" for no key.
func didYouMean(best string) string {
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// closestKey is the key of known that key is most likely a misspelling of, or "".
func closestKey(key string, known []string) string {
	// Allow one edit per three characters, at most two, so short keys get no wild guesses.
	best, bestDist := "", min(2, max(1, len(key)/3))+1
	for _, k := range known {
		if dist := editDistance(key, k); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between two short ASCII keys: the
// Levenshtein distance with a swap of two neighbours counted as one edit ("dns" for "dsn").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
