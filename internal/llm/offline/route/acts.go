package route

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// actionVerbs ask for something to be done rather than looked up.
var actionVerbs = lang.List("actionVerbs")

// UnofferedAction returns the action verb of text that none of the tools names or describes
// (offered, see offeredTerms), or "": a sub-agent whose tools read data cannot perform it. A
// phrasal verb is named by what it means ("send it back": return).
func UnofferedAction(text string, offered map[string]bool) string {
	if offered == nil { // no tools: nothing to offer or not
		return ""
	}
	ws := lang.ScanWords(text)
	plain := plainWordsOf(ws)
	start := 0 // first word of the current clause
	for i, verb := range plain {
		if i > 0 && strings.ContainsAny(text[ws[i-1].End:ws[i].Start], ",.;:!?-") {
			start = i // "my order arrived broken, can you cancel it?"
		}
		if actionVerbs[verb] && !offered[lang.Stem(verb)] && asksToAct(plain[start:i]) {
			if means := phrasalMeanings(ws, i); len(means) > 0 {
				return means[0] // "send the shoes back" asks to return them, not to send them
			}
			return verb
		}
	}
	return ""
}

// actRequests are what may come before an action verb when a message asks for the act:
// "please cancel", "can you cancel", "I want to cancel" (see language.txt).
var actRequests = lang.Frames("actRequests")

// asksToAct reports whether the words before an action verb make the message a request to
// perform it.
func asksToAct(before []string) bool {
	for len(before) > 0 && (leads[before[0]] || fillers[before[0]]) {
		before = before[1:]
	}
	for len(before) > 0 && slices.Contains([]string{"please", "just", "still"}, before[len(before)-1]) {
		before = before[:len(before)-1]
	}
	// With nothing before it the verb opens the request: "cancel it".
	return len(before) == 0 || slices.ContainsFunc(actRequests, func(r []string) bool { return slices.Equal(before, r) })
}
