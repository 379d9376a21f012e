package evals

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// apologyPattern recognises a plain-words statement that something could not be done or is
// incomplete. It looks for meaning-bearing phrases, not one model's wording.
var apologyPattern = regexp.MustCompile(`(?i)\b(?:sorry|apologi[sz]e|apologies|unfortunately|unavailable|not available|unable to|temporarily|trouble|went wrong|try again|incomplete|partial(?:ly)?|missing|(?:could|can|was|were|did|am|is|are)(?:n't|n’t|nt| not)(?: be)? (?:able|get|getting|reach|reached|load|loaded|find|access|retrieve|check|fetch|pull|connect|complete|look|available|working|responding|respond))\b`)

// acknowledger checks that a reply acknowledges a failing sub-agent in words: an apology or
// unavailability phrase, and a mention of that sub-agent's data by its name or by words that
// describe only it.
type acknowledger struct {
	vocab map[string][]string // agent id -> distinctive stems
}

func newAcknowledger(agents []AgentInfo) *acknowledger {
	words := make([]map[string]bool, len(agents))
	for i, a := range agents {
		words[i] = map[string]bool{}
		for _, w := range tokens(strings.Join(append([]string{a.Name, a.Description}, a.Tools...), " ")) {
			words[i][w] = true
		}
	}
	ack := &acknowledger{vocab: map[string][]string{}}
	for i, a := range agents {
		var own []string
		for w := range words[i] {
			shared := false
			for j := range agents {
				if j != i && words[j][w] {
					shared = true
					break
				}
			}
			if !shared {
				own = append(own, w)
			}
		}
		// The name always counts, even when another description happens to use it.
		for _, w := range tokens(a.Name) {
			if !slices.Contains(own, w) {
				own = append(own, w)
			}
		}
		slices.Sort(own)
		ack.vocab[a.ID] = own
	}
	return ack
}

// missing returns the failing agents that reply does not acknowledge, in the given order.
func (k *acknowledger) missing(reply string, failing []string) []string {
	if len(failing) == 0 {
		return nil
	}
	if !apologyPattern.MatchString(reply) {
		return slices.Clone(failing)
	}
	said := map[string]bool{}
	for _, w := range tokens(reply) {
		said[w] = true
	}
	var out []string
	for _, id := range failing {
		found := false
		for _, w := range k.vocab[id] {
			if said[w] {
				found = true
				break
			}
		}
		if !found {
			out = append(out, id)
		}
	}
	return out
}

// tokens splits text into lower-case, lightly stemmed content words of four letters or more.
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(f)) < 4 || stopwords[f] {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

// stem folds plurals and a few suffixes so "orders" meets "order" and "delays" meets "delayed".
func stem(w string) string {
	for _, suf := range []string{"ies", "es", "s", "ed", "ing"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			if suf == "ies" {
				return w[:len(w)-3] + "y"
			}
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again also another answer anything around because been before
		being below between both could does doing down during each every from further have having here
		into itself just more most much must only other over same should some such than that their them then there these
		they this those through under until very what when where which while will with would your yours
		user users specialist questions question help helps finds find looks look lists list uses like such
		current right know need want please thanks thank`) {
		stopwords[w] = true
	}
}
