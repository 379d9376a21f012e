package route

import (
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

var maxToolUses = int(lang.Number("maxToolUses")) // see language.txt

// ChooseTools returns the tools a sub-agent request asks for, at most maxToolUses of them in
// the order the request names them, with the part of the request each serves; nil when the
// request is for no tool and gets a direct answer. ix indexes the tools' texts, one document
// per tool. What the tools' parameters say comes from the caller, since route reads no
// schema: boost scores each tool by the values a clause holds that its parameters take (see
// planner.boost), and search is the tool a request naming nothing the tools describe goes
// to as a search term, -1 for none.
func ChooseTools(ix *Index, text string, s Settings, boost func(text string) (fit, idFit []float64), search int) []Intent {
	// A sub-agent's tools share most of their vocabulary, so a smaller lead is enough for
	// a clause to be its own intent; and a sub-agent must act on what it was asked, so any
	// overlap at all picks a tool.
	p := &planner{
		ix:          ix,
		minScore:    s.MinScore,
		margin:      1 + (s.Margin-1)/3,
		fallbackMin: 1e-9,
		boost:       boost,
		encode:      s.Encode,
	}
	p.modifiers = p.ix.modifiers()
	// A follow-up is chosen for by its own words and by what users say to each tool; when
	// they name no tool ("how much will i get back" after a question on a return, "and the
	// keyboard?" after a refund), the earlier request it leans on chooses, as it chose when
	// it was asked; closeness in meaning comes last.
	own := p.ix.spellOut(lang.OwnPart(text))
	var intents []Intent
	if !picksAmongEarlier(own) || own == text {
		intents = p.byWords(own)
		if own != text && len(intents) == 1 && p.pricedOnly(intents[0]) {
			// "how much did that cost" after a question on a repair: the price words chose
			// only the tool whose texts say "price", while others hold money too, so the
			// earlier request chooses.
			intents = nil
		}
		if own != text && len(intents) == 1 {
			// A follow-up goes on with what it follows unless its words say otherwise.
			intents = p.keepEarlier(own, lang.EarlierPart(text), intents)
		}
	}
	if len(intents) == 0 {
		if own != text {
			earlier := lang.EarlierPart(text)
			if intents = p.byWords(earlier); len(intents) == 0 {
				intents = p.byMeaningIntent(earlier)
			}
		}
		if len(intents) == 0 {
			// No word of the request names a tool: the one closest in meaning ("which level
			// of membership am i" and a tool for the member's tier), else a search.
			intents = p.byMeaningIntent(own)
		}
		for i := range intents {
			intents[i].Text = text // the whole request, as its own words chose nothing
		}
	}
	if len(intents) == 0 {
		// A sub-agent must act on what it was asked: a request its words and meaning leave
		// open is a search term when a tool takes one, else for the tool it comes closest to;
		// a follow-up of no words of its own ("where is it") is the earlier request's.
		asked := own
		if len(lang.Terms(own)) == 0 {
			asked = lang.EarlierPart(text)
		}
		if len(lang.Terms(asked)) == 0 {
			if namesBelongings(plainWords(asked)) {
				// "where are my things": the user's things, in no tool's words, are what the
				// agent's main tool lists.
				return []Intent{{Tool: 0, Text: text}}
			}
			return nil
		}
		tool := search
		// Of one tool there is nothing to choose, and reading the request's meaning costs
		// milliseconds.
		if tool < 0 && len(ix.texts) > 1 {
			if tool = p.closest(asked); tool < 0 && asked != lang.EarlierPart(text) {
				tool = p.closest(lang.EarlierPart(text))
			}
		}
		tool = max(tool, 0) // else the first tool, the agent's main one
		intents = []Intent{{Tool: tool, Text: text}}
	}
	return keepStrongest(intents, maxToolUses)
}

// picksAmongEarlier reports whether a request picks one of the things an earlier answer listed
// ("which of them ...", "which one ..."): its words then say which record, not which tool, so
// the tool that listed them answers it again.
func picksAmongEarlier(text string) bool {
	ws := lang.ScanWords(text)
	for i := 0; i+1 < len(ws); i++ {
		if ws[i].Lower == "which" && picks[ws[i+1].Lower] {
			return true
		}
	}
	return false
}

// picks are the words after "which" that make it pick among what was named: see language.txt.
var picks = lang.List("picks")

// byWords chooses tools for a request by its words (a closing clause that only says when
// counts for less there: see queryTerms) and by the tools' examples (see byExample).
func (p *planner) byWords(text string) []Intent {
	intents := p.plan(text)
	if len(intents) == 1 {
		intents = p.byName(text, intents)
	}
	if len(intents) <= 1 && p.ix.examplesDissent(text, intents) {
		// What users say when a tool is the right one outweighs a word the request shares
		// with another tool's description ("what can i get with my points" and the balance).
		if i := p.ix.byExample(text, p.encodeSentence); i >= 0 {
			intents = []Intent{{Tool: i, Text: text, score: 1}}
		}
	}
	return intents
}

// keepEarlier returns the tool the earlier request chose, for a follow-up whose own words
// (own) chose another (intents, one) but reach the earlier one nearly as well: "what number am
// i in the queue" after a question on a reserved book asks the holds' queue position, though a
// card number is the account's. Otherwise intents.
func (p *planner) keepEarlier(own, earlier string, intents []Intent) []Intent {
	before := p.plan(earlier)
	if len(before) != 1 || before[0].Tool == intents[0].Tool {
		return intents
	}
	sc := p.scores(own, queryTerms(lang.ScanWords(own)))
	if e := before[0].Tool; sc[e] > 0 && earlierLean*sc[e] >= sc[intents[0].Tool] {
		return []Intent{{Tool: e, Text: intents[0].Text, score: intents[0].score}}
	}
	return intents
}

// earlierLean: see language.txt.
var earlierLean = lang.Number("earlierLean")

// byName returns, for a request whose words chose one tool (intents), the tool whose name is
// the thing it asks about instead, when its words reach that tool nearly as well as
// any: "did my concert tickets arrive" asks the tickets tool, whatever the schedule says of
// concerts.
func (p *planner) byName(text string, intents []Intent) []Intent {
	qs := queryTerms(lang.ScanWords(text))
	named := -1
	for d := range p.ix.texts {
		if !p.namesTool(qs, d) {
			continue
		}
		if named >= 0 || d == intents[0].Tool {
			return intents // the request names the chosen tool, or more than one
		}
		named = d
	}
	if named < 0 {
		return intents
	}
	sc := p.scores(text, qs)
	_, best, _ := lang.Best(sc)
	if sc[named] > 0 && nameLean*sc[named] >= best {
		return []Intent{{Tool: named, Text: text, score: sc[named]}}
	}
	return intents
}

// nameLean: see language.txt.
var nameLean = lang.Number("nameLean")

// namesTool reports whether the request's terms qs hold, as the thing asked about (not before
// another noun), the last word of tool doc's name: "get_points_balance" is a balance.
func (p *planner) namesTool(qs []qterm, doc int) bool {
	head := p.ix.heads[doc]
	if head == "" {
		return false
	}
	return slices.ContainsFunc(qs, func(q qterm) bool { return !q.modifier && q.weight >= 1 && q.stem == head })
}

// pricedOnly reports whether the words of in reach its tool only through words of asking what
// something costs, while another tool's texts name money too (a total, a fee, a balance): the
// price words then choose between the tools no more than "how much" does.
func (p *planner) pricedOnly(in Intent) bool {
	if !p.ix.onlyThrough(queryTerms(lang.ScanWords(in.Text)), in.Tool, priceStems) {
		return false
	}
	for d := range p.ix.texts {
		if d != in.Tool && p.namesMoney(d) {
			return true
		}
	}
	return false
}

// namesMoney reports whether tool doc's texts name an amount of money.
func (p *planner) namesMoney(doc int) bool {
	return slices.ContainsFunc(moneyWords, func(w string) bool { return p.ix.uses(doc, w) })
}

// moneyWords name amounts of money: see language.txt.
var moneyWords = slices.Sorted(maps.Keys(lang.List("moneyWords")))

// examplesDissent reports whether the tools' examples might choose other than the words did
// (intents, at most one): some example shares much of the request's wording (exampleWording),
// and the tool whose examples share the most is not the one chosen. Only then are the
// examples read by meaning (byExample): encoding a sentence costs milliseconds, the rest of a
// sub-agent's turn tens of microseconds, and an example that overturns the words' choice is
// near the request in wording too ("what could i trade my points in for" and the catalogue's
// "what can i get for my points"). Words count here whatever they are: an example is a way of
// saying, and "what can i" says as much as "points".
func (ix *Index) examplesDissent(text string, intents []Intent) bool {
	if !ix.hasExamples {
		return false
	}
	said := wordsOf(text)
	dice := make([]float64, len(ix.exampleWords))
	for doc, examples := range ix.exampleWords {
		for _, ex := range examples {
			dice[doc] = max(dice[doc], sharedShare(said, ex))
		}
	}
	top, best, _ := lang.Best(dice)
	switch {
	case best == 0 || best < exampleWording:
		return false
	case len(intents) == 0:
		return true
	default:
		return top != intents[0].Tool && dice[intents[0].Tool] < best
	}
}

// wordsOf returns the stems of all of text's words, stopwords included, sorted and unique.
func wordsOf(text string) []string {
	ws := lang.ScanWords(text)
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, lang.Stem(w.Lower))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sharedShare is Dice's coefficient of two sorted sets of words: twice the words they share
// over the words of both.
func sharedShare(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	shared := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			shared++
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
	return 2 * float64(shared) / float64(len(a)+len(b))
}

// byMeaningIntent is the tool closest in meaning to text, as an intent, or none.
func (p *planner) byMeaningIntent(text string) []Intent {
	if top, s := p.byMeaningOnly(text, false); top >= 0 {
		return []Intent{{Tool: top, Text: text, score: s}}
	}
	return nil
}

// byExample returns the tool one of whose examples (a document's texts after its name and
// description) the request's sentence comes close to, by exampleFloor, and closer by
// exampleLead than to any other tool's examples; -1 when none does.
func (ix *Index) byExample(text string, encode func(string) []float32) int {
	var q []float32
	closeness := make([]float64, len(ix.texts))
	for i, texts := range ix.texts {
		for _, e := range texts[min(2, len(texts)):] {
			if q == nil {
				if q = encode(text); q == nil {
					return -1
				}
			}
			if v := agentSentence(e); v != nil {
				closeness[i] = max(closeness[i], lang.Dot(q, v))
			}
		}
	}
	top, s1, s2 := lang.Best(closeness)
	if s1 < exampleFloor || s1-s2 < exampleLead {
		return -1
	}
	return top
}

// exampleWording: see language.txt.
var exampleWording = lang.Number("exampleWording")

// exampleFloor and exampleLead: see language.txt.
var exampleFloor, exampleLead = lang.Number("exampleFloor"), lang.Number("exampleLead")

// toolSentenceFloor, sentenceTie: see language.txt.
var toolSentenceFloor, sentenceTie = lang.Number("toolSentenceFloor"), lang.Number("sentenceTie")

// closest returns the tool a request its words choose no tool for is most likely for, among
// those its words put level, if any: the one whose words match what the request asks about
// (the last noun of "my next pet insurance premium", not those saying which), else the one
// its sentence comes closest to (a tool's description read phrase by phrase: "is his blood
// sugar okay" and "each test's value, unit, normal range and flag"), the words' meaning
// settling a near tie; -1 when its sentence is near none.
func (p *planner) closest(text string) int {
	qs := queryTerms(lang.ScanWords(text))
	sc := p.scores(text, qs)
	_, s1, _ := lang.Best(sc)
	// level keeps, of per-tool figures, those of the tools the words put level; -1 elsewhere.
	level := func(v []float64) []float64 {
		out := slices.Clone(v)
		for i := range out {
			if s1 > 0 && sc[i] < s1/p.margin {
				out[i] = -1
			}
		}
		return out
	}
	head := slices.Clone(qs)
	for i := range head {
		if head[i].modifier {
			head[i].weight *= modifierWeight
		}
	}
	if top, h1, h2 := lang.Best(level(p.scores(text, head))); h1 > 0 && h1 >= p.margin*h2 {
		return top
	}
	sims := p.sentenceSims(text)
	if sims == nil {
		sims = make([]float64, len(sc))
	}
	sims = level(sims)
	top, t1, _ := lang.Best(sims)
	if t1 < toolSentenceFloor {
		if s1 > 0 {
			top, _, _ = lang.Best(sc)
			return top
		}
		return -1
	}
	words := level(p.ix.similarities(stemsOf(qs)))
	for i := range words {
		if sims[i] < t1-sentenceTie {
			words[i] = -1
		}
	}
	if w, _, _ := lang.Best(words); w >= 0 {
		top = w
	}
	return top
}

// spellOut returns text with the initials of a tool's words spelled out ([lang.SpellOut]):
// "how much is left in my hsa" beside "health savings account".
func (ix *Index) spellOut(text string) string {
	docs, _ := ix.ownTerms()
	return lang.SpellOut(text, docs)
}

// Restates reports whether text holds a word of tool doc's name or description, in any form
// the index matches, a typo included ("cupons" and "coupons"): a value holding one restates
// what the tool is about, and is no constraint on it.
func (ix *Index) Restates(doc int, text string) bool {
	_, own := ix.ownTerms()
	return slices.ContainsFunc(ix.resolve(lang.Terms(text)), func(r resolved) bool { return own[doc][r.term] })
}

// ownTerms returns, per document, its first two texts (a tool's name and description)
// joined, and their terms. They depend on the definitions alone, so each index works them
// out once, not on every call (spellOut) or for every value of every call (Restates).
func (ix *Index) ownTerms() (described []string, terms []map[string]bool) {
	ix.ownOnce.Do(func() {
		ix.described = make([]string, len(ix.texts))
		ix.own = make([]map[string]bool, len(ix.texts))
		for i, texts := range ix.texts {
			ix.described[i] = strings.Join(texts[:min(2, len(texts))], " ")
			ix.own[i] = map[string]bool{}
			for _, t := range lang.Terms(ix.described[i]) {
				ix.own[i][t] = true
			}
		}
	})
	return ix.described, ix.own
}
