package offline

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// useTools answers a sub-agent request: call the tool(s) whose name and description best
// match the request, with arguments taken from the request text.
func (m *Model) useTools(req *request, allowCalls bool) ([]llms.ToolCall, string) {
	tools := req.plainTools()
	text := req.lastHuman()
	if !allowCalls {
		return nil, route.DirectAnswer(text, tools)
	}
	sources := make([]route.Source, len(tools))
	for i, t := range tools {
		desc, examples := splitToolExamples(t.Function.Description)
		// Name and description first: newToolVocab takes the tool's vocabulary from them.
		texts := append([]string{lang.Humanise(t.Function.Name), desc}, examples...)
		var minor []string
		for _, p := range answer.ParamsOf(t.Function.Parameters) {
			minor = append(minor, lang.Humanise(p.Name), p.Desc)
		}
		sources[i] = route.Source{Texts: texts, Minor: minor}
	}
	sourcesKey := fingerprint(sources)
	domain := m.vocab(req.system, sourcesKey, sources)
	ix := m.indexOf(sourcesKey, sources)
	// A tool is a search only when it needs a term: any other is chosen by what it does.
	search := answer.SearchTool(tools)
	if search >= 0 && !answer.NeedsArguments(tools[search].Function.Parameters) {
		search = -1
	}
	intents := route.ChooseTools(ix, text, req.settings(m.opts.routing), answer.FitBoost(tools), search)
	if intents == nil {
		return nil, route.DirectAnswer(text, tools)
	}
	var calls []llms.ToolCall
	var unfilled []int
	for _, in := range intents {
		fn := tools[in.Tool].Function
		args := answer.ExtractArgs(fn.Parameters, lang.OwnPart(in.Text), lang.EarlierPart(text), domain)
		if slices.ContainsFunc(answer.ParamsOf(fn.Parameters), func(p answer.Param) bool { _, ok := args[p.Name]; return !ok && requires(fn.Parameters, p.Name) }) {
			unfilled = append(unfilled, in.Tool)
		}
		for name, v := range args {
			// An optional value naming the tool's own thing ("any vouchrs for ...") was cut from
			// the request's wrong words: the tool is asked for unfiltered.
			if s, ok := v.(string); ok && ix.Restates(in.Tool, s) && !requires(fn.Parameters, name) {
				delete(args, name)
			}
		}
		calls = append(calls, newToolCall(req.nCalls+len(calls)+1, fn.Name, args))
	}
	if len(unfilled) == len(calls) && len(unfilled) < len(tools) {
		// The request gives no value a chosen tool needs ("which hotel am i at" names no city
		// to search hotels in): it asks the other tools.
		var rest []llms.Tool
		for i, t := range tools {
			if !slices.Contains(unfilled, i) {
				rest = append(rest, t)
			}
		}
		return m.useTools(&request{system: req.system, humans: req.humans, tools: rest, nCalls: req.nCalls, encode: req.encode}, true)
	}
	return calls, ""
}

// newToolVocab gathers the stems of a sub-agent's prompt and of its tools' names and
// descriptions (tools) and of their parameters (units). A source's first two texts are its
// tool's name and description; the rest are its examples, which say when the tool is right,
// in the users' words, and are not the tool's vocabulary, which arguments leave out ("has my
// order shipped" names no product). So are the values a parameter's description gives as
// examples: "e.g. running shoes or 4k tv" makes no tv a word of the tool's.
func newToolVocab(system string, sources []route.Source) answer.ToolVocab {
	tools := make([]string, len(sources))
	units := make([]string, len(sources))
	for i, src := range sources {
		tools[i] = strings.Join(src.Texts[:min(2, len(src.Texts))], " ")
		var b strings.Builder
		for _, m := range src.Minor {
			b.WriteString(answer.WithoutExampleValues(m))
			b.WriteByte(' ')
		}
		units[i] = b.String()
	}
	return answer.VocabOf(system, tools, units)
}

// toolExamplesHead starts the line a sub-agent runtime adds to a tool's description to list
// what users say when the tool is the right one (the subagents package writes it).
const toolExamplesHead = "Users ask for this tool with requests such as:"

// quoted matches one Go-quoted string.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// splitToolExamples separates a tool description from the examples line it may end with.
// Every sub-agent call reads its tools' descriptions several times over and a regexp finds
// the examples, so each description is split once (a tenth of a turn's CPU otherwise); the
// examples are shared and must not be modified.
func splitToolExamples(desc string) (string, []string) {
	s := splitDescriptions.Get(desc, func() splitDescription {
		d, examples := parseToolExamples(desc)
		return splitDescription{d, examples}
	})
	return s.desc, s.examples
}

type splitDescription struct {
	desc     string
	examples []string
}

// splitDescriptions holds descriptions as split (see splitToolExamples): they come from
// definitions, never from users.
var splitDescriptions = lang.NewCache[string, splitDescription](1024)

// parseToolExamples is splitToolExamples without the cache.
func parseToolExamples(desc string) (string, []string) {
	before, after, ok := strings.Cut(desc, toolExamplesHead)
	if !ok {
		return desc, nil
	}
	var examples []string
	for _, q := range quoted.FindAllString(after, -1) {
		if s, err := strconv.Unquote(q); err == nil && strings.TrimSpace(s) != "" {
			examples = append(examples, s)
		}
	}
	return strings.TrimSpace(before), examples
}

// toolDoc is a tool's name in words and its description without the examples.
func toolDoc(t llms.Tool) string {
	desc, _ := splitToolExamples(t.Function.Description)
	return lang.Humanise(t.Function.Name) + " " + desc
}

// requires reports whether a tool's JSON-schema parameters require the one named.
func requires(schema any, name string) bool {
	m, ok := schema.(map[string]any)
	if !ok {
		return true // unread: kept as if required
	}
	switch r := m["required"].(type) {
	case []string:
		return slices.Contains(r, name)
	case []any:
		return slices.Contains(r, any(name))
	}
	return false
}
