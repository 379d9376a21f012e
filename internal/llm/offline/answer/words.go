package answer

import "github.com/switchboard-ai/switchboard/internal/llm/offline/lang"

// Word lists routing reads too; language.txt says why each holds what it does.
var (
	// fillers are dropped from the front of a clause.
	fillers = lang.List("fillers")
	// frameWords frame a question without naming its subject.
	frameWords = lang.List("frameWords")
	// timeNouns name a stretch of time: after "this", "that" or "next" they say when, not what.
	timeNouns = lang.List("timeNouns")
	// scopePreps open the part of a clause that narrows its request: "deals ON laptops".
	scopePreps = lang.List("scopePreps")
	// actionVerbs ask for something to be done rather than looked up.
	actionVerbs = lang.List("actionVerbs")
	// verbLeads come right before a verb: "do they run", "can we get".
	verbLeads = lang.List("verbLeads")
	// userLeads come before what the user does or is: "can I cancel it".
	userLeads = lang.List("userLeads")
	// maxOwnedWords: see language.txt.
	maxOwnedWords = int(lang.Number("maxOwnedWords"))
)

// Statuses of the tool wrapper a sub-agent gives its LLM, and of failure notes.
const (
	resultOK          = "ok"
	resultPartial     = "partial"
	resultUnavailable = "unavailable"
	resultError       = "error"
)
