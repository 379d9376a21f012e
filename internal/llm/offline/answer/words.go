package answer

import "github.com/switchboard-ai/switchboard/internal/llm/offline/lang"

// Word lists routing reads too; language.txt says why each holds what it does.
var (
	// measureWords count or describe a product without naming it: "a pair of", "a new".
	measureWords = lang.List("measureWords")
	// noise are words that colour a request without saying what it is about.
	noise = lang.List("noise")
	// fillers are dropped from the front of a clause.
	fillers = lang.List("fillers")
	// frameWords frame a question without naming its subject.
	frameWords = lang.List("frameWords")
	// timeNouns name a stretch of time: after "this", "that" or "next" they say when, not what.
	timeNouns = lang.List("timeNouns")
	// scopePreps open the part of a clause that narrows its request: "deals ON laptops".
	scopePreps = lang.List("scopePreps")
	// maxOwnedWords: see language.txt.
	maxOwnedWords = int(lang.Number("maxOwnedWords"))
)

// Statuses of the tool wrapper a sub-agent gives its LLM, and of failure notes.
const (
	ResultOK          = "ok"
	ResultPartial     = "partial"
	ResultUnavailable = "unavailable"
	ResultError       = "error"
)
