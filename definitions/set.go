package definitions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Set is a validated, bound collection of definitions: ids are unique, every sub_agents entry
// names a definition of the set, and orchestrators do not reach themselves. A Set never
// changes after it is built and is safe for concurrent use; the definitions it returns are
// shared and must not be modified.
type Set struct {
	byID map[string]*Definition
	all  []*Definition // sorted by id
}

// NewSet validates and binds definitions built in Go, as [Load] does for files. It does not
// fill defaults: zero values are judged as written (a zero Timeout is a problem, a zero
// Enabled means disabled). Problems point at each definition's Source. The set keeps the
// pointers it is given.
func NewSet(defs ...*Definition) (*Set, error) {
	entries := make([]entry, len(defs))
	var problems, missing []Problem
	for i, def := range defs {
		lay := layoutOf(def)
		entries[i] = entry{def: def, lay: lay}
		more, miss := validate(def, lay)
		problems = append(problems, more...)
		missing = append(missing, miss...)
	}
	set, more := bind(entries)
	return finish(set, append(problems, more...), missing, nil)
}

// Get returns the definition with the given id.
func (s *Set) Get(id string) (*Definition, bool) {
	d, ok := s.byID[id]
	return d, ok
}

// All returns every definition, sorted by id. The slice is the caller's.
func (s *Set) All() []*Definition { return slices.Clone(s.all) }

// Orchestrators returns the orchestrator definitions, sorted by id.
func (s *Set) Orchestrators() []*Definition {
	var out []*Definition
	for _, d := range s.all {
		if d.Kind == KindOrchestrator {
			out = append(out, d)
		}
	}
	return out
}

// SubAgents returns the definitions orch lists in sub_agents, in that order. It returns nil
// for nil, a sub_agent, or an orchestrator that is not part of this set.
func (s *Set) SubAgents(orch *Definition) []*Definition {
	if orch == nil || orch.Kind != KindOrchestrator || s.byID[orch.ID] != orch {
		return nil
	}
	out := make([]*Definition, 0, len(orch.SubAgents))
	for _, id := range orch.SubAgents {
		out = append(out, s.byID[id])
	}
	return out
}

// entry is a decoded definition with the layout its problems are located through.
type entry struct {
	def *Definition
	lay *layout
}

// bind runs the checks that need every definition: unique ids, known sub_agents, no cycles.
func bind(entries []entry) (*Set, []Problem) {
	var problems []Problem
	add := func(src Source, format string, args ...any) {
		problems = append(problems, Problem{Source: src, Message: fmt.Sprintf(format, args...)})
	}
	byID := map[string]entry{}
	for _, e := range entries {
		id := e.def.ID
		if id == "" {
			continue // already reported as missing
		}
		if first, dup := byID[id]; dup {
			add(e.lay.at("id"), "duplicate id %q: also defined at %s", id, first.lay.at("id"))
			continue
		}
		byID[id] = e
	}
	for _, e := range entries {
		if e.def.Kind != KindOrchestrator || byID[e.def.ID].def != e.def {
			continue
		}
		for i, id := range e.def.SubAgents {
			if _, ok := byID[id]; !ok {
				add(e.lay.at(fmt.Sprintf("sub_agents[%d]", i)), "unknown sub-agent %q in sub_agents (%s)", id, knownIDs(byID, e.def.ID))
			}
		}
	}
	problems = append(problems, cycles(byID)...)

	set := &Set{byID: map[string]*Definition{}}
	for id, e := range byID {
		set.byID[id] = e.def
		set.all = append(set.all, e.def)
	}
	slices.SortFunc(set.all, func(a, b *Definition) int { return cmp.Compare(a.ID, b.ID) })
	return set, problems
}

// knownIDs lists the ids an orchestrator's sub_agents may name: every other definition's.
func knownIDs(byID map[string]entry, self string) string {
	ids := make([]string, 0, len(byID))
	for id := range byID {
		if id != self {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "no other definition has an id"
	}
	slices.Sort(ids)
	return "known ids: " + strings.Join(ids, ", ")
}

// cycles reports each loop of orchestrators reaching themselves through sub_agents once, at the
// sub_agents entry that closes it.
func cycles(byID map[string]entry) []Problem {
	const (
		unvisited = iota
		inProgress
		done
	)
	state := map[string]int{}
	reported := map[string]bool{}
	var stack []string
	var problems []Problem

	var visit func(id string)
	visit = func(id string) {
		state[id] = inProgress
		stack = append(stack, id)
		e := byID[id]
		for i, next := range e.def.SubAgents {
			ne, ok := byID[next]
			if !ok || ne.def.Kind != KindOrchestrator {
				continue
			}
			switch state[next] {
			case unvisited:
				visit(next)
			case inProgress:
				loop := append(slices.Clone(stack[slices.Index(stack, next):]), next)
				if key := loopKey(loop); !reported[key] {
					reported[key] = true
					problems = append(problems, Problem{
						Source:  e.lay.at(fmt.Sprintf("sub_agents[%d]", i)),
						Message: "sub_agents cycle: " + strings.Join(loop, " -> "),
					})
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
	}

	ids := make([]string, 0, len(byID))
	for id, e := range byID {
		if e.def.Kind == KindOrchestrator {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if state[id] == unvisited {
			visit(id)
		}
	}
	return problems
}

// loopKey names a loop independently of where it was entered: a -> b -> a and b -> a -> b
// are one loop.
func loopKey(loop []string) string {
	members := slices.Clone(loop[:len(loop)-1])
	start := slices.Index(members, slices.Min(members))
	return strings.Join(append(members[start:], members[:start]...), ">")
}

// finish sorts problems and turns them into a [*LoadError]. missing are the required keys left
// out of files with unknown keys (see [causesFirst]); knock-ons (problems that follow from a
// file that could not be read) come last.
func finish(set *Set, problems, missing, knockOns []Problem) (*Set, error) {
	if len(problems)+len(missing)+len(knockOns) > 0 {
		sortProblems(knockOns)
		return nil, &LoadError{Problems: append(causesFirst(problems, missing), knockOns...)}
	}
	return set, nil
}

// causesFirst orders problems by file and line, and puts each file's missing required keys
// after that file's other problems: a file with unknown keys often has the required key, only
// misspelt, and "line 1: description is required" before "line 4: unknown key "descripton""
// would send its author looking for the wrong fix.
func causesFirst(problems, missing []Problem) []Problem {
	type ranked struct {
		p       Problem
		missing bool
	}
	all := make([]ranked, 0, len(problems)+len(missing))
	for _, p := range problems {
		all = append(all, ranked{p: p})
	}
	for _, p := range missing {
		all = append(all, ranked{p: p, missing: true})
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.p.Source.File, b.p.Source.File), compareBool(a.missing, b.missing),
			cmp.Compare(a.p.Source.Line, b.p.Source.Line))
	})
	out := make([]Problem, len(all))
	for i, r := range all {
		out[i] = r.p
	}
	return out
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	default:
		return 1
	}
}

// sortProblems orders problems by file and line, keeping discovery order within a line.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Source.File, b.Source.File), cmp.Compare(a.Source.Line, b.Source.Line))
	})
}
