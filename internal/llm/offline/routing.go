package offline

import (
	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// route answers an orchestrator request: one call per sub-agent the last message asks
// for, or a direct answer when none clears the bar. allowCalls is false when the caller
// set tool choice "none".
func (m *Model) route(req *request, allowCalls bool) ([]llms.ToolCall, string) {
	tools := req.routingTools()
	text := req.lastHuman()
	if !allowCalls {
		return nil, route.DirectAnswer(text, tools)
	}
	// Matching the cap's rule over all of the prompt was a tenth of routing's time.
	capN := m.caps.Get(req.system, func() int { return route.ParseCap(req.system) })
	intents := route.Decide(m.routingIndex(req.system, tools), req.humans, capN, req.settings(m.opts.routing))
	if len(intents) == 0 {
		return nil, route.DirectAnswer(text, tools)
	}
	calls := make([]llms.ToolCall, len(intents))
	for i, in := range intents {
		fn := tools[in.Tool].Function
		calls[i] = newToolCall(req.nCalls+i+1, fn.Name, map[string]any{requestParam(fn.Parameters): in.Text})
	}
	return calls, ""
}

// requestParam names the argument that carries the request to a sub-agent: "request",
// unless the tool's schema declares a different single text parameter.
func requestParam(schema any) string {
	var text []string
	for _, p := range answer.ParamsOf(schema) {
		if p.Type == "" || p.Type == "string" {
			text = append(text, p.Name)
		}
	}
	if len(text) == 1 {
		return text[0]
	}
	return "request"
}
