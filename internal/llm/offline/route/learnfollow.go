package route

import (
	"math"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A learned follow-up decision (experiment). For a turn after the first, two readings
// compete: continuing the previous turn's agents (the turn's words say what to do or know
// about the earlier thing) and going where the turn's words alone point (the turn routed as
// if it opened the conversation). followFeatures describes the turn by what the router
// already computes, today's rules' own choice among them; a logistic regression over them
// says which reading the turn is.

// followCase is one turn's two readings and what the rules chose.
type followCase struct {
	cont, own, rules []Intent
	features         []float64
}

// followFeatureNames name the features, in order (the trainer reads them).
var followFeatureNames = []string{
	"bias", "rules_cont", "rules_own", "rules_other", "own_none", "own_many", "cont_many",
	"bm25_cont", "bm25_other", "bm25_share", "any_match",
	"points_back", "opens_followup", "looks_followup", "leads_new_thing", "asks_own_thing",
	"names_new_subject", "log_words", "short", "asks", "gives_value", "chat",
	"prev_followup", "prev_gap", "wordvec_diff", "sent_diff",
	"own_names_own_thing", "own_in_passing", "pointer_followup", "only_known_words", "lost_before", "own_thing_of",
}

// sameTools reports whether two intent lists go to the same agents.
func sameTools(a, b []Intent) bool {
	ta, tb := toolsOf(a), toolsOf(b)
	return slices.Equal(ta, tb)
}

func toolsOf(in []Intent) []int {
	out := make([]int, len(in))
	for i, x := range in {
		out[i] = x.Tool
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// followCaseOf returns the n-th message's two readings and their features, or false when the
// turn has no previous agent or both readings agree. rules is what the rules routed it to.
func (c *conversation) followCaseOf(n int, rules []Intent) (followCase, bool) {
	p, text := c.p, c.humans[n-1]
	if _, sum := arithmetic(text); sum {
		return followCase{}, false
	}
	before := c.earlier(n)
	var prev *planned
	gap := 0
	for i := range before {
		if len(before[i].intents) > 0 {
			prev, gap = &before[i], i
			break
		}
	}
	if prev == nil {
		return followCase{}, false
	}
	ws := lang.ScanWords(text)
	cont := withEarlier(text, p.continued(text, ws, prev.intents))
	alone := &conversation{p: p, humans: []string{text}, decided: map[int][]Intent{}, capN: c.capN}
	own := alone.decide(1)
	if sameTools(cont, own) {
		return followCase{}, false
	}
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	inCont := map[int]bool{}
	for _, in := range prev.intents {
		inCont[in.Tool] = true
	}
	qs := queryTerms(ws)
	sc := p.scores(text, qs)
	bestCont, bestOther, best := 0.0, 0.0, 0.0
	for d, s := range sc {
		best = max(best, s)
		if inCont[d] {
			bestCont = max(bestCont, s)
		} else {
			bestOther = max(bestOther, s)
		}
	}
	share := 0.5
	if bestCont+bestOther > 0 {
		share = bestCont / (bestCont + bestOther)
	}
	diff := func(sims []float64) float64 {
		if len(sims) == 0 {
			return 0
		}
		sc, so := -1.0, -1.0
		for d, s := range sims {
			if inCont[d] {
				sc = max(sc, s)
			} else {
				so = max(so, s)
			}
		}
		if sc < -0.5 || so < -0.5 {
			return 0
		}
		return sc - so
	}
	ownTool := -1
	if len(own) == 1 {
		ownTool = own[0].Tool
	}
	prevFollow := slices.ContainsFunc(prev.intents, func(in Intent) bool { return strings.Contains(in.Text, lang.EarlierMarker) })
	kind := chatKind(text)
	ownThing := false
	if ownTool >= 0 {
		ownThing = slices.ContainsFunc(prev.intents, func(in Intent) bool { return p.ix.ownThingOf(ws, ownTool, in.Tool) })
	}
	f := []float64{
		1, b(sameTools(rules, cont)), b(sameTools(rules, own)), b(!sameTools(rules, cont) && !sameTools(rules, own)),
		b(len(own) == 0), b(len(own) > 1), b(len(prev.intents) > 1),
		math.Log1p(bestCont), math.Log1p(bestOther), share, b(best > 0),
		b(pointsBack(ws)), b(opensFollowUp(ws)), b(looksLikeFollowUp(ws)), b(leadsToNewThing(ws)), b(asksOwnThing(ws)),
		b(p.ix.namesNewSubject(ws, prev.intents, ownTool, best == 0)), math.Log1p(float64(len(ws))), b(len(ws) <= maxSubjectlessWords),
		b(asksSomething(text, ws)), b(givesValue(ws)), b(kind != chatNone),
		b(prevFollow), b(gap > 0), diff(p.ix.similarities(stemsOf(qs))), diff(p.sentenceSims(text)),
		b(ownTool >= 0 && p.ix.namesOwnThing(ws, ownTool)), b(ownTool >= 0 && p.inPassing(own[0])),
		b(pointerFollowUp(text, ws, true, func() []planned { return before }) != nil),
		b(ownTool >= 0 && p.ix.onlyKnownWords(ws, ownTool, prev.intents)),
		b(ownTool >= 0 && p.lostBefore(prev, ownTool)), b(ownThing),
	}
	return followCase{cont: cont, own: own, rules: rules, features: f}, true
}

// weighFollowUp returns the n-th message's intents as the learned decision reads them: the
// rules' choice, unless the weights choose the other of the two readings.
func (c *conversation) weighFollowUp(n int, rules []Intent) []Intent {
	if exptDump == "" && exptWeights == nil {
		return rules
	}
	fc, ok := c.followCaseOf(n, rules)
	if !ok {
		return rules
	}
	if exptDump != "" && n == len(c.humans) {
		c.dumpFollow(fc)
	}
	if exptWeights == nil {
		return rules
	}
	rc, ro := sameTools(rules, fc.cont), sameTools(rules, fc.own)
	if !rc && !ro && !exptOverOther {
		return rules
	}
	u := 0.0
	for i, w := range exptWeights {
		u += w * fc.features[i]
	}
	switch {
	case u > exptDelta && !rc:
		return fc.cont
	case u < -exptDelta && !ro && !exptOnlyCont:
		return fc.own
	}
	return rules
}
