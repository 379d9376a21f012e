package evals

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a dataset, located in its file.
type Problem struct {
	File    string
	Line    int // 0 when unknown
	Message string
}

// String renders the problem as "file:line: message" (or "file: message" without a line).
func (p Problem) String() string {
	if p.Line <= 0 {
		return p.File + ": " + p.Message
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Message
}

// LoadError lists every problem found in a set of datasets, sorted by file and line. It
// matches [ErrInvalidDataset].
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

// Is reports whether target is [ErrInvalidDataset].
func (e *LoadError) Is(target error) bool { return target == ErrInvalidDataset }

func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
}
