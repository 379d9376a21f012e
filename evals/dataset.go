package evals

import "slices"

// DefaultUser is the principal a case runs as when it names none: a demo user of the
// embedded context service.
const DefaultUser = "alice"

// FaultKind is a failure injected into every enricher of one sub-agent for a whole case.
type FaultKind string

const (
	// FaultError makes envelopes come back with status "error": the data is unavailable.
	FaultError FaultKind = "error"
	// FaultPartial makes envelopes come back with status "partial": usable with a caveat.
	FaultPartial FaultKind = "partial"
	// FaultPrincipalMismatch makes envelopes carry another user's data and principal; the
	// runtime must suppress them.
	FaultPrincipalMismatch FaultKind = "principal_mismatch"
	// FaultTimeout makes the enrichers never answer, so the sub-agent runs into its timeout.
	FaultTimeout FaultKind = "timeout"
)

// FaultKinds lists every [FaultKind] a dataset may use.
var FaultKinds = []FaultKind{FaultError, FaultPartial, FaultPrincipalMismatch, FaultTimeout}

func (k FaultKind) valid() bool { return slices.Contains(FaultKinds, k) }

// Dataset is one eval file: named cases, each a short conversation.
type Dataset struct {
	Name  string
	File  string // where it was read from, for messages
	Cases []Case
}

// Case is one conversation, run in a single episode so that later turns can rely on earlier
// ones ("what about my points then").
type Case struct {
	ID string
	// User is the principal the case runs as; [DefaultUser] when the file names none.
	User string
	// Faults are injected, by sub-agent id, before the case's first turn and cleared after
	// its last.
	Faults map[string]FaultKind
	Turns  []Turn
	Line   int // of the case in its file
}

// Turn is one user message and what should happen to it.
type Turn struct {
	// Message is what the user types (the YAML key is "user").
	Message string
	// Expect lists the sub-agents the turn should reach, as a set; empty means the
	// orchestrator answers by itself.
	Expect []string
	// AcknowledgeFailure lists failing sub-agents the reply must acknowledge in plain words.
	AcknowledgeFailure []string
	// ReplyMentions are phrases the reply must contain, each matched case-insensitively after
	// collapsing whitespace; "a|b" in one entry accepts either alternative.
	ReplyMentions []string
	// ReplyExcludes are phrases, written the same way, of which none may appear in the reply.
	ReplyExcludes []string
	Line          int
}

// AssertsReply reports whether the turn checks what the reply says, and so counts toward
// answer accuracy.
func (t Turn) AssertsReply() bool { return len(t.ReplyMentions) > 0 || len(t.ReplyExcludes) > 0 }

// Key names a case across datasets: "dataset/case".
func (c Case) Key(dataset string) string { return dataset + "/" + c.ID }
