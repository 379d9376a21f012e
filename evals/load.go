package evals

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/definitions"
	"gopkg.in/yaml.v3"
)

var (
	caseIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$`)
	userPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`)
)

// maxMessage bounds a turn's text, as the HTTP API does.
const maxMessage = 4000

// LoadDatasets reads the dataset files at paths. agents are the registered sub-agent ids:
// every id a dataset names (expect, acknowledge_failure, faults) must be one of them. When any
// file is wrong it returns a [*LoadError] listing every problem of every file with file:line;
// it matches [ErrInvalidDataset]. A file that cannot be read is an ordinary wrapped error.
func LoadDatasets(paths []string, agents []string) ([]*Dataset, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no dataset files given", ErrConfig)
	}
	var (
		out      []*Dataset
		problems []Problem
		names    = map[string]string{} // dataset name -> file
	)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("evals: read dataset: %w", err)
		}
		ds, more := parse(path, data, agents)
		problems = append(problems, more...)
		if ds == nil || ds.Name == "" {
			continue
		}
		if first, dup := names[ds.Name]; dup {
			problems = append(problems, Problem{File: path, Line: 1, Message: fmt.Sprintf("dataset name %q is also used by %s", ds.Name, first)})
			continue
		}
		names[ds.Name] = path
		out = append(out, ds)
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, &LoadError{Problems: problems}
	}
	return out, nil
}

// ParseDataset reads one dataset from data; file names it in problems. See [LoadDatasets].
func ParseDataset(file string, data []byte, agents []string) (*Dataset, error) {
	ds, problems := parse(file, data, agents)
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, &LoadError{Problems: problems}
	}
	return ds, nil
}

// parser walks the YAML node tree rather than decoding into structs: yaml.v3 offers no strict
// mode for Node.Decode, and walking lets every problem carry its own line and all of them be
// reported at once.
type parser struct {
	file     string
	agents   []string
	problems []Problem
}

func (p *parser) addf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Message: fmt.Sprintf(format, args...)})
}

func parse(file string, data []byte, agents []string) (*Dataset, []Problem) {
	p := &parser{file: file, agents: agents}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.addf(nil, "empty dataset: want a mapping with name and cases")
		} else {
			p.problems = append(p.problems, yamlProblem(file, err))
		}
		return nil, p.problems
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.addf(&extra, "a dataset file holds one YAML document")
	} else if !errors.Is(err, io.EOF) {
		p.problems = append(p.problems, yamlProblem(file, err))
	}
	// The dataset comes back with its problems, so that LoadDatasets can still compare its
	// name with the other files'.
	return p.dataset(&doc), p.problems
}

// yamlProblem turns a yaml.v3 syntax error ("yaml: line 3: ...") into a located problem, its
// line read as the definitions' are (yaml.v3 counts some errors' lines from 0, and leaves the
// first line out).
func yamlProblem(file string, err error) Problem {
	line, msg := definitions.SyntaxError(err)
	return Problem{File: file, Line: line, Message: "invalid YAML: " + msg}
}

func (p *parser) dataset(doc *yaml.Node) *Dataset {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	ds := &Dataset{File: p.file}
	var nameNode, casesNode *yaml.Node
	p.fields(root, "dataset", map[string]**yaml.Node{"name": &nameNode, "cases": &casesNode})
	if root.Kind != yaml.MappingNode {
		return nil
	}
	switch {
	case nameNode == nil:
		p.addf(root, "missing name")
	default:
		ds.Name = p.str(nameNode, "name")
		if ds.Name != "" && !caseIDPattern.MatchString(ds.Name) {
			p.addf(nameNode, "name %q: use letters, digits, '-', '_' or '.' (at most 80)", ds.Name)
		}
	}
	if casesNode == nil {
		p.addf(root, "missing cases")
		return ds
	}
	if !p.kind(casesNode, yaml.SequenceNode, "cases", "a list") {
		return ds
	}
	if len(casesNode.Content) == 0 {
		p.addf(casesNode, "cases is empty")
	}
	seen := map[string]int{}
	for i, cn := range casesNode.Content {
		c, ok := p.evalCase(cn, i)
		// Ids are compared whatever else is wrong with either case, so that a duplicate is
		// reported with the other problems rather than after they are fixed.
		if c.ID != "" {
			if line, dup := seen[c.ID]; dup {
				p.addf(cn, "duplicate case id %q: also at line %d", c.ID, line)
				ok = false
			} else {
				seen[c.ID] = c.Line
			}
		}
		if ok {
			ds.Cases = append(ds.Cases, c)
		}
	}
	return ds
}

func (p *parser) evalCase(n *yaml.Node, i int) (Case, bool) {
	c := Case{Line: n.Line, User: DefaultUser}
	var idNode, userNode, faultsNode, turnsNode *yaml.Node
	before := len(p.problems)
	p.fields(n, fmt.Sprintf("cases[%d]", i), map[string]**yaml.Node{"id": &idNode, "user": &userNode, "faults": &faultsNode, "turns": &turnsNode})
	if n.Kind != yaml.MappingNode {
		return c, false
	}
	if idNode == nil {
		p.addf(n, "cases[%d]: missing id", i)
	} else {
		c.ID = p.str(idNode, "id")
		if c.ID != "" && !caseIDPattern.MatchString(c.ID) {
			p.addf(idNode, "case id %q: use letters, digits, '-', '_' or '.' (at most 80)", c.ID)
		}
	}
	where := "case " + c.ID
	if c.ID == "" {
		where = fmt.Sprintf("cases[%d]", i)
	}
	if userNode != nil {
		c.User = p.str(userNode, where+": user")
		if c.User != "" && !userPattern.MatchString(c.User) {
			p.addf(userNode, "%s: user %q is not a plain user name", where, c.User)
		}
	}
	if faultsNode != nil && p.kind(faultsNode, yaml.MappingNode, where+": faults", "a mapping of sub-agent id to fault") {
		c.Faults = map[string]FaultKind{}
		for k := 0; k+1 < len(faultsNode.Content); k += 2 {
			key, val := faultsNode.Content[k], faultsNode.Content[k+1]
			agent := p.str(key, where+": faults key")
			p.knownAgent(key, where+": faults", agent)
			kind := FaultKind(p.str(val, where+": faults."+agent))
			if kind != "" && !kind.valid() {
				p.addf(val, "%s: fault %q for %s: want one of %s", where, kind, agent, joinKinds())
			}
			if _, dup := c.Faults[agent]; dup {
				p.addf(key, "%s: duplicate fault for %s", where, agent)
			}
			c.Faults[agent] = kind
		}
	}
	switch {
	case turnsNode == nil:
		p.addf(n, "%s: missing turns", where)
	case p.kind(turnsNode, yaml.SequenceNode, where+": turns", "a list"):
		if len(turnsNode.Content) == 0 {
			p.addf(turnsNode, "%s: turns is empty", where)
		}
		for j, tn := range turnsNode.Content {
			c.Turns = append(c.Turns, p.turn(tn, fmt.Sprintf("%s: turn %d", where, j+1), c.Faults))
		}
	}
	return c, len(p.problems) == before
}

func (p *parser) turn(n *yaml.Node, where string, faults map[string]FaultKind) Turn {
	t := Turn{Line: n.Line}
	var userNode, expectNode, ackNode, mentionsNode, excludesNode *yaml.Node
	p.fields(n, where, map[string]**yaml.Node{
		"user": &userNode, "expect": &expectNode, "acknowledge_failure": &ackNode,
		"reply_mentions": &mentionsNode, "reply_excludes": &excludesNode,
	})
	if n.Kind != yaml.MappingNode {
		return t
	}
	if userNode == nil {
		p.addf(n, "%s: missing user (the message the user sends)", where)
	} else {
		t.Message = strings.TrimSpace(p.str(userNode, where+": user"))
		switch {
		case t.Message == "":
			p.addf(userNode, "%s: user message is empty", where)
		case len([]rune(t.Message)) > maxMessage:
			p.addf(userNode, "%s: user message is longer than %d characters", where, maxMessage)
		}
	}
	if expectNode == nil {
		// An absent expect would silently mean "the orchestrator answers itself"; make the
		// author say so with expect: [].
		p.addf(n, "%s: missing expect (write expect: [] when the orchestrator should answer by itself)", where)
	} else {
		t.Expect = p.agentList(expectNode, where+": expect")
	}
	if ackNode != nil {
		t.AcknowledgeFailure = p.agentList(ackNode, where+": acknowledge_failure")
		for _, item := range ackNode.Content {
			id := item.Value
			if _, ok := faults[id]; !ok && slices.Contains(t.AcknowledgeFailure, id) && slices.Contains(p.agents, id) {
				p.addf(item, "%s: acknowledge_failure names %s, but the case injects no fault for it", where, id)
			}
		}
	}
	if mentionsNode != nil {
		t.ReplyMentions = p.phrases(mentionsNode, where+": reply_mentions")
	}
	if excludesNode != nil {
		t.ReplyExcludes = p.phrases(excludesNode, where+": reply_excludes")
	}
	return t
}

// Bounds on reply assertions: they are hand-written phrases, and the checker compares each
// with every reply.
const (
	maxPhrases      = 50
	maxPhraseLength = 300
)

// phrases reads a non-empty list of reply phrases. Each alternative of an "a|b" entry must
// have text of its own: an empty alternative would match every reply.
func (p *parser) phrases(n *yaml.Node, where string) []string {
	if !p.kind(n, yaml.SequenceNode, where, "a list of phrases") {
		return nil
	}
	switch {
	case len(n.Content) == 0:
		p.addf(n, "%s: empty list (leave the key out to assert nothing)", where)
		return nil
	case len(n.Content) > maxPhrases:
		p.addf(n, "%s: more than %d phrases", where, maxPhrases)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		before := len(p.problems)
		s := p.str(item, where)
		switch {
		case len(p.problems) > before: // not a string, and said so
		case strings.TrimSpace(s) == "":
			p.addf(item, "%s: empty phrase", where)
		case len([]rune(s)) > maxPhraseLength:
			p.addf(item, "%s: phrase longer than %d characters", where, maxPhraseLength)
		case slices.ContainsFunc(alternatives(s), func(a string) bool { return strings.TrimSpace(a) == "" }):
			p.addf(item, "%s: phrase %q has an empty alternative around '|'", where, s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// agentList reads a sequence of distinct, registered sub-agent ids. It never returns nil, so
// that an empty expect reads as "no sub-agent".
func (p *parser) agentList(n *yaml.Node, where string) []string {
	out := []string{}
	if !p.kind(n, yaml.SequenceNode, where, "a list of sub-agent ids") {
		return out
	}
	for _, item := range n.Content {
		id := p.str(item, where)
		if id == "" {
			continue
		}
		p.knownAgent(item, where, id)
		if slices.Contains(out, id) {
			p.addf(item, "%s: %s is listed twice", where, id)
			continue
		}
		out = append(out, id)
	}
	return out
}

func (p *parser) knownAgent(n *yaml.Node, where, id string) {
	if id != "" && !slices.Contains(p.agents, id) {
		p.addf(n, "%s: unknown sub-agent %q (registered: %s)", where, id, strings.Join(p.agents, ", "))
	}
}

// fields reads a mapping's known keys into out and reports unknown, duplicate and
// non-string keys.
func (p *parser) fields(n *yaml.Node, where string, out map[string]**yaml.Node) {
	if !p.kind(n, yaml.MappingNode, where, "a mapping") {
		return
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		name := p.str(key, where+" key")
		dst, ok := out[name]
		switch {
		case name == "":
		case !ok:
			p.addf(key, "%s: unknown key %q (known: %s)", where, name, knownKeys(out))
		case *dst != nil:
			p.addf(key, "%s: duplicate key %q", where, name)
		default:
			*dst = val
		}
	}
}

// kind reports whether n is of the wanted kind, reporting a problem otherwise. Aliases are
// refused: datasets are small, and expanding them is a way to blow up memory.
func (p *parser) kind(n *yaml.Node, want yaml.Kind, where, what string) bool {
	switch {
	case n.Kind == yaml.AliasNode || n.Anchor != "":
		p.addf(n, "%s: YAML anchors and aliases are not supported", where)
		return false
	case n.Kind != want:
		p.addf(n, "%s: want %s", where, what)
		return false
	}
	return true
}

// str reads a plain scalar string. Numbers and booleans are accepted as their text; null,
// mappings and lists are problems.
func (p *parser) str(n *yaml.Node, where string) string {
	if !p.kind(n, yaml.ScalarNode, where, "a string") {
		return ""
	}
	if n.Tag == "!!null" {
		p.addf(n, "%s: want a string, got null", where)
		return ""
	}
	return n.Value
}

func knownKeys(m map[string]**yaml.Node) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

func joinKinds() string {
	s := make([]string, len(FaultKinds))
	for i, k := range FaultKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
