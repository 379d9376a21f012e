package definitions

import (
	"errors"
	"strconv"
	"strings"
)

// ErrInvalid is matched (with [errors.Is]) by every [*LoadError]: the definitions were read but
// at least one of them is wrong.
var ErrInvalid = errors.New("definitions: invalid agent definitions")

// Problem is one thing wrong with a definition, located in its file.
type Problem struct {
	Source  Source
	Message string
}

// String renders the problem as "file:line: message" (or "file: message" without a line).
func (p Problem) String() string {
	return p.Source.String() + ": " + p.Message
}

// String renders the location as "file:line", or just "file" when the line is unknown.
func (s Source) String() string {
	if s.Line <= 0 {
		return s.File
	}
	return s.File + ":" + strconv.Itoa(s.Line)
}

// LoadError lists every problem found while loading a set of definitions, sorted by file and
// line, causes first: in a file with unknown keys, the required keys it lacks come after its
// other problems (the unknown key is often the required one misspelt), and problems that
// follow from a file that could not be read come last. It matches [ErrInvalid].
type LoadError struct {
	Problems []Problem
}

// Error prints one "file:line: message" per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Is reports whether target is [ErrInvalid].
func (e *LoadError) Is(target error) bool { return target == ErrInvalid }
