package route

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// planner decides which candidates (tools) a message asks for, clause by clause.
type planner struct {
	ix       *Index
	minScore float64 // a clause needs this score...
	margin   float64 // ...and this factor over the runner-up to be its own intent
	// fallbackMin is the score the whole message needs, when no clause is confident on its
	// own, for its best candidate to be chosen anyway.
	fallbackMin float64
	// boost, when set, adds per-candidate evidence that is not lexical: values the request
	// carries that only some candidates take (a flight, a number), and apart from them an
	// identifier, which counts only for a candidate the words also single out (see scores).
	boost func(text string) (fit, idFit []float64)
	// substance makes a candidate that matches on light nouns alone not count: between
	// agents "the status" says nothing, while between one agent's tools "on time" does.
	substance bool
	// byMeaning lets closeness in meaning settle what the words leave open in a message no
	// clause of which chose a candidate: words split between candidates, or a single word
	// shared with one. It never adds a second intent.
	byMeaning bool
	// sentences lets the last resort read a message as a sentence (see byMeaningOnly): for
	// choosing between agents, whose texts are sentences, not between one agent's tools,
	// whose descriptions are terse. Decide's planner always sets it, so what only Decide
	// reads (asides, questions about the world, intents in passing) never asks.
	sentences bool
	// sims remembers, for the turn being planned, the sentence similarities of the texts
	// already read (see sentenceSims): a one-clause message is read as its clause and as
	// the whole message.
	sims map[string][]float64
	vecs map[string][]float32 // the sentence vectors behind sims
	// encode is Settings.Encode.
	encode func(text string) []float32
	// modifiers, when set, holds per candidate the stems its text uses only as an -ing form
	// before another noun ("shipping" of "shipping address"), which say what kind, not what
	// (see scores).
	modifiers []map[string]bool
}

// modifierWeight: see language.txt.
var modifierWeight = lang.Number("modifierWeight")

// modifierStems returns the stems text uses only as an -ing form right before another content
// word of the same phrase, describing it: "shipping" in "email, shipping address". A noun
// before a noun ("points balance") is part of the thing and stays whole.
func modifierStems(text string) map[string]bool {
	ws := lang.ScanWords(text)
	before, alone := map[string]bool{}, map[string]bool{}
	for i, w := range ws {
		if lang.IsStopword(w.Lower) {
			continue
		}
		next := ingForm(w.Lower) && i+1 < len(ws) && !lang.IsStopword(ws[i+1].Lower) && strings.TrimSpace(text[w.End:ws[i+1].Start]) == ""
		for _, t := range lang.Terms(w.Lower) {
			if next {
				before[t] = true
			} else {
				alone[t] = true
			}
		}
	}
	for t := range alone {
		delete(before, t)
	}
	return before
}

// scores returns the candidates' scores for one clause.
func (p *planner) scores(text string, qs []qterm) []float64 {
	// An agent's name counts in full wherever it stands: "the outstanding balance for
	// tutoring" asks the tutoring agent, not the one that keeps a points balance. Before
	// another noun, where queryTerms discounted it (in the part that narrows a request, or as
	// an -ing form that describes), it only says what kind of thing, and counts for less than
	// the other words there: "a discount on a ski helmet" asks for a discount, whatever the
	// ski school's texts say about skis.
	if p.substance {
		cloned := false // the caller's terms are left alone
		for i, q := range qs {
			if q.weight < 1 && p.ix.names[q.stem] && !lang.IsLightNoun(q.stem) {
				if !cloned {
					qs, cloned = slices.Clone(qs), true
				}
				qs[i].weight = 1
				if q.modifier {
					qs[i].weight = q.weight * lightWeight
				}
			}
		}
	}
	sc := p.ix.score(qs)
	if p.substance {
		p.dropPriceOnly(text, qs, sc)
	}
	for d := range sc {
		if sc[d] <= 0 {
			continue
		}
		// "has my strap shipped" asks about shipping, which the profile's "shipping address"
		// only uses to say which address: a word a tool's text only puts before another noun
		// counts for less there, unless the request puts it before a noun too. And "my credit
		// card" names another card than the "gift card" that is the only card an agent's texts
		// speak of: there the word counts for less too.
		var mods map[string]bool
		if d < len(p.modifiers) {
			mods = p.modifiers[d]
		}
		other := p.ix.otherCompound(text, d)
		var scaled []qterm
		for i, q := range qs {
			f := 1.0
			if mods[q.stem] && !q.modifier {
				f *= modifierWeight
			}
			if other[q.stem] {
				f *= boundWeight
			}
			if f == 1 {
				continue
			}
			if scaled == nil {
				scaled = slices.Clone(qs)
			}
			scaled[i].weight *= f
		}
		if scaled != nil {
			sc[d] = p.ix.score(scaled)[d]
		}
	}
	if p.boost == nil {
		return sc
	}
	// An order number says which order, not what about it: in "order B-20931 never showed
	// up" it is no reason to check a return, though the return tool takes one. It counts only
	// for the candidate the words rank first.
	top, _, _ := lang.Best(sc)
	fit, idFit := p.boost(text)
	for i := range sc {
		if sc[i] <= 0 {
			continue
		}
		sc[i] += fit[i]
		if i == top {
			sc[i] += idFit[i]
		}
	}
	return sc
}

// dropPriceOnly zeroes, in sc, the score of each agent that the clause qs reaches only through
// words of asking what something costs, when the agent closest to the clause in meaning is
// reached through what it is about: every service has prices, so "a price for translating my
// degree" and "how much to get rid of mice" ask the agent that translates or treats, not the
// one that compares prices. A price word the user owns in the agent's words is a thing of
// theirs, not a question of price: "why was my last charge so high" asks the charging network.
func (p *planner) dropPriceOnly(text string, qs []qterm, sc []float64) {
	var priceOnly []int
	ws := lang.ScanWords(text)
	for d, s := range sc {
		if s > 0 && p.ix.onlyThrough(qs, d, priceStems) && !p.ix.namesOwnThing(ws, d) {
			priceOnly = append(priceOnly, d)
		}
	}
	// Only an agent reached through more than price words can take the clause from them: when
	// none is, the clause's meaning is not read (reading its sentence costs milliseconds).
	if len(priceOnly) == 0 || !reachedBeyond(sc, priceOnly) {
		return
	}
	sims := p.ix.similarities(stemsOf(qs))
	if p.sentences {
		sims = p.sentenceSims(text)
	}
	if m := leader(sims, 0); m >= 0 && sc[m] > 0 && !slices.Contains(priceOnly, m) {
		for _, d := range priceOnly {
			sc[d] = 0
		}
	}
}

// reachedBeyond reports whether some candidate the scores sc reach is not one of priceOnly.
func reachedBeyond(sc []float64, priceOnly []int) bool {
	for d, s := range sc {
		if s > 0 && !slices.Contains(priceOnly, d) {
			return true
		}
	}
	return false
}

// Intent is one candidate chosen for part of a message.
type Intent struct {
	Tool  int     // index of the candidate
	Text  string  // the clauses for this candidate, joined
	score float64 // best clause score, used when a cap keeps only the strongest
	first int     // order of first mention, so calls follow the message
}

// Segment labels besides a candidate index.
const (
	labelUnmatched = -1 // has content words but no confident candidate
	labelEmpty     = -2 // only stopwords: greetings, fillers
)

// reading says how a clause stands in its message, which decides what besides its words may
// settle it.
type reading struct {
	// whole: the clause is the whole message, scored as one when no clause was confident:
	// closeness in meaning may settle what the words leave open (see byMeaning).
	whole bool
	// tie: the clause is a question among others, whose words may name two candidates
	// alike; meaning may settle that, as for a whole message (see settleTies).
	tie bool
	// alone: the message is this one clause, so its sentence is the clause's (see
	// sentenceCheck).
	alone bool
}

// confident returns the candidate a clause is about, or -1: the best score must reach
// floor and margin times the runner-up and, when the planner asks for substance, the
// winner must match on more than light nouns ("what's the status" alone asks for nothing
// in particular).
func (p *planner) confident(text string, qs []qterm, floor, margin float64, r reading) (int, float64) {
	sc := p.scores(text, qs)
	top, s1, s2 := lang.Best(sc)
	if top < 0 || s1 <= 0 || s1 < floor {
		return -1, 0
	}
	var sims []float64 // closeness in meaning, computed when the words leave the choice open
	if s1 < margin*s2 {
		m := p.ownedBy(text, sc, s1, margin)
		// The business the user names settles a clause its words put level.
		if b := p.ix.brandOf(qs); m < 0 && p.substance && b >= 0 && sc[b] > 0 && margin*sc[b] >= s1 {
			m = b
		}
		if m < 0 {
			if !p.byMeaning || !r.whole && !r.tie {
				return -1, 0
			}
			sims = p.ix.similarities(stemsOf(qs))
			m = leader(sims, meaningLead)
			if m < 0 || sc[m] < floor || sc[m] < s2 {
				return -1, 0 // meaning must pick one of the candidates the words put level
			}
		}
		top, s1 = m, sc[m]
	}
	if p.substance && p.ix.score(substantive(qs))[top] <= 0 {
		return -1, 0
	}
	if p.substance {
		// One shared word is weak evidence when it is under a third of what the message says
		// ("did the team win last night"): then it counts only when the agent's own texts use
		// it more than once, as a word of its trade ("rock and roll vinyl deals"). In a short
		// message ("points?") it is all there is.
		if matched, words, tf := p.ix.evidence(qs, top); matched == 0 || matched < 2 && 3*matched < words && tf < 2 {
			if !p.byMeaning || !r.whole {
				return -1, 0
			}
			if sims == nil {
				sims = p.ix.similarities(stemsOf(qs))
			}
			if leader(sims, meaningLead) != top || sims[top] < singleWordFloor {
				return -1, 0 // one shared word, and the rest of the clause means something else
			}
		}
	}
	if r.alone {
		if top = p.sentenceCheck(text, qs, sc, top); top < 0 {
			return -1, 0
		}
	}
	return top, s1
}

// ownedBy returns the candidate whose texts alone use the words of the thing a clause calls
// the user's (see index.soleOwner), when the clause's words put it level with the best (within
// margin of its score s1), or -1: "can i move my fitting to the afternoon" asks the clinic
// that does fittings, though another agent moves appointments too. Before closeness in
// meaning, it settles any clause, not only a whole message or a question among others.
func (p *planner) ownedBy(text string, sc []float64, s1, margin float64) int {
	if !p.substance {
		return -1
	}
	if c := p.ix.soleOwner(lang.ScanWords(text)); c >= 0 && sc[c] > 0 && margin*sc[c] >= s1 {
		return c
	}
	return -1
}

// vetoFloor, overruleFloor, overruleLead, contestShare: see language.txt, which says where each was chosen.
var (
	vetoFloor     = lang.Number("vetoFloor")
	overruleFloor = lang.Number("overruleFloor")
	overruleLead  = lang.Number("overruleLead")
	contestShare  = lang.Number("contestShare")
)

// sentenceCheck returns the candidate for a one-clause message, whose words score sc, that
// the words gave to top: top, another the sentence clearly means, or -1 (see vetoFloor).
// The score stays the words' for top: it only ranks intents against a cap, and a one-clause
// message has one.
func (p *planner) sentenceCheck(text string, qs []qterm, sc []float64, top int) int {
	if !p.sentences {
		return top
	}
	// A message of one word is all about it ("points?"): only a longer one is read as a
	// sentence, which costs milliseconds. (Sparing two-word messages too cost dev/vocab three
	// turns.)
	matched, words, tf := p.ix.evidence(qs, top)
	single := matched < 2 && words > 1
	contested := func(c int) bool { return c != top && sc[c] > 0 && sc[c] >= contestShare*sc[top] }
	rival := false
	for c := range sc {
		rival = rival || contested(c)
	}
	// A contest is read in any message of more than one word, though words after "from" or
	// "for" count for less and make no full word: "when do i get back from the york trip".
	if !single && (!rival || len(lang.ScanWords(text)) < 2) {
		return top
	}
	// A clause that names the business of the agent its words chose is that agent's, however
	// its sentence reads ("how much do i owe clearpath" reads like a loan's balance).
	if p.ix.brandOf(qs) == top {
		return top
	}
	// Nor does the sentence take a clause from the one agent that speaks of the user's own
	// thing, nor find the word used in another sense there: "can i move my fitting" is no less
	// about the fitting for reading like another agent's "can i move my appointment". The
	// sentence is then not read, which costs milliseconds.
	ws := lang.ScanWords(text)
	if p.ix.soleOwner(ws) == top {
		return top
	}
	sims := p.sentenceSims(text)
	if sims == nil {
		return top // no sentence to read: the words stand
	}
	if single && sims[top] < vetoFloor {
		return -1
	}
	// What the user owns is what the clause is about, whatever the other words mean: "where
	// is my nike order".
	if single {
		if u := p.unmatchedMeaning(qs); u >= 0 && u != top && sims[u] > sims[top] && !p.ix.namesOwnThing(ws, top) {
			return u
		}
	}
	if u := leader(sims, 0); u >= 0 && u != top && sims[u] >= overruleFloor && sims[u]-sims[top] >= overruleLead &&
		(contested(u) || single && tf < 2) {
		return u
	}
	return top
}

// unmatchedFloor, unmatchedLead: see language.txt, which says where each was chosen.
var (
	unmatchedFloor = lang.Number("unmatchedFloor")
	unmatchedLead  = lang.Number("unmatchedLead")
)

// unmatchedMeaning returns the candidate the query's full words that no candidate uses come
// close to in meaning (word vectors), or -1.
func (p *planner) unmatchedMeaning(qs []qterm) int {
	var unmatched []string
	for i, r := range p.ix.resolve(stemsOf(qs)) {
		if r.term == "" && qs[i].weight >= 1 && !lang.IsNumberTerm(qs[i].stem) {
			unmatched = append(unmatched, qs[i].stem)
		}
	}
	if len(unmatched) == 0 {
		return -1
	}
	sims := p.ix.similarities(unmatched)
	if u := leader(sims, unmatchedLead); u >= 0 && sims[u] >= unmatchedFloor {
		return u
	}
	return -1
}

// plan splits text into clauses, labels each with the candidate it confidently matches
// (see confident), treats a clause that only sets the scene for the next one as part of
// it (see contextClause), re-attaches unmatched clauses to the next labelled clause
// (context usually comes before the ask: "I'm in Rome, any hotels?") or else the previous
// one, and merges neighbours with the same label, which
// repairs conjunctions cut inside a phrase. It returns one intent per candidate, in order
// of first mention; none when nothing clears the bar.
func (p *planner) plan(text string) []Intent {
	segs := splitClauses(text)
	labels := make([]int, len(segs))
	scores := make([]float64, len(segs))
	clauseTerms := make([][]qterm, len(segs))
	for i, seg := range segs {
		qs := queryTerms(seg.words)
		clauseTerms[i] = qs
		if len(qs) == 0 {
			labels[i] = labelEmpty
			continue
		}
		labels[i], scores[i] = p.confident(text[seg.start:seg.end], qs, p.minScore, p.margin, reading{alone: len(segs) == 1})
	}
	p.settleTies(text, segs, clauseTerms, labels, scores)
	firm := func(i int) bool {
		return labels[i] >= 0 && (!p.substance || !p.ix.inPassing(clauseTerms[i], labels[i]) || p.ix.namesOwnThing(segs[i].words, labels[i]))
	}
	for i, ctx := range contextClauses(text, segs, labels, firm) {
		if !ctx {
			continue
		}
		// A topic named for one agent, then a question about it that reaches another only
		// in passing, asks the topic's agent: "my delivery slot tomorrow, can I move it to
		// the afternoon". The question joins the topic.
		if i+1 < len(segs) && labels[i+1] >= 0 && labels[i+1] != labels[i] && !firm(i+1) &&
			opensWithTopic(segs[i].words) && pointsAt(segs[i+1].words) {
			labels[i+1] = labelUnmatched
			continue
		}
		labels[i] = labelUnmatched
	}
	// A statement after a question that only explains it asks nothing of its own (see
	// afterthought), nor does a question or remark on what the request before it costs (see
	// asksItsPrice), however many clauses between ask nothing: each joins the request before it.
	if p.substance {
		asked := slices.Clone(labels) // each clause is read against the labels as they were
		last := -1                    // the clause before i that asked a candidate
		for i := range segs {
			if asked[i] >= 0 && last >= 0 && asked[i] != asked[last] &&
				(last == i-1 && afterthought(text, segs, i) || p.asksItsPrice(segs, clauseTerms, i, asked[i])) {
				labels[i] = labelUnmatched
			}
			if asked[i] >= 0 {
				last = i
			}
		}
		p.dropIncidental(clauseTerms, labels)
	}

	type group struct {
		tool     int
		from, to int
		score    float64
	}
	var groups []group
	next := 0 // first segment not yet in a group
	for i, l := range labels {
		if l < 0 {
			continue
		}
		if n := len(groups); n > 0 && groups[n-1].tool == l {
			groups[n-1].to = i
			groups[n-1].score = max(groups[n-1].score, scores[i])
		} else {
			// An unmatched clause that points back belongs to the group before it: in "I
			// booked a flight to Rome, can you check it's confirmed and find me deals on a
			// suitcase", "it" is the flight.
			for n := len(groups); n > 0 && next < i && labels[next] == labelUnmatched && pointsAt(segs[next].words); next++ {
				groups[n-1].to = next
			}
			groups = append(groups, group{tool: l, from: next, to: i, score: scores[i]})
		}
		next = i + 1
	}
	if n := len(groups); n > 0 {
		groups[n-1].to = len(segs) - 1
	}
	if len(groups) == 0 {
		return p.fallback(text)
	}

	var out []Intent
	pos := map[int]int{} // candidate -> index in out
	for gi, g := range groups {
		from, to := g.from, g.to
		for labels[from] == labelEmpty && from < to {
			from++
		}
		for labels[to] == labelEmpty && to > from {
			to--
		}
		span := segment{start: segs[from].start, end: segs[to].end, words: segs[from].words}
		t := clauseText(text, span)
		if k, ok := pos[g.tool]; ok {
			out[k].Text = joinClauses(out[k].Text, t)
			out[k].score = max(out[k].score, g.score)
			continue
		}
		pos[g.tool] = len(out)
		out = append(out, Intent{Tool: g.tool, Text: t, score: g.score, first: gi})
	}
	return out
}

// opensWithTopic reports whether a clause, after any pivot ("also"), opens with a topic
// opener ("my delivery slot tomorrow").
func opensWithTopic(ws []lang.Word) bool {
	ws = afterPivots(ws)
	return len(ws) > 0 && topicOpeners[ws[0].Lower]
}

// asksItsPrice reports whether clause i, which its words give to candidate c, only asks or
// says what the thing before it costs: "need lunch for 35 ppl next weds, wat would it cost",
// "can water damaged laptops be fixed, and roughly what does that cost", "the half term camp,
// is there space and whats the price". It points back, or names nothing but a price.
func (p *planner) asksItsPrice(segs []segment, clauseTerms [][]qterm, i, c int) bool {
	if !p.ix.onlyThrough(clauseTerms[i], c, priceStems) {
		return false
	}
	return pointsAt(segs[i].words) || !slices.ContainsFunc(substantive(clauseTerms[i]), func(q qterm) bool { return !priceStems[q.stem] })
}

// priceStems are the terms of asking what something costs.
var priceStems = func() map[string]bool {
	out := map[string]bool{}
	for w := range lang.List("priceWords") {
		for _, t := range lang.Terms(w) {
			out[t] = true
		}
	}
	return out
}()

// settleTies labels a question among other clauses whose words name two agents alike by
// meaning (see confident): "the cleaner's here tomorrow so I'll be in all day. When is my
// parcel supposed to arrive?" asks after the parcel whether or not the words can tell the
// mailroom from the courier. When one of the two is asked elsewhere in the message, the
// question is that request's detail and stays unlabelled: "my flight lands at 6, whats the
// address of the hotel i booked".
func (p *planner) settleTies(text string, segs []segment, clauseTerms [][]qterm, labels []int, scores []float64) {
	if !p.byMeaning || len(segs) < 2 {
		return
	}
	asked := make([]bool, len(p.ix.docs)) // candidates a clause chose; scene clauses may lose theirs later
	for _, l := range labels {
		if l >= 0 {
			asked[l] = true
		}
	}
	for i, seg := range segs {
		if labels[i] != labelUnmatched || !asks(text, segs, i) {
			continue
		}
		sc := p.scores(text[seg.start:seg.end], clauseTerms[i])
		_, s1, _ := lang.Best(sc)
		if tiesWithAsked(sc, s1/p.margin, asked) {
			continue
		}
		if l, s := p.confident(text[seg.start:seg.end], clauseTerms[i], p.minScore, p.margin, reading{tie: true}); l >= 0 {
			labels[i], scores[i] = l, s
		}
	}
}

// tiesWithAsked reports whether a candidate some other clause chose scores at least level in
// sc.
func tiesWithAsked(sc []float64, level float64, asked []bool) bool {
	for l, a := range asked {
		if a && sc[l] > 0 && sc[l] >= level {
			return true
		}
	}
	return false
}

// dropIncidental unlabels, in a message whose clauses point at more than one candidate, a
// clause that points at its candidate through a single word the candidate's texts use only
// once, unless the clause is also closest in meaning to it: "what happened" after a question
// about a phone bill is no request to the agent whose example says "what's happening with my
// return". A word of the candidate's trade, used throughout its texts ("points"), still makes
// a request of its own.
func (p *planner) dropIncidental(clauseTerms [][]qterm, labels []int) {
	distinct := map[int]bool{}
	for _, l := range labels {
		if l >= 0 {
			distinct[l] = true
		}
	}
	if len(distinct) < 2 {
		return
	}
	for i, l := range labels {
		if l < 0 {
			continue
		}
		qs := clauseTerms[i]
		if p.ix.inPassing(qs, l) && leader(p.ix.similarities(stemsOf(qs)), meaningLead) != l {
			labels[i] = labelUnmatched
		}
	}
}

// incidental reports whether every intent reaches its candidate through a word in passing.
func (p *planner) incidental(intents []Intent) bool {
	return !slices.ContainsFunc(intents, func(in Intent) bool { return !p.inPassing(in) })
}

// inPassing reports whether an intent reaches its candidate through a single word the
// candidate's texts use only once (see index.inPassing).
func (p *planner) inPassing(in Intent) bool {
	return p.ix.inPassing(queryTerms(lang.ScanWords(in.Text)), in.Tool)
}

// fallback scores the whole message as one clause: a message may be one intent whose
// words were spread over clauses that are weak on their own.
func (p *planner) fallback(text string) []Intent {
	ws := lang.ScanWords(text)
	qs := queryTerms(ws)
	if len(qs) == 0 {
		return nil
	}
	// The best guess, but not on a near tie: two agents scoring alike means neither is meant.
	top, s1 := p.confident(text, qs, p.fallbackMin, fallbackMargin, reading{whole: true, alone: true})
	if top < 0 {
		return nil
	}
	all := segment{start: 0, end: len(text), words: ws}
	return []Intent{{Tool: top, Text: clauseText(text, all), score: s1}}
}

var fallbackMargin = lang.Number("fallbackMargin") // see language.txt

// joinClauses joins two clauses for one candidate: "where is my order and can I return it".
func joinClauses(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "?.!,; ") + " and " + b
}
