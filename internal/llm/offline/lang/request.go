package lang

// The conventions of the requests the model passes from routing to its sub-agents.

import (
	"regexp"
	"strings"

	"github.com/switchboard-ai/switchboard/definitions"
)

// RoutePrefix starts the names of the orchestrator's tools, one per agent: a request offering
// them is to be routed, one offering other tools is a sub-agent's.
const RoutePrefix = "ask_"

// EarlierMarker separates a follow-up from the earlier request it leans on: routing writes
// "can I cancel it? (earlier: any deals on running shoes?)" into the sub-agent's request, and
// tool use and answering read both parts back.
const EarlierMarker = definitions.EarlierMarker

// OwnPart cuts off the earlier request a follow-up quotes.
func OwnPart(text string) string {
	own, _, _ := strings.Cut(text, EarlierMarker)
	return own
}

// EarlierPart returns the earlier request a follow-up quotes, or text itself when it quotes
// none: what a parameter the follow-up cannot fill is taken from ("can I cancel it?
// (earlier: any deals on running shoes?)" searches for running shoes, never for "earlier").
func EarlierPart(text string) string {
	if _, earlier, ok := strings.Cut(text, EarlierMarker); ok {
		return strings.TrimSuffix(strings.TrimSpace(earlier), ")")
	}
	return text
}

// trailingWhen opens a closing clause that says when rather than what: "am I going to run
// out of data before my plan resets?" asks about the data, not the plan.
var trailingWhen = regexp.MustCompile(`(?i)[\s,]+(?:before|after|until|till|by the time|once)\s+(?:my|the|our|i|we|it|this|that|next)\b.*$`)

// MainClause drops a closing clause that only says when, if at least three words remain.
func MainClause(text string) string {
	loc := trailingWhen.FindStringIndex(text)
	if loc == nil || len(strings.Fields(text[:loc[0]])) < 3 {
		return text
	}
	return text[:loc[0]]
}
