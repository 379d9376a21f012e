package route

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// qterm is one query term and how much it counts as evidence. Words of a message are not
// equally telling: a general noun or a word describing the scope of a request says less
// about which tool is meant than the thing asked for.
type qterm struct {
	stem   string
	weight float64
	// modifier says the word stands before another content word, as in a compound: "ski" in
	// "ski helmet" says what kind of helmet.
	modifier bool
}

// lightWeight, scopeWeight: see language.txt, which says where each was chosen.
var (
	lightWeight = lang.Number("lightWeight")
	scopeWeight = lang.Number("scopeWeight")
)

// scopePreps open the part of a clause that narrows its request: "deals ON laptops",
// "a hotel IN Lisbon". "to" is left out because it far more often marks a verb ("I need to
// change...").
var scopePreps = lang.List("scopePreps")

// destinationPreps: see language.txt.
var destinationPreps = lang.List("destinationPreps")

// queryTerms returns the weighted content stems of a clause's words plus the terms of
// meaningful stopword phrases ("how much" asks for a price). Words after the first scope
// preposition that follows some content count for less, and so do light nouns.
func queryTerms(ws []lang.Word) []qterm {
	var out []qterm
	weight := 1.0
	var terms, next []string // the stems of ws[i] and ws[i+1], each found once
	if len(ws) > 0 {
		next = lang.AppendTerms(nil, ws[0].Lower)
	}
	thingFrom, thingTo := allowedThing(ws)
	fixed := inComplexPreposition(ws)
	for i, w := range ws {
		// Only a thing asked for is narrowed: after a verb of paying and nothing else ("how
		// much am i paying for my locker", "what did i pay for the bird guards") the words
		// after the preposition name the thing paid for.
		if weight == 1 && scopePreps[w.Lower] && !destinationPreps[w.Lower] && len(out) > 0 && !paidFor(ws[:i], out) {
			weight = scopeWeight
		}
		// A closing clause that says when only dates the request: in "i need my shirts
		// cleaned before my trip" the user asks about the shirts.
		if whenClause(ws, i) && len(out) > 0 {
			weight = min(weight, whenClauseWeight)
		}
		terms, next = next, nil
		if i+1 < len(ws) {
			next = lang.AppendTerms(nil, ws[i+1].Lower)
		}
		if i < len(fixed) && fixed[i] {
			continue // "in charge of the crew" asks for no charge
		}
		modifier := i+1 < len(ws) && namesAThing(ws[i+1].Lower, next)
		// A stretch of time after a word that makes it say when is light like the calendar's
		// words: "last night", "at night" are no hotel's nights. So is "per", which only ties
		// an amount to its unit: "the membership per year" asks no agent that prices per kwh.
		when := i > 0 && timeNouns[w.Lower] && timeDeterminers[ws[i-1].Lower]
		for _, t := range terms {
			if verbParticles[w.Lower] && !endsPhrasal(ws, i) {
				break // "back" says which way, not what: "when will it be back", "due back"
			}
			q := qterm{stem: t, weight: weight, modifier: modifier}
			if lang.IsLightNoun(t) || when || unitLeads[w.Lower] {
				q.weight *= lightWeight
			}
			if i >= thingFrom && i < thingTo {
				q.weight *= scopeWeight
			}
			out = append(out, q)
		}
		if c := compoundAt(ws, i); c != "" {
			out = append(out, qterm{stem: c, weight: weight})
		}
		for _, m := range phrasalMeanings(ws, i) {
			out = append(out, qterm{stem: lang.Stem(m), weight: phraseWeight})
		}
		if boundedPrice(ws, i) {
			out = append(out, qterm{stem: lang.Stem("price"), weight: phraseWeight})
		}
		// "how much" in an allowance question asks for the limit, not a price.
		allowance := thingTo > 0 && i == thingFrom-2
		if allowance {
			for _, t := range allowanceTerms {
				out = append(out, qterm{stem: t, weight: phraseWeight})
			}
		}
		for _, p := range phraseExpansions {
			if allowance || !phraseAt(ws, i, p.words) || (i+len(p.words) < len(ws) && comparatives[ws[i+len(p.words)].Lower]) {
				continue
			}
			for _, t := range p.terms {
				out = append(out, qterm{stem: lang.Stem(t), weight: phraseWeight})
			}
		}
	}
	for _, t := range lang.ShapeTerms(ws) {
		out = append(out, qterm{stem: t, weight: 1})
	}
	return out
}

// paidFor reports whether the words before a preposition, read into terms out, ask only what
// was paid: a word of priceWords said, and no term but price terms.
func paidFor(before []lang.Word, out []qterm) bool {
	return slices.ContainsFunc(before, func(w lang.Word) bool { return priceWordStems(w.Lower) }) &&
		!slices.ContainsFunc(out, func(q qterm) bool { return !priceStems[q.stem] })
}

// priceWordStems reports whether a word is one of priceWords in any of its forms ("paying").
func priceWordStems(w string) bool {
	return slices.ContainsFunc(lang.Terms(w), func(t string) bool { return priceStems[t] })
}

// complexPrepositions are language.txt's, and its askingPhrases, whose words name no thing
// either, by first word, as queryTerms reads every word of every clause.
var complexPrepositions = func() map[string][][]string {
	out := map[string][][]string{}
	for _, p := range append(lang.PhraseList("complexPrepositions"), lang.PhraseList("askingPhrases")...) {
		out[p[0]] = append(out[p[0]], p)
	}
	for _, ps := range out {
		slices.SortStableFunc(ps, func(a, b []string) int { return len(b) - len(a) }) // the longest first
	}
	return out
}()

// inComplexPreposition returns, per word of ws, whether it stands in one of
// complexPrepositions, whose noun names no thing ("in charge of", "on account of", "point me
// towards"); nil when none stands in ws.
func inComplexPreposition(ws []lang.Word) []bool {
	var out []bool
	for i, w := range ws {
		for _, p := range complexPrepositions[w.Lower] {
			if !phraseAt(ws, i, p) {
				continue
			}
			if out == nil {
				out = make([]bool, len(ws))
			}
			for j := range p {
				out[i+j] = true
			}
			break
		}
	}
	return out
}

// namesAThing reports whether a word, whose stems are ts, could be the head of a compound: a
// content word that
// is no light noun, no word of the calendar and no number ("camping stove", not "camping
// tomorrow" or "camping next weekend").
func namesAThing(w string, ts []string) bool {
	return len(ts) > 0 && !timeNouns[w] && w != "next" && !slices.ContainsFunc(ts, func(t string) bool { return lang.IsLightNoun(t) || lang.IsNumberTerm(t) })
}

// timeDeterminers make the time noun after them say when (see language.txt).
var timeDeterminers = lang.List("timeDeterminers")

// verbParticles complete a verb: alone they are no evidence of a subject, and with their verb
// they mean what phrasalVerbs says ("send back" is a return).
var verbParticles = lang.List("verbParticles")

// comparatives after "how much" ask for an amount, not a price: "how much more", "how much
// longer".
var comparatives = lang.List("comparatives")

// phraseAt reports whether the words of phrase stand in ws from ws[i] on.
func phraseAt(ws []lang.Word, i int, phrase []string) bool {
	return i+len(phrase) <= len(ws) && slices.EqualFunc(ws[i:i+len(phrase)], phrase, func(w lang.Word, p string) bool { return w.Lower == p })
}

// substantive drops light nouns: what is left must match a tool for a clause to be a
// request of its own.
func substantive(qs []qterm) []qterm {
	var out []qterm
	for _, q := range qs {
		if !lang.IsLightNoun(q.stem) {
			out = append(out, q)
		}
	}
	return out
}

// boundedPrice reports whether ws[i] is an amount bounded the way a price is: "an espresso
// machine for under 150 bucks", "anything below $80". A count of people, time or size is no
// price: "kids under 12", "up to 6 people", "under 3 hours".
func boundedPrice(ws []lang.Word, i int) bool {
	if !lang.IsDigits(ws[i].Lower) || !lang.PriceLimitBefore(ws, i) {
		return false
	}
	if i+1 < len(ws) {
		next := ws[i+1].Lower
		if currencyWords[next] {
			return true
		}
		if !lang.IsStopword(next) {
			return false // "6 people", "3 hours", "65 inches"
		}
		if (next == "a" || next == "per") && i+2 < len(ws) && (timeNouns[ws[i+2].Lower] || rateUnits[ws[i+2].Lower]) {
			return false // "under 150 a night" is a rate: a hotel's, a plan's
		}
	}
	return true
}

// rateUnits, after "a" or "per", make an amount a rate: "per person", "an hour".
var rateUnits = lang.List("rateUnits")

// currencyWords name money after an amount.
var currencyWords = lang.List("currencyWords")

// compoundAt returns the stem of the word ws[i] and ws[i+1] make when written as one, if
// English has it: people write "pick up" and "lap top" where a tool's text says "pickup" and
// "laptop". "" when they make none, or ws[i] is a function word ("in line" is no "inline").
func compoundAt(ws []lang.Word, i int) string {
	if i+1 >= len(ws) || lang.IsStopword(ws[i].Lower) || !isLetters(ws[i].Lower) || !isLetters(ws[i+1].Lower) {
		return ""
	}
	joined := ws[i].Lower + ws[i+1].Lower
	if len(joined) < minCompoundLetters || !lang.Dictionary().Known(lang.Stem(joined)) {
		return ""
	}
	return lang.Stem(joined)
}

// minCompoundLetters: shorter joins are mostly accidents of two short words (see
// language.txt).
var minCompoundLetters = int(lang.Number("minCompoundLetters"))

// isLetters reports whether s is a word of lowercase letters a to z alone.
func isLetters(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
}

// whenClauseLeads open a clause that says when something is wanted: "before my trip", "while
// i travel", "until we move".
var whenClauseLeads = lang.List("whenClauseLeads")

// whenClauseOwners follow a whenClauseLeads word when it opens a clause about the user's own
// plans rather than a time of day ("before 9").
var whenClauseOwners = lang.List("whenClauseOwners")

// whenClauseWeight is how much a word of a closing when-clause counts (see language.txt).
var whenClauseWeight = lang.Number("whenClauseWeight")

// whenClause reports whether ws[i] opens a clause that says when (see whenClauseLeads).
func whenClause(ws []lang.Word, i int) bool {
	return whenClauseLeads[ws[i].Lower] && i+1 < len(ws) && whenClauseOwners[ws[i+1].Lower]
}

// allowanceTerms are the stems of allowanceWords, which name what a business lets a customer
// have or do: what "how much luggage can i bring" asks for (see allowedThing).
var allowanceTerms = func() []string {
	var out []string
	for w := range lang.List("allowanceWords") {
		out = append(out, lang.Stem(w))
	}
	slices.Sort(out) // a map's order would change the scores' sums from run to run
	return out
}()

// allowanceModals, with the user after them, ask what the user may do: "can i", "may we".
var allowanceModals = lang.List("allowanceModals")

// maxAllowanceGap is how many words may name the thing between "how much" and the modal
// ("how many checked bags can i take").
const maxAllowanceGap = 3

// allowanceModal returns the index of the modal when ws[i] opens "how much" or "how many"
// asking how much the user may have or do ("how much luggage can i bring", "how many guests
// can we invite", "how much can i borrow"): a limit the business sets, not a price. -1 when
// it does not.
func allowanceModal(ws []lang.Word, i int) int {
	if i+1 >= len(ws) || ws[i].Lower != "how" || ws[i+1].Lower != "much" && ws[i+1].Lower != "many" {
		return -1
	}
	for j := i + 2; j+1 < len(ws) && j <= i+2+maxAllowanceGap; j++ {
		if allowanceModals[ws[j].Lower] {
			if userLeads[ws[j+1].Lower] && !secondPerson[ws[j+1].Lower] {
				return j
			}
			return -1
		}
	}
	return -1
}

// allowedThing returns the span [from, to) of the words naming what an allowance question
// (see allowanceModal) asks how much of ("luggage" in "how much luggage can i bring"), from
// two words after its "how": the limit is asked of the business that sets it, so the thing
// counts for less than in a request for the thing itself. 0, 0 when ws asks no allowance.
func allowedThing(ws []lang.Word) (from, to int) {
	for i := range ws {
		if j := allowanceModal(ws, i); j > 0 {
			return i + 2, j
		}
	}
	return 0, 0
}
