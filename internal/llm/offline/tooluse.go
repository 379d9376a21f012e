package offline

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

var maxToolUses = int(lang.Number("maxToolUses")) // see language.txt

// useTools answers a sub-agent request: call the tool(s) whose name and description best
// match the request, with arguments taken from the request text.
func (m *Model) useTools(req *request, allowCalls bool) ([]llms.ToolCall, string) {
	tools := req.plainTools()
	text := req.lastHuman()
	if !allowCalls {
		return nil, directAnswer(text, tools)
	}
	sources := make([]docSource, len(tools))
	for i, t := range tools {
		desc, examples := splitToolExamples(t.Function.Description)
		// Name and description first: newToolVocab takes the tool's vocabulary from them.
		texts := append([]string{lang.Humanise(t.Function.Name), desc}, examples...)
		var minor []string
		for _, p := range answer.ParamsOf(t.Function.Parameters) {
			minor = append(minor, lang.Humanise(p.Name), p.Desc)
		}
		sources[i] = docSource{texts: texts, minor: minor}
	}
	domain := m.vocabs.vocab(req.system, sources)
	intents := chooseTools(m.indexes.index(sources), sources, tools, text, m.opts.minScore, m.opts.margin)
	if intents == nil {
		return nil, directAnswer(text, tools)
	}
	calls := make([]llms.ToolCall, len(intents))
	for i, in := range intents {
		fn := tools[in.tool].Function
		args := answer.ExtractArgs(fn.Parameters, lang.OwnPart(in.text), lang.EarlierPart(text), domain)
		calls[i] = newToolCall(req.nCalls+i+1, fn.Name, args)
	}
	return calls, ""
}

// chooseTools returns the tools a sub-agent request asks for, at most maxToolUses of them in
// the order the request names them, with the part of the request each serves; nil when the
// request is for no tool and gets a direct answer. ix indexes sources, the tools' texts.
func chooseTools(ix *index, sources []docSource, tools []llms.Tool, text string, minScore, margin float64) []intent {
	// A sub-agent's tools share most of their vocabulary, so a smaller lead is enough for
	// a clause to be its own intent; and a sub-agent must act on what it was asked, so any
	// overlap at all picks a tool.
	p := &planner{
		ix:          ix,
		minScore:    minScore,
		margin:      1 + (margin-1)/3,
		fallbackMin: 1e-9,
		boost:       answer.FitBoost(tools),
	}
	p.modifiers = p.ix.modifiers()
	// A follow-up is chosen for by its own words and by what users say to each tool; when
	// they name no tool ("how much will i get back" after a question on a return, "and the
	// keyboard?" after a refund), the earlier request it leans on chooses, as it chose when
	// it was asked; closeness in meaning comes last.
	own := lang.OwnPart(text)
	intents := p.byWords(own, sources)
	if len(intents) == 0 && own != text {
		earlier := lang.EarlierPart(text)
		if intents = p.byWords(earlier, sources); len(intents) == 0 {
			intents = p.byMeaningIntent(earlier)
		}
		for i := range intents {
			intents[i].text = text
		}
	}
	if len(intents) == 0 {
		// No word of the request names a tool: the one closest in meaning ("which level of
		// membership am i" and a tool for the member's tier), else a search.
		intents = p.byMeaningIntent(own)
		for i := range intents {
			intents[i].text = text
		}
	}
	if len(intents) == 0 {
		i := answer.SearchTool(tools)
		if i < 0 || len(lang.Terms(lang.OwnPart(text))) == 0 {
			return nil
		}
		intents = []intent{{tool: i, text: text}}
	}
	if len(intents) > maxToolUses {
		slices.SortStableFunc(intents, func(a, b intent) int { return cmp.Compare(b.score, a.score) })
		intents = intents[:maxToolUses]
		slices.SortStableFunc(intents, func(a, b intent) int { return cmp.Compare(a.first, b.first) })
	}
	return intents
}

// byWords chooses tools for a request by its words, the closing clause that only says when
// left out when that leaves any, and by the tools' examples (see byExample).
func (p *planner) byWords(text string, sources []docSource) []intent {
	intents := p.plan(lang.MainClause(text))
	if len(intents) == 0 && lang.MainClause(text) != text {
		intents = p.plan(text)
	}
	if len(intents) <= 1 {
		// What users say when a tool is the right one outweighs a word the request shares
		// with another tool's description ("what can i get with my points" and the balance).
		if i := byExample(text, sources); i >= 0 {
			intents = []intent{{tool: i, text: text, score: 1}}
		}
	}
	return intents
}

// byMeaningIntent is the tool closest in meaning to text, as an intent, or none.
func (p *planner) byMeaningIntent(text string) []intent {
	if top, s := p.byMeaningOnly(text); top >= 0 {
		return []intent{{tool: top, text: text, score: s}}
	}
	return nil
}

// byExample returns the tool one of whose examples (a source's texts after its name and
// description) the request's sentence comes close to, by exampleFloor, and closer by
// exampleLead than to any other tool's examples; -1 when none does.
func byExample(text string, sources []docSource) int {
	var q []float32
	top, s1, s2 := -1, 0.0, 0.0
	for i, src := range sources {
		s := 0.0
		for _, e := range src.texts[min(2, len(src.texts)):] {
			if q == nil {
				if q = sentenceModel().Embed(text); q == nil {
					return -1
				}
			}
			if v := agentSentence(e); v != nil {
				s = max(s, lang.Dot(q, v))
			}
		}
		switch {
		case s > s1:
			top, s1, s2 = i, s, s1
		case s > s2:
			s2 = s
		}
	}
	if s1 < exampleFloor || s1-s2 < exampleLead {
		return -1
	}
	return top
}

// exampleFloor and exampleLead: see language.txt.
var exampleFloor, exampleLead = lang.Number("exampleFloor"), lang.Number("exampleLead")

// newToolVocab gathers the stems of a sub-agent's prompt and of its tools' names and
// descriptions (tools) and of their parameters (units). A source's first two texts are its
// tool's name and description; the rest are its examples, which say when the tool is right,
// in the users' words, and are not the tool's vocabulary, which arguments leave out ("has my
// order shipped" names no product).
func newToolVocab(system string, sources []docSource) answer.ToolVocab {
	tools := make([]string, len(sources))
	units := make([]string, len(sources))
	for i, src := range sources {
		tools[i] = strings.Join(src.texts[:min(2, len(src.texts))], " ")
		units[i] = strings.Join(src.minor, " ")
	}
	return answer.VocabOf(system, tools, units)
}

// toolExamplesHead starts the line a sub-agent runtime adds to a tool's description to list
// what users say when the tool is the right one (the subagents package writes it).
const toolExamplesHead = "Users ask for this tool with requests such as:"

// quoted matches one Go-quoted string.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// splitToolExamples separates a tool description from the examples line it may end with.
func splitToolExamples(desc string) (string, []string) {
	i := strings.Index(desc, toolExamplesHead)
	if i < 0 {
		return desc, nil
	}
	var examples []string
	for _, q := range quoted.FindAllString(desc[i+len(toolExamplesHead):], -1) {
		if s, err := strconv.Unquote(q); err == nil && strings.TrimSpace(s) != "" {
			examples = append(examples, s)
		}
	}
	return strings.TrimSpace(desc[:i]), examples
}
