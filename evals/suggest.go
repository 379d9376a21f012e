package evals

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ToolData fetches what an enricher returns for user, with no parameters: the payload's JSON.
// [Suggest] searches it for the facts a reply missed to tell which tool should have answered.
// An error (an enricher that needs parameters, a remote CCS) just leaves that tool out.
type ToolData func(ctx context.Context, user, enricher string) ([]byte, error)

// Suggestion is a set of candidate examples for one definition: an agent, for turns that did
// not reach it, or one of its tools, for turns whose reply missed what that tool's data says.
type Suggestion struct {
	Agent string
	// Tool is empty when the examples belong to the agent: a routing miss, or an answer miss
	// whose data could not be traced to a single tool.
	Tool     string
	Reason   string // FailRouting or FailAnswer
	Examples []SuggestedExample
}

// SuggestedExample is one user message, with where it came from and what went wrong.
type SuggestedExample struct {
	Text string
	From string // "dataset/case turn N"
	Note string
}

// Suggest turns the report's misrouted and unanswered turns into candidate examples.
//
// A turn that did not reach an expected sub-agent is an example for that agent. A turn whose
// reply missed a reply_mentions phrase is an example for the expected agent's tool whose data
// (fetched with data, when given) holds most of the missing phrases; when no single tool does,
// for the agent. Turns that expected no sub-agent suggest nothing: examples only attract turns.
// The same message is suggested once per agent or tool.
func Suggest(ctx context.Context, rep *Report, agents []AgentInfo, data ToolData) []Suggestion {
	byID := map[string]AgentInfo{}
	for _, a := range agents {
		byID[a.ID] = a
	}
	type key struct{ agent, tool, reason string }
	var (
		order []key
		found = map[key]*Suggestion{}
		cache = map[[2]string][]byte{} // (user, enricher) -> folded payload, nil when unavailable
	)
	add := func(k key, ex SuggestedExample) {
		s, ok := found[k]
		if !ok {
			s = &Suggestion{Agent: k.agent, Tool: k.tool, Reason: k.reason}
			found[k] = s
			order = append(order, k)
		}
		if !slices.ContainsFunc(s.Examples, func(e SuggestedExample) bool { return e.Text == ex.Text }) {
			s.Examples = append(s.Examples, ex)
		}
	}
	payload := func(user, enricher string) string {
		k := [2]string{user, enricher}
		if b, ok := cache[k]; ok {
			return string(b)
		}
		var folded []byte
		if data != nil {
			if b, err := data(ctx, user, enricher); err == nil {
				folded = []byte(" " + foldText(string(b)) + " ")
			}
		}
		cache[k] = folded
		return string(folded)
	}
	for _, c := range rep.Cases {
		for _, t := range c.Turns {
			if t.Error != "" {
				continue // the target failed: nothing says what the definitions lack
			}
			from := fmt.Sprintf("%s/%s turn %d", c.Dataset, c.ID, t.Index)
			if !t.RoutingCorrect {
				for _, id := range minus(t.Expected, t.Invoked) {
					if _, ok := byID[id]; ok {
						add(key{id, "", FailRouting}, SuggestedExample{Text: t.Message, From: from, Note: "reached " + setString(t.Invoked)})
					}
				}
			}
			if t.AnswerCorrect == nil || *t.AnswerCorrect {
				continue
			}
			note := answerMessage(t.ReplyMissing, t.ReplyPresent)
			for _, id := range t.Expected {
				a, ok := byID[id]
				if !ok {
					continue
				}
				tool := ""
				if len(t.ReplyMissing) > 0 {
					tool = toolHolding(a, t.ReplyMissing, func(enricher string) string { return payload(c.User, enricher) })
				}
				add(key{id, tool, FailAnswer}, SuggestedExample{Text: t.Message, From: from, Note: note + calledOther(t, id, tool)})
			}
		}
	}
	out := make([]Suggestion, 0, len(order))
	for _, k := range order {
		out = append(out, *found[k])
	}
	return out
}

// calledOther says which tools agent id called in turn t when they do not include tool, the
// one whose data holds what the reply missed: the answer came from the wrong data.
func calledOther(t TurnReport, id, tool string) string {
	if tool == "" {
		return ""
	}
	for _, a := range t.Agents {
		if a.Agent == id && len(a.Tools) > 0 && !slices.Contains(a.Tools, tool) {
			return "; it called " + strings.Join(a.Tools, ", ")
		}
	}
	return ""
}

// toolHolding names the tool of a whose data contains the most of phrases, or "" when no tool
// holds any of them or two hold as many.
func toolHolding(a AgentInfo, phrases []string, payload func(enricher string) string) string {
	best, bestN, tie := "", 0, false
	for i, enricher := range a.Enrichers {
		if i >= len(a.ToolNames) {
			break
		}
		text := payload(enricher)
		if text == "" {
			continue
		}
		n := 0
		for _, p := range phrases {
			if slices.ContainsFunc(alternatives(p), func(alt string) bool { return holdsNumberSafe(text, alt) }) {
				n++
			}
		}
		switch {
		case n > bestN:
			best, bestN, tie = a.ToolNames[i], n, false
		case n == bestN && n > 0:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// holdsNumberSafe reports whether text contains alt where a number in alt is not part of a
// longer one: data is full of numbers, and "1200" must not be found in a price of 12000. A
// decimal may go on ("0.6" is in "0.60").
func holdsNumberSafe(text, alt string) bool {
	if strings.TrimSpace(alt) == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], alt)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(alt)
		before := start > 0 && isDigit(text[start-1]) && isDigit(alt[0])
		after := end < len(text) && isDigit(text[end]) && isDigit(alt[len(alt)-1]) && !strings.Contains(alt, ".")
		if !before && !after {
			return true
		}
		from = start + 1
	}
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// suggestionsHeader opens the file --suggest writes.
const suggestionsHeader = `Candidate examples from switchboard eval: the users' own words from turns that did not reach
the agent that should have taken them (why: routing), or whose reply missed what that agent's
data says (why: answer; under the tool whose data holds the missing facts when it can be told).
Read each before adding it to the definition's examples: a follow-up such as "when is it due?"
is only an example in its conversation.`

// WriteSuggestions writes suggestions as one YAML document (see [Suggest]); an empty list
// writes "suggestions: []" under the same header.
func WriteSuggestions(w io.Writer, suggestions []Suggestion) error {
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range suggestions {
		entry := &yaml.Node{Kind: yaml.MappingNode}
		pair := func(k, v string) {
			entry.Content = append(entry.Content, scalar(k), scalar(v))
		}
		pair("agent", s.Agent)
		if s.Tool != "" {
			pair("tool", s.Tool)
		}
		pair("why", s.Reason)
		examples := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range s.Examples {
			n := scalar(e.Text)
			n.Style = yaml.DoubleQuotedStyle
			n.LineComment = oneLine(e.From + ": " + e.Note)
			examples.Content = append(examples.Content, n)
		}
		entry.Content = append(entry.Content, scalar("examples"), examples)
		list.Content = append(list.Content, entry)
	}
	if len(list.Content) == 0 {
		list.Style = yaml.FlowStyle
	}
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: suggestionsHeader,
		Content: []*yaml.Node{scalar("suggestions"), list}}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("evals: write suggestions: %w", err)
	}
	return enc.Close()
}

// WriteSuggestionsFile writes suggestions to path, creating its folder.
func WriteSuggestionsFile(path string, suggestions []Suggestion) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("evals: write suggestions: %w", err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("evals: write suggestions: %w", err)
	}
	if err := WriteSuggestions(f, suggestions); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("evals: write suggestions: %w", err)
	}
	return nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

// oneLine keeps a comment on its line: a line break inside it would end the comment and leave
// the rest as YAML.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
