package orchestrator

import (
	"fmt"
	"strings"

	"github.com/switchboard-ai/switchboard/definitions"
)

// The runtime blocks appended to every orchestrator prompt. Sub-agent descriptions are not
// repeated here: they travel only as tool descriptions.
const (
	routingRule = `Routing: each ask_ tool is a specialist. Call the tool whose description fits each thing the user asks for; when the user asks for several things, call several tools in the same response. Pass the user's request for that specialist in their own words. ask.Answer greetings and small talk yourself without tools.`
	capRule     = `Call at most %d ask_ tools in one response: when the user asks for more, pick the %d most relevant.`
	composeRule = `Composition: when the tool results arrive, write one reply in your own voice that presents each result in turn with a brief transition. Keep the specialists' facts; do not invent any.`
	failureRule = `Failures: a tool result that starts with "unavailable:" means that part could not be answered. Acknowledge it in plain words (for example "I couldn't get your points balance right now") and still give everything else. Never show error codes, status values, ids, or technical details.`
	fewShotHead = `Examples of requests and the specialist that handles them:`
	toolsHead   = `What each specialist can look up:`
)

// systemPrompt assembles the definition's prompt with the runtime blocks: routing, the cap
// rule, composition and the failure rule (no error codes in replies), and optional few-shot hints.
func systemPrompt(def *definitions.Definition, bound []*binding, fewShot bool) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(def.Prompt))
	b.WriteString("\n\n")
	b.WriteString(routingRule)
	b.WriteString("\n")
	fmt.Fprintf(&b, capRule, def.FanOutCap, def.FanOutCap)
	b.WriteString("\n")
	b.WriteString(composeRule)
	b.WriteString("\n")
	b.WriteString(failureRule)
	b.WriteString("\n")
	if fewShot {
		var lines []string
		for _, bd := range bound {
			for _, ex := range bd.def.Examples {
				lines = append(lines, fmt.Sprintf("- %q -> %s", ex, bd.def.ToolName()))
			}
			// What users say when one of the agent's tools is right is as good a hint of the agent.
			for _, t := range bd.def.Tools {
				for _, ex := range t.Examples {
					lines = append(lines, fmt.Sprintf("- %q -> %s", ex, bd.def.ToolName()))
				}
			}
		}
		writeBlock(&b, fewShotHead, lines)
		// An agent added by YAML often has no examples; its tools' descriptions still say
		// what it can answer.
		lines = nil
		for _, bd := range bound {
			for _, t := range bd.def.Tools {
				if d := strings.Join(strings.Fields(t.Description), " "); d != "" {
					lines = append(lines, fmt.Sprintf("- %s: %s: %s", bd.def.ToolName(), t.Name, d))
				}
			}
		}
		writeBlock(&b, toolsHead, lines)
	}
	return b.String()
}

// writeBlock appends a hint block: a head and its lines, nothing when there are none.
func writeBlock(b *strings.Builder, head string, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n")
	b.WriteString(head)
	b.WriteString("\n")
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
}

// turnPrompt adds what varies per turn: the user's locale.
func turnPrompt(base, locale string) string {
	if locale == "" {
		return base
	}
	return base + "\nLocale: reply in the language and conventions of " + locale + ".\n"
}

// summaryPrompt asks the model for the prior_context summary handed to a sub-agent when the
// conversation switches vertical.
const summaryPrompt = `Summarize the conversation so far in at most 60 words for a specialist who joins now. Keep names, products, dates and numbers the user mentioned. Plain prose, no preamble.`

// unavailableNote is the only thing the composing LLM learns about a failed sub-agent: no
// error, code or detail crosses this line.
func unavailableNote(def *definitions.Definition) string {
	return fmt.Sprintf("unavailable: I couldn't get an answer from %s right now.", def.Name)
}
