package offline

import (
	"slices"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// request is what one GenerateContent call carries, sorted into what the model uses.
type request struct {
	system  string    // all system text, in order, but for the sentence stating today's date and the inherited context
	today   time.Time // the day the system text states as today's, zero for none
	humans  []string  // text of every human message, in order; the last is the one to answer
	results []toolResult
	calls   map[string]llms.ToolCall // every tool call in the history, by ID
	nCalls  int                      // tool calls already in the history, to keep IDs unique
	tools   []llms.Tool
	encode  func(text string) []float32 // the user's sentences, see Model.sentencesOf

	// askedText is the last human message as asked reads it, once askedSet: the humans and
	// tools it is read from do not change after parseRequest.
	askedText string
	askedSet  bool
	// plain are the plain tools (see plainTools), once plainSet.
	plain    []llms.Tool
	plainSet bool
	// domain are the terms of the agent's trade (see Model.domainTerms), once domainSet.
	domain    map[string]bool
	domainSet bool
}

// toolResult is one tool answer that follows the last human message.
type toolResult struct {
	answer.Result
	round int // which round of calls since the last human message asked for it, from 1
}

func parseRequest(messages []llms.MessageContent, tools []llms.Tool) *request {
	req := &request{calls: map[string]llms.ToolCall{}, tools: tools}
	var system []string
	round := 0
	for _, m := range messages {
		if m.Role == llms.ChatMessageTypeHuman {
			req.humans = append(req.humans, textOf(m))
			req.results = nil // only results after the last human message count
			round = 0
			continue
		}
		if slices.ContainsFunc(m.Parts, func(p llms.ContentPart) bool { _, ok := p.(llms.ToolCall); return ok }) {
			round++
		}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				if m.Role == llms.ChatMessageTypeSystem {
					system = append(system, p.Text)
				}
			case llms.ToolCall:
				req.nCalls++
				if p.ID != "" {
					req.calls[p.ID] = p
				}
			case llms.ToolCallResponse:
				r := toolResult{Result: answer.NewResult(p.Name, p.Content), round: round}
				if c, ok := req.calls[p.ToolCallID]; ok && p.ToolCallID != "" {
					r.Call = &c
					if r.Name == "" && c.FunctionCall != nil {
						r.Name = c.FunctionCall.Name
					}
				}
				req.results = append(req.results, r)
			}
		}
	}
	req.system, req.today = answer.CutToday(ownPrompt(strings.Join(system, "\n")))
	return req
}

// ownPrompt cuts off the context a sub-agent inherits for one turn (the user's locale and
// location, a summary of the conversation so far): the model reads the system prompt as the
// agent's trade, and a summary's words are not its trade ("the socks" asked of support after
// a turn about sock coupons would read as a word of the trade, asked for in general).
func ownPrompt(system string) string {
	for _, line := range []string{ask.LocaleLine, ask.LocationLine, ask.PriorContextLine} {
		if i := indexLine(system, line); i >= 0 {
			system = system[:i]
		}
	}
	return system
}

// indexLine is strings.Index(s, line) for a line that starts with a newline: it looks for the
// text after the newline, rarer in a prompt than newlines, at each of which strings.Index
// would stop. An orchestrator's prompt has a line for every agent and example, and reading it
// so took a tenth of the time.
func indexLine(s, line string) int {
	text := line[1:]
	for i := 0; ; {
		j := strings.Index(s[i:], text)
		if j < 0 {
			return -1
		}
		if at := i + j; at > 0 && s[at-1] == '\n' {
			return at - 1
		}
		i += j + 1
	}
}

func textOf(m llms.MessageContent) string {
	var parts []string
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// lastHuman is the message to answer; "" when there is none.
func (r *request) lastHuman() string {
	if len(r.humans) == 0 {
		return ""
	}
	return r.humans[len(r.humans)-1]
}

// routingTools are the ask_* tools: sub-agents the orchestrator can call.
func (r *request) routingTools() []llms.Tool { return r.toolsWhere(true) }

// plainTools are every other function tool, sorted out once per request (a request reads
// them a dozen times); callers must not modify them.
func (r *request) plainTools() []llms.Tool {
	if !r.plainSet {
		r.plain, r.plainSet = r.toolsWhere(false), true
	}
	return r.plain
}

// toolsWhere are the named function tools that are routing tools or, with routing false, not.
func (r *request) toolsWhere(routing bool) []llms.Tool {
	var out []llms.Tool
	for _, t := range r.tools {
		if t.Function != nil && t.Function.Name != "" && strings.HasPrefix(t.Function.Name, lang.RoutePrefix) == routing {
			out = append(out, t)
		}
	}
	return out
}

// domainTerms are the terms of the system prompt and the plain tools' names and descriptions
// (without their examples): the words of the agent's trade.
func (r *request) domainTerms() map[string]bool {
	out := map[string]bool{}
	texts := []string{r.system}
	for _, t := range r.plainTools() {
		texts = append(texts, toolDoc(t))
	}
	for _, t := range lang.Terms(strings.Join(texts, " ")) {
		out[t] = true
	}
	return out
}
