package answer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// renderer turns one tool result's decoded JSON into a [Piece]. It knows no schema: keys
// are humanised, values formatted by what their keys say (money, percent, dates), lists
// shortened, and what only echoes the request or serves machines is left out.
type renderer struct {
	listLimit int
	echoes    map[string]bool     // the call's scalar arguments, normalised: not worth repeating
	asked     string              // the user's request, lower-cased: ids it names are shown
	askedWord []lang.Word         // the request's words, scanned once for the rules that read them
	askedTerm []string            // the request's terms
	askedMain string              // the request less a closing clause that only says when
	tool      map[string]bool     // the terms of the called tool's name: what it lists, not which
	scoped    bool                // the call carried text arguments: the service chose already
	argTerms  []string            // the terms of the call's text arguments: what the service was asked for
	argKeys   map[string][]string // each text argument's terms by its name, lower-cased
	// domain are the terms of the agent's prompt and tools: words of its trade ("insurance"
	// to an insurance agent), which name no record.
	domain map[string]bool
	// earlier is the earlier request a follow-up quotes, lower-cased, "" for none, and
	// earlierTerm its terms: which record "it" is, when the follow-up's own words do not say.
	earlier     string
	earlierTerm []string
	// showIDs shows ids people quote: set for the one record a reply is about, whose
	// reference ("claim CLM-20931") the user may need.
	showIDs bool
	// inRecord is set for a record's own list (the car's services): what the request names
	// is the record, not one of the list's.
	inRecord bool
	// around are the terms of the object whose list is being rendered: a word it carries
	// ("the delays on my remodel" of a project named a remodel) is no missing thing of its list.
	around map[string]bool
	// elsewhere are the terms the turn's other results hold as written (Result.Elsewhere).
	elsewhere map[string]bool
	// within are the days the request names relative to today ("last sunday"), empty when
	// it names none: the records dated in them are the ones asked about.
	within span
}

// narrowsToEarlier reports whether a request narrows what it asks for to what an earlier
// message named: a back-pointer after a preposition of scope ("the warranty on it").
func narrowsToEarlier(ws []lang.Word) bool {
	for i := 1; i < len(ws); i++ {
		if backPointers[ws[i].Lower] && scopePreps[ws[i-1].Lower] {
			return true
		}
	}
	return false
}

// says reports whether the request uses a word of words.
func (r renderer) says(words map[string]bool) bool {
	return slices.ContainsFunc(r.askedWord, func(w lang.Word) bool { return words[w.Lower] })
}

// answer makes request, lower-cased, the one r answers, read into words and terms once.
func (r *renderer) answer(request string) {
	r.asked, r.askedWord, r.askedTerm = request, lang.ScanWords(request), requestTerms(request)
	r.askedMain = lang.MainClause(request)
}

// earlierRequest is r answering the earlier request a follow-up quotes, as if it were asked
// on its own.
func (r renderer) earlierRequest() renderer {
	r.answer(r.earlier)
	r.earlierTerm = nil
	return r
}

// newRenderer renders for the request asked a result of call (nil when the history lacks it).
func newRenderer(listLimit int, call *llms.ToolCall, asked string) renderer {
	r := renderer{listLimit: listLimit, echoes: map[string]bool{}, tool: map[string]bool{}, argKeys: map[string][]string{}}
	r.answer(strings.ToLower(asked))
	if call == nil || call.FunctionCall == nil {
		return r
	}
	addTerms(r.tool, lang.Humanise(call.FunctionCall.Name))
	for k, v := range callArgs(call) {
		switch v := v.(type) {
		case string:
			if s := echoKey(v); s != "" {
				r.echoes[s] = true
				r.scoped = true
				r.argTerms = append(r.argTerms, lang.Terms(s)...)
				r.argKeys[strings.ToLower(k)] = lang.Terms(s)
			}
		case float64:
			r.echoes[strconv.FormatFloat(v, 'g', -1, 64)] = true
		}
	}
	return r
}

// callArgs returns a tool call's arguments, nil for no call or arguments that are no JSON object.
func callArgs(call *llms.ToolCall) map[string]any {
	var args map[string]any
	if call != nil && call.FunctionCall != nil && json.Unmarshal([]byte(call.FunctionCall.Arguments), &args) != nil {
		return nil
	}
	return args
}

// echoKey is how a text argument is kept in echoes: lower-cased, its spaces squeezed.
func echoKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// echoed reports whether text s only repeats a text argument of the call.
func (r renderer) echoed(s string) bool { return r.echoes[echoKey(s)] }

// normNumber spells a number the way argument numbers are keyed in echoes.
func normNumber(n json.Number) string {
	f, err := n.Float64()
	if err != nil {
		return n.String()
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// data renders a decoded value about t.
func (r renderer) data(v any, t topic) Piece {
	switch v := v.(type) {
	case nil:
		return Piece{}
	case []any:
		return r.list(t.listNoun(), v, "")
	case []field:
		return r.object(v, t)
	}
	return Piece{kind: pieceProse, text: lang.Capitalise(scalar("", v)) + "."}
}

// object renders an object's scalars as one line of facts about t and its lists of
// records after it. An object that is only a wrapper around one list reads as that list.
func (r renderer) object(obj []field, t topic) Piece {
	if len(obj) == 1 {
		switch v := obj[0].val.(type) {
		case []any:
			return r.list(lang.Humanise(obj[0].key), v, "")
		case []field:
			if _, _, money := moneyObject(v); !money {
				// {"statement": {...}} is the statement itself: its facts need no prefix.
				return r.object(v, t)
			}
		}
	}
	facts, cur := r.facts(obj, scope{}, -1) // nested objects read as prefixed facts: "flight gate B12"
	inner := r
	inner.around = valueTerms(obj)
	// Each list of the object, however deep, is a block: the list rendered, what it lists,
	// whether the request names something in it (asks), and whether a follow-up's earlier
	// words name it alone (earlier).
	type block struct {
		Piece
		noun          string
		asks, earlier bool
	}
	var blocks []block
	var factTerms map[string]bool
	if r.earlierTerm != nil { // only a follow-up reads them
		factTerms = map[string]bool{}
		for _, f := range facts {
			addTerms(factTerms, f.text)
		}
	}
	var lists func(prefix string, obj []field, cur string, depth int)
	lists = func(prefix string, obj []field, cur string, depth int) {
		for _, f := range obj {
			switch v := f.val.(type) {
			case []any:
				if len(v) == 0 || !allScalars(v) {
					noun := strings.TrimSpace(prefix + " " + lang.Humanise(f.key))
					blocks = append(blocks, block{inner.list(noun, v, cur), noun,
						r.asksAbout(noun, v) || r.earlierNames(v), factTerms != nil && r.earlierHolds(v, factTerms)})
				}
			case []field:
				if _, _, money := moneyObject(v); !money && depth < maxNesting {
					_, innerCur := r.facts(v, scope{currency: cur}, -1)
					lists(strings.TrimSpace(prefix+" "+lang.Humanise(f.key)), v, innerCur, depth+1)
				}
			}
		}
	}
	lists("", obj, cur, 0)
	earlierList := slices.ContainsFunc(blocks, func(b block) bool { return r.earlierNamesNoun(b.noun) })
	asked := r.focus(facts, t, len(blocks) > 0, earlierList)
	if len(asked) == 0 && slices.ContainsFunc(blocks, func(b block) bool { return b.earlier }) && !r.holdsOwnWords(obj) {
		// "how much is coming across" after "did my old aviva pension transfer over yet": the
		// transfer its earlier words named, not the account around it.
		blocks = slices.DeleteFunc(blocks, func(b block) bool { return !b.earlier })
		facts = nil
	}
	if len(asked) == 0 && slices.ContainsFunc(blocks, func(b block) bool { return b.asks && !b.missing && r.namesList(b.noun) }) {
		// "how much did insurance pay toward my hearing aids": the insurance claims the request
		// names answer it, not the orders listed beside them. A word only a record holds
		// ("pension" of a transfer from another pension) names no list: all stay.
		blocks = slices.DeleteFunc(blocks, func(b block) bool { return !b.asks })
	}
	if len(asked) == 0 && len(blocks) > 1 && (r.saysWhich() || r.earlierTerm != nil && r.earlierRequest().saysWhich()) {
		if one := slices.IndexFunc(blocks, func(b block) bool { return b.narrowed }); one >= 0 && !slices.ContainsFunc(blocks[one+1:], func(b block) bool { return b.narrowed }) {
			// "whens my next appointment", and "who with" after it: the one list the place
			// word picked a record of answers it, not the past visits and plans beside it.
			blocks = blocks[one : one+1]
		}
	}
	pieces := make([]Piece, len(blocks))
	for i, b := range blocks {
		pieces[i] = b.Piece
	}
	if thing := noneOfAll(pieces); thing != "" && len(asked) == 0 {
		// Every list says it holds nothing about the thing named, and no fact is asked for:
		// the object holds nothing about it, said once rather than list by list beside a dump
		// of its facts.
		return notInData(thing, t)
	}
	if len(asked) > 0 || slices.ContainsFunc(blocks, func(b block) bool { return !b.missing }) {
		// A list that holds nothing about the thing named is no answer beside the facts or
		// lists that do: "paid to date" answers "how much have we paid the contractor", with
		// no "no change order for the contractor" after it.
		blocks = slices.DeleteFunc(blocks, func(b block) bool { return b.missing })
	}
	if len(asked) > 0 && !slices.ContainsFunc(blocks, func(b block) bool { return b.asks }) {
		// "what is my shipping address" is answered with the address, not the profile, and
		// "whats the notice period" with the notice period, however deep it sits; "is it on
		// autopay" with whether the bill is, not its charges.
		blocks = nil
		if len(asked) == 1 && asked[0].label != "" && asked[0].text != "" {
			return Piece{kind: pieceFacts, topic: focusTopic(asked[0].label, t), text: asked[0].text + "."}
		}
		facts = asked
	} else if slices.ContainsFunc(asked, r.namedTwice) {
		// A list asked about keeps its place, but the facts are those asked for: "how bad is
		// my left ear" says the left ear's, not the right's beside the appointments.
		facts = asked
	}
	if len(facts) > 0 && facts[0].text != "" && facts[0].label != "" &&
		(facts[0].label == t.bare || slices.Contains(strings.Fields(t.bare), facts[0].label)) {
		facts[0].label = "" // "Your points balance: 12,450", not "...: points 12,450"
	}
	q, unmatched := unmatchedQuery(obj)
	if unmatched {
		// The service found nothing for what was asked and sent something else: say so,
		// and no more, rather than fill the reply with things that were not asked for.
		what := "“" + q + "”"
		if len(strings.Fields(q)) > maxQuotedWords || strings.ContainsAny(q, "?!") || !r.quotable(q) {
			// A whole question is no search term to show back, and a piece of the user's
			// words ("pay" of "deals on pay pair") would read as nonsense.
			what = "that"
		}
		for i, b := range blocks {
			if b.kind == pieceList {
				blocks[i].Piece = Piece{kind: pieceProse, text: fmt.Sprintf("I found no %s for %s right now.", b.noun, what), missing: true}
			}
		}
	}
	// A list of one named thing's records reads as the list for it: "I found 2 quotes for
	// Kindle Paperwhite", not "The price: product Kindle Paperwhite" over "I found 2 quotes".
	if !unmatched && len(facts) == 1 && nameLabels[facts[0].label] && facts[0].text != "" && len(blocks) == 1 && blocks[0].kind == pieceList {
		blocks[0].found += " for " + facts[0].text
		facts = nil
	}
	if len(facts) == 0 {
		switch len(blocks) {
		case 0:
			return Piece{}
		case 1:
			return blocks[0].Piece
		}
	}
	if len(facts) > maxFacts {
		facts = r.boundFacts(facts, asked, t)
	}
	lines := []string{}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(phrases(facts), " · ")+".")
	}
	for _, b := range blocks {
		lines = append(lines, b.standalone())
	}
	return Piece{kind: pieceFacts, topic: t.noun, text: strings.Join(lines, "\n")}
}

// personAsks open a question that asks for a person (see language.txt).
var personAsks = lang.List("personAsks")

// asksPrice reports whether the request asks what something costs: a word of price ("what
// does it cost"), "how much is" ("how much is a new charger case"; not "how much data", nor
// "how much has sam used") or "how much" alone, a follow-up's.
func (r renderer) asksPrice() bool {
	ws := r.askedWord
	if len(ws) > 0 && personAsks[strings.ReplaceAll(ws[0].Lower, "'", "")] {
		return false // "whos in charge", "who do i pay": a person is asked for, not an amount
	}
	for i, w := range ws {
		if priceWords[w.Lower] || w.Lower == "much" && i > 0 && ws[i-1].Lower == "how" && (i+1 == len(ws) || priceCopulas[ws[i+1].Lower]) {
			return true
		}
	}
	return false
}

// asksCost reports whether a word of the request is, in any form, a word of price ("what am
// i paying for", "what does it cost").
func (r renderer) asksCost() bool {
	return slices.ContainsFunc(r.askedTerm, func(t string) bool { return priceTerms[t] })
}

// priceTerms are the terms of priceWords.
var priceTerms = func() map[string]bool {
	out := map[string]bool{}
	for w := range priceWords {
		addTerms(out, w)
	}
	return out
}()

// holdsMoney reports whether a record holds an amount of money, however deep.
func holdsMoney(item any, cur string) bool {
	held := false
	eachAmount(item, func(float64) { held = true })
	if obj, ok := item.([]field); ok && !held {
		_, _, _, held = firstAmount(obj, cur)
	}
	return held
}

// namedTwice reports whether the request names two words or more of f's label: one word
// may name a fact by chance ("the movers" of the crew's movers), two name the member asked
// for ("my left ear" of the left ear's).
func (r renderer) namedTwice(f fact) bool {
	return f.namedBy(r.names) >= 2
}

// boundFacts keeps maxFacts of an object's facts, in order: those the request asks for first
// (focused, as focus chose them: "when does my membership renew" keeps the dates of a
// membership whose lists are shown too; else those it names, "is autopay on" of an account
// with many facts before its autopay), then the others.
func (r renderer) boundFacts(facts, focused []fact, t topic) []fact {
	asked := focused
	if len(asked) == 0 {
		asked = withHalted(r.focusOn(lang.Terms(r.askedMain), facts, t, true), facts)
	}
	keep, n := make([]bool, len(facts)), 0
	for _, askedOnly := range []bool{true, false} { // the facts asked for first, then the others
		for i, f := range facts {
			if n < maxFacts && !keep[i] && (!askedOnly || slices.Contains(asked, f)) {
				keep[i], n = true, n+1
			}
		}
	}
	var out []fact
	for i, f := range facts {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out
}

// quotable reports whether q is a whole phrase of the request: its words in a row, run on
// neither from a word before them nor into one after them but for little words ("cheap tent"
// of "find me a cheap tent", not "pay" of "deals on pay pair").
func (r renderer) quotable(q string) bool {
	qs, ws := lang.ScanWords(strings.ToLower(q)), r.askedWord
	for i := 0; i+len(qs) <= len(ws) && len(qs) > 0; i++ {
		if !slices.EqualFunc(ws[i:i+len(qs)], qs, func(a, b lang.Word) bool { return a.Lower == b.Lower }) {
			continue
		}
		end := i + len(qs)
		return (i == 0 || lang.IsStopword(ws[i-1].Lower)) && (end == len(ws) || lang.IsStopword(ws[end].Lower))
	}
	return false
}

// focusTopic names a single fact asked for: "your shipping address", or, for a label that
// describes rather than names ("expiring soon"), what it describes: "points expiring soon".
func focusTopic(label string, t topic) string {
	ws := strings.Fields(label)
	describes := len(ws) == 2 && (strings.HasSuffix(ws[0], "ing") || strings.HasSuffix(ws[0], "ed")) && particles[ws[1]]
	if !describes || t.bare == "" {
		return "your " + label // "your shipping address", "your billing"
	}
	// What it describes: the topic's first word ("points" of "points balance").
	head, _, _ := strings.Cut(t.bare, " ")
	return head + " " + label
}

// focus returns the facts whose labels name what the request asks about, when some do but
// not all, or all of them beside lists (see object): the user asked for those. Light nouns
// ("status", "details") and the words of the topic itself (asking for "my points" is asking
// for the whole balance) name no one fact.
func (r renderer) focus(facts []fact, t topic, lists, earlierList bool) []fact {
	hit := r.focusOn(lang.Terms(r.askedMain), facts, t, lists) // "... before my plan resets" asks for no plan
	if hit != nil && r.asksCost() && !r.asksWhen() && !slices.ContainsFunc(hit, func(f fact) bool { return f.money }) {
		// "what am i paying for the garage spot", of a pass whose "space" the spot is: the
		// words name the thing priced, and its amounts of money answer.
		if money := slices.DeleteFunc(slices.Clone(facts), func(f fact) bool { return !f.money }); len(money) > 0 {
			hit = money
		}
	}
	if hit == nil && r.earlierTerm != nil && (!r.says(askWords) || !earlierList && !r.namesOwnThing()) {
		// "can you change it" after "what's my shipping address": the earlier words say what.
		// A question of its own ("and how much do i still owe on it") asks for something else,
		// unless it names no thing ("how many am i getting" after "when are the moving boxes
		// getting dropped off": the boxes), and the earlier words named no list, whose record
		// it asks about ("where is that" after "when's my next appointment").
		hit = r.focusOn(r.earlierTerm, facts, t, lists)
	}
	if hit != nil && r.earlierTerm != nil && r.asksPrice() && !r.namesOwnThing() && !slices.ContainsFunc(hit, func(f fact) bool { return f.money }) {
		// "how much" after "when does the climbing wall take my next payment": the earlier
		// words name the payment, and its amount is asked for now, not its date again.
		if money := slices.DeleteFunc(slices.Clone(facts), func(f fact) bool { return !f.money }); len(money) > 0 {
			hit = money
		}
	}
	if hit == nil && r.asksWhen() {
		// "when did i last pay", of a last payment's amount and date: the facts a verb of the
		// request names (see focusOnVerbs), when a date is among them.
		if verbs := r.focusOnVerbs(facts, t, lists); slices.ContainsFunc(verbs, func(f fact) bool { return f.date }) {
			hit = verbs
		}
	}
	if hit == nil && r.asksWhen() {
		// "when is my kitchen supposed to be finished", of a project whose facts name no word
		// of it: its dates answer, not its address and manager.
		dates := slices.DeleteFunc(slices.Clone(facts), func(f fact) bool { return !f.when() || snapshotLabels[f.label] })
		if of := r.earlierDates(dates, facts, t, lists); len(of) > 0 {
			dates = of
		}
		if len(dates) > 0 && len(dates) < len(facts) {
			hit = dates
		}
	}
	if hit == nil {
		// "can i pay with cash", of facts whose labels say "payment": a verb of the request
		// names the facts its noun labels, when no word names one as written and no date is
		// asked for.
		hit = r.focusOnVerbs(facts, t, lists)
	}
	hit = withPlaces(hit, facts)
	if hit == nil && r.says(priceWords) {
		// "how much does that cost", of facts none of whose labels says cost: the amounts of
		// money answer, those of the thing the earlier request named first ("can i stay over
		// the break": the stay-over fee, not the dining dollars).
		money := slices.DeleteFunc(slices.Clone(facts), func(f fact) bool { return !f.money })
		if named := slices.DeleteFunc(slices.Clone(money), func(f fact) bool {
			return !slices.ContainsFunc(lang.Terms(f.named()), func(t string) bool { return slices.Contains(r.earlierTerm, t) })
		}); len(named) > 0 {
			money = named
		}
		if len(money) > 0 && len(money) < len(facts) {
			hit = money
		}
	}
	if hit == nil {
		// "anything i need to do before moving day", of a move plan's "before move day": a
		// label the request says whole, little words and all, though its words alone name
		// nothing (the topic's "move", the light "day").
		hit = r.quotedFacts(facts)
	}
	return withHalted(hit, facts)
}

// quotedFacts returns the facts whose labels, of two words or more, the request says whole:
// each word in a row, as written or in another form of it ("moving" for "move").
func (r renderer) quotedFacts(facts []fact) []fact {
	var hit []fact
	for _, f := range facts {
		if label := lang.ScanWords(f.label); len(label) >= 2 && saysInARow(r.askedWord, label) {
			hit = append(hit, f)
		}
	}
	if len(hit) == len(facts) {
		return nil
	}
	return hit
}

// saysInARow reports whether ws holds the words of phrase in a row, each as written or with
// the same terms.
func saysInARow(ws, phrase []lang.Word) bool {
	same := func(a, b lang.Word) bool {
		ta, tb := lang.Terms(a.Lower), lang.Terms(b.Lower)
		return a.Lower == b.Lower || len(ta) > 0 && slices.Equal(ta, tb)
	}
	for i := 0; i+len(phrase) <= len(ws); i++ {
		if slices.EqualFunc(ws[i:i+len(phrase)], phrase, same) {
			return true
		}
	}
	return false
}

// withHalted adds to hit, when it holds any fact, a status of facts that says the record is
// not in force for now ("paused"): whatever is asked of a paused subscription ("when's my next
// delivery"), that it is paused bears on the answer.
func withHalted(hit, facts []fact) []fact {
	if len(hit) == 0 {
		return hit
	}
	i := slices.IndexFunc(facts, func(f fact) bool { return haltedWords[strings.ToLower(f.text)] && !slices.Contains(hit, f) })
	if i < 0 {
		return hit
	}
	var out []fact
	for j, f := range facts {
		if j == i || slices.Contains(hit, f) {
			out = append(out, f)
		}
	}
	return out
}

// withPlaces adds to hit, when it holds a place's number ("space 214", "room 312B": a one-word
// label over a code), the facts of the places that hold it, in the object's order ("level
// P2", "building Maple Hall"): the number alone does not find it.
func withPlaces(hit, facts []fact) []fact {
	if !slices.ContainsFunc(hit, func(f fact) bool {
		return !f.money && !f.when() && !strings.Contains(f.label, " ") && f.label != "" &&
			!strings.Contains(f.text, " ") && strings.ContainsAny(f.text, "0123456789")
	}) {
		return hit
	}
	var out []fact
	for _, f := range facts {
		if slices.Contains(hit, f) || placeLabels[f.label] && !f.money && !f.when() {
			out = append(out, f)
		}
	}
	return out
}

// earlierDates returns those of dates that belong to the facts a follow-up's earlier request
// was answered with: "when do i have to pay it by" after "how much do i still owe" asks when
// the balance is due, not when the deposit stops being refundable. Nil when it is no
// follow-up or its earlier answer names none of them.
func (r renderer) earlierDates(dates, facts []fact, t topic, lists bool) []fact {
	if r.earlierTerm == nil || len(dates) < 2 {
		return nil // no follow-up, or the earlier request itself (earlierRequest)
	}
	before := r.earlierRequest().focus(facts, t, lists, false)
	return slices.DeleteFunc(slices.Clone(dates), func(d fact) bool {
		return !slices.ContainsFunc(before, func(b fact) bool { return b.label == d.label || sharesTerm(b.label, d.label) })
	})
}

// focusOnVerbs returns the facts whose labels hold a noun in -ment made of a verb the request
// uses (see namedByVerb), when some do but not all.
func (r renderer) focusOnVerbs(facts []fact, t topic, lists bool) []fact {
	asked := map[string]bool{}
	for _, w := range lang.Terms(r.askedMain) {
		asked[w] = !lang.IsLightNoun(w)
	}
	for _, w := range lang.Terms(t.bare) {
		asked[w] = false
	}
	var hit []fact
	for _, f := range facts {
		if f.namedByVerb(func(w string) bool { return asked[w] }) > 0 {
			hit = append(hit, f)
		}
	}
	if len(hit) == len(facts) && !lists {
		return nil
	}
	return hit
}

// focusOn is focus by the request terms asked.
func (r renderer) focusOn(asked []string, facts []fact, t topic, lists bool) []fact {
	want := map[string]bool{}
	for _, w := range asked {
		want[w] = !lang.IsLightNoun(w)
	}
	if r.asksOwed() {
		for w := range owedLabels {
			addTerms(want, w) // "how much do i owe" asks for the balance
		}
	}
	for _, w := range lang.Terms(t.bare) {
		want[w] = false
	}
	byValue := func(f fact) bool {
		return f.label != "" && slices.ContainsFunc(lang.Terms(f.text), func(w string) bool { return want[w] })
	}
	// A fact is asked for by its label ("points to next"). When every label names a word of
	// the request, those that name the most of them are asked for ("cycle resets" over
	// "cycle started" for "when does my cycle reset").
	byLabel := func(f fact) int { return f.namedBy(func(w string) bool { return want[w] }) }
	least, most := len(r.askedTerm), 0
	for _, f := range facts {
		least, most = min(least, byLabel(f)), max(most, byLabel(f))
	}
	floor := 1
	if least > 0 {
		floor = most
	}
	var hit []fact
	for _, f := range facts {
		// With no label named, a list of things that holds one the request names is the fact
		// asked about ("my dogs" among the things not allowed).
		if most > 0 && byLabel(f) >= floor || f.list && byValue(f) {
			hit = append(hit, f)
		}
	}
	if len(hit) == len(facts) && !lists || len(hit) == 0 {
		return nil
	}
	// An amount asked for comes with the date its label shares a word with: the "balance due"
	// with the "due date".
	for _, f := range facts {
		if f.date && !slices.Contains(hit, f) && slices.ContainsFunc(hit, func(h fact) bool { return h.money && sharesTerm(h.label, f.label) }) {
			hit = append(hit, f)
		}
	}
	// Asked about the topic's neighbour ("the next tier"), the answer still says the topic's
	// own value (which tier the member is in): the first fact, when it is the bare name or the
	// topic itself.
	topicWords := lang.Terms(t.bare)
	related := slices.ContainsFunc(hit, func(f fact) bool {
		return slices.ContainsFunc(lang.Terms(f.label), func(w string) bool { return slices.Contains(topicWords, w) })
	})
	if first := facts[0]; related && first.text != "" && (first.label == "" || first.label == t.bare) && !slices.Contains(hit, first) {
		hit = append([]fact{first}, hit...)
	}
	return hit
}

// earlierHolds reports whether a follow-up's earlier words name a thing the list arr holds
// and the facts around it (factTerms) do not.
func (r renderer) earlierHolds(arr []any, factTerms map[string]bool) bool {
	held := valueTerms(arr)
	return slices.ContainsFunc(r.thingTerms(r.earlierTerm, false), func(t string) bool { return held[t] && !factTerms[t] })
}

// holdsOwnWords reports whether data holds a word of the request's own that may name a thing
// (see thingTerms).
func (r renderer) holdsOwnWords(data any) bool {
	known := heldTerms(data)
	return slices.ContainsFunc(r.thingTerms(r.askedTerm, false), func(t string) bool { return known[t] })
}

// asksAbout reports whether the request names the list of records arr under noun, or a word
// its records hold in their keys or values, other than the called tool's and light nouns:
// then a focused answer keeps the list.
func (r renderer) asksAbout(noun string, arr []any) bool {
	words := heldTerms(arr)
	addTerms(words, noun)
	return slices.ContainsFunc(r.askedTerm, func(w string) bool { return words[w] && !r.tool[w] && !lang.IsLightNoun(w) })
}

// namesList reports whether the request uses a word of a list's noun ("insurance" of
// "insurance claims") beyond the called tool's name and light nouns.
func (r renderer) namesList(noun string) bool {
	return slices.ContainsFunc(lang.Terms(noun), func(t string) bool {
		return slices.Contains(r.askedTerm, t) && !r.tool[t] && !lang.IsLightNoun(t)
	})
}

// earlierNames reports whether the earlier request a follow-up quotes names one record of arr
// by a word of its values that not every record holds: "did i sign it yet" after "what will
// the waterfall edge change cost me" is about that change order, whatever fact it names.
func (r renderer) earlierNames(arr []any) bool {
	if r.earlierTerm == nil || len(arr) < 2 {
		return false
	}
	values := recordTerms(arr)
	return slices.ContainsFunc(r.earlierTerm, func(t string) bool { return splits(t, values) && !r.generic(t) })
}

// unmatchedQuery reports the query of an object that says its results do not match it: a
// false flag named like "matched_query" or "match", beside a "query" (or "q", "search") field.
func unmatchedQuery(obj []field) (string, bool) {
	unmatched, query := false, ""
	for _, f := range obj {
		switch v := f.val.(type) {
		case bool:
			if w := strings.Fields(lang.Humanise(f.key)); len(w) > 0 && (w[0] == "matched" || w[0] == "match") && !v {
				unmatched = true
			}
		case string:
			if k := strings.ToLower(f.key); k == "query" || k == "q" || k == "search" {
				query = strings.TrimSpace(v)
			}
		}
	}
	return query, unmatched && query != ""
}

// list renders an array: scalars inline, records as up to listLimit bullets. cur is the
// currency in force from the enclosing object.
func (r renderer) list(noun string, arr []any, cur string) (p Piece) {
	narrowed := false // the request picked some of the records
	defer func() { p.narrowed = p.narrowed || narrowed && p.kind == pieceList }()
	noun = cmp.Or(noun, "results")
	if len(arr) == 0 {
		return Piece{kind: pieceProse, text: "I found no " + noun + "."} // "no permits": plainly none
	}
	if allScalars(arr) {
		return Piece{kind: pieceProse, text: lang.Capitalise(noun) + ": " + r.scalarList(noun, arr) + "."}
	}
	if r.scoped && len(arr) <= r.listLimit && r.unfiltered(arr) {
		r.scoped = false
	}
	found := fmt.Sprintf("%d %s", len(arr), countNoun(len(arr), noun))
	var itemTerms [][]string // rendered once, for whichever of the two below needs them
	termsOf := func() [][]string {
		if itemTerms == nil {
			itemTerms = make([][]string, len(arr))
			for i, item := range arr {
				itemTerms[i] = lang.Terms(r.item(item, cur))
			}
		}
		return itemTerms
	}
	missing, definite := "", false
	if !r.inRecord {
		// Only at the top: a record's own list ("the truck's service") shows what the record
		// holds, the record being what the request named.
		missing, definite = r.unmatchedSubject(arr, noun)
		if missing == "" && r.earlier != "" && narrowsToEarlier(r.askedWord) {
			// A follow-up asking for records of "it" is about the thing its earlier request
			// named: when no record is for that thing, that is the answer, not the records
			// there are.
			missing, definite = r.earlierRequest().unmatchedSubject(arr, noun)
		}
	}
	if definite && !r.qualifies(missing, noun) && !r.namesHeldBeside(arr, missing) {
		// "has the kettle shipped" when no order is for a kettle: say so before the request's
		// other words pick a record (an order that has shipped), which would be presented as
		// the kettle's.
		return noneFound(singular(noun), missing)
	}
	hits := r.namedItems(arr, termsOf)
	if back := r.backToEarlier(arr, noun, termsOf); len(back) == 1 && !slices.ContainsFunc(hits, func(h any) bool { return reflect.DeepEqual(h, back[0]) }) {
		// "which shop do i collect it from" after "when will the signed shirt frame be done":
		// the shirt's frame, though other jobs hold a date to collect by.
		hits = back
	}
	if len(hits) > 0 && r.earlierTerm != nil && len(arr) <= r.listLimit && len(r.subjectTerms(noun)) == 0 {
		if before := r.earlierRecords(arr, noun); len(before) > 0 && !slices.ContainsFunc(hits, func(h any) bool {
			return slices.ContainsFunc(before, func(b any) bool { return reflect.DeepEqual(h, b) })
		}) {
			// A follow-up's own word found only in other records' details ("costs") does not
			// take it from the record its earlier words name (see earlierRecords). Only a
			// short list, the user's own records, is compared so.
			hits = before
		}
	}
	if len(hits) == len(arr) {
		// Words every record carries ("is it on autopay", where each bill says whether it
		// is) name none of them: which one is meant is still to be found.
		hits = nil
	}
	if len(hits) == 0 && (len(arr) <= r.listLimit || !r.scoped && r.around != nil) {
		// A short list, or a part of a larger whole no search chose (the line items of an
		// estimate), is the user's own records, one of which the request names; a long list
		// that is the whole result (a catalog) shows what was asked for first instead (see
		// askedFirst).
		hits = r.tellingItems(arr, noun)
	}
	if len(hits) == 0 {
		// "did we win last sunday": the match played that day, when no word names one.
		hits = r.datedItems(arr)
	}
	if len(hits) == 0 {
		hits = r.kindItems(arr)
	}
	if len(hits) == 0 && r.earlier != "" {
		// A follow-up ("when is it due" after "how much do i owe the lab", "whats the order
		// number for it" after "is the heart rate strap on its way") is about the records its
		// earlier request named or asked for (those not paid).
		prev := r.earlierRequest()
		if hits = prev.namedItems(arr, termsOf); len(hits) == 0 || len(hits) == len(arr) {
			hits = prev.kindItems(arr)
		}
	}
	if len(hits) == 0 && !r.inRecord {
		// "when does my permit run out": the one in force, not last year's that expired.
		hits = r.currentItems(arr)
	}
	if len(hits) > 1 {
		// "my federal refund for last year": of the federal returns, the one for that year.
		if dated := r.datedItems(hits); len(dated) > 0 {
			hits = dated
		}
	}
	if spelled := r.spelledPeriodItems(hits); len(spelled) > 0 {
		// "what do i owe for november": the November invoice, not October's due on Nov 5.
		hits = spelled
	}
	if len(hits) > 0 {
		missing = ""
	}
	if len(hits) > 0 && len(hits) < len(arr) && r.asksPrice() && !slices.ContainsFunc(hits, func(item any) bool { return holdsMoney(item, cur) }) {
		// "how much is a new charger case", of accessories none of which has a price: say so,
		// not the case's warranty.
		names := make([]string, 0, len(hits))
		for _, item := range hits {
			obj, _ := item.([]field)
			if head := r.headField(obj); head >= 0 {
				names = append(names, "the "+headText(obj[head]))
			}
		}
		if len(names) > 0 {
			return Piece{kind: pieceProse, text: "I couldn't find a price for " + joinAnd(names) + "."}
		}
	}
	if len(hits) > 0 && len(hits) < len(arr) {
		// "where's my headphones order" is answered with the headphones, among three orders.
		found = fmt.Sprintf("%d of %d %s", len(hits), len(arr), noun)
		arr, narrowed = hits, true
	} else if exact := r.echoedItems(arr); len(exact) > 0 && len(exact) < len(arr) {
		// The call named a kind some records are ("leave_type": "vacation"): those are the
		// answer, and the others are not related but of other kinds.
		found = fmt.Sprintf("%d of %d %s", len(exact), len(arr), noun)
		arr = exact
	} else if hits, rest := r.matchesOfCall(arr, termsOf); len(hits) > 0 && len(rest) > 0 {
		// A search answers with what it found nearby too: "running shoes" brings a running
		// watch. Those that match come first, and the count says which are which.
		match := "that match"
		if len(hits) == 1 {
			match = "that matches"
		}
		found = fmt.Sprintf("%d %s %s, and %d related", len(hits), countNoun(len(hits), noun), match, len(rest))
		arr = append(hits, rest...)
	} else if missing != "" {
		// "my refund for the socks" when no return is for socks: say so, and no more. Listing
		// the other records would present another item's refund as the answer. A word that
		// only qualifies the list's own thing ("my boston flight") may be said in other words
		// by the records (the flight to BOS): then they are shown after saying so.
		if !r.qualifies(missing, noun) {
			return noneFound(singular(noun), missing)
		}
		if i := r.leadingRecord(missing, arr); i >= 0 {
			// "the house policy" of a Home and a Car policy: the record whose name is well
			// ahead of the others' in meaning, however near, is the one it says in other words.
			found, arr = fmt.Sprintf("1 of %d %s", len(arr), noun), arr[i:i+1]
		} else {
			found = fmt.Sprintf("no %s for %s, only %s", singular(noun), missing, found)
		}
	} else if len(arr) > r.listLimit {
		arr = r.askedFirst(arr, termsOf)
	}
	if total, n := r.totalOf(arr, cur); total != "" {
		// "how much do i owe in tickets": the sum, not only the amounts to add up.
		if n == len(arr) {
			found += ", " + total + " in all"
		} else {
			found += fmt.Sprintf(", %s to pay on %d of them", total, n)
		}
	}
	if len(arr) == 1 {
		r.showIDs = true
		// One record asked about: its own lists are the details asked for ("when is my
		// dog due for his rabies shot" is in the dog's vaccinations).
		if p := r.withNestedLists(noun, arr[0], cur, found, nil); !p.empty() {
			return p
		}
	}
	if p := r.withReasons(noun, arr, cur, found); !p.empty() {
		return p
	}
	if p := r.withNamedLists(noun, arr, cur, found); !p.empty() {
		return p
	}
	var lines []string
	for i, item := range arr {
		if i == r.listLimit {
			lines = append(lines, fmt.Sprintf("- and %d more", len(arr)-i))
			break
		}
		if s := r.item(item, cur); s != "" {
			lines = append(lines, "- "+s)
		}
	}
	if len(lines) == 0 {
		return Piece{kind: pieceProse, text: "I found " + found + "."}
	}
	return Piece{kind: pieceList, found: found, text: strings.Join(lines, "\n"), missing: missing != ""}
}

// kindItems returns the records of arr of the kind the request asks for, whichever it names:
// the one with the extreme of a number ("which loan has the highest interest rate"), those a
// yes-or-no field asked about says yes of ("any overdue books"), the next ("when is our next
// game"), those not done with ("when are my next visits") or the latest ("what was my net pay last time"). Nil for none.
func (r renderer) kindItems(arr []any) []any {
	for _, pick := range []func([]any) []any{r.extremeItems, r.flaggedItems, r.nextItems, r.pendingItems, r.latestItems} {
		if hits := pick(arr); len(hits) > 0 {
			return hits
		}
	}
	return nil
}

// backToEarlier returns the records of arr a follow-up's earlier request named, when the
// follow-up points back at them ("it", "that") and names no record of its own by a word of
// their values; nil otherwise.
func (r renderer) backToEarlier(arr []any, noun string, termsOf func() [][]string) []any {
	if r.earlier == "" || len(arr) < 2 || !slices.ContainsFunc(r.askedWord, func(w lang.Word) bool { return backPointers[w.Lower] }) {
		return nil
	}
	values, ws := recordTerms(arr), r.askedWord
	for i, w := range ws {
		if i+1 < len(ws) && backPointers[ws[i+1].Lower] {
			continue // "collect it": what is done to the thing pointed back at
		}
		if slices.ContainsFunc(lang.Terms(w.Lower), func(t string) bool { return splits(t, values) && !r.generic(t) }) {
			return nil // "and the hokusai, is it ready": its own words name the record
		}
	}
	prev := r.earlierRequest()
	if hits := prev.namedItems(arr, termsOf); len(hits) > 0 {
		return hits
	}
	return prev.tellingItems(arr, noun)
}

// withNestedLists renders a list of one record whose own members hold lists of records:
// the record's line, then each of its lists (those keep says yes of, when keep is not nil).
// It returns an empty piece when the record has no such list.
func (r renderer) withNestedLists(noun string, item any, cur string, found string, keep func(recordList) bool) Piece {
	obj, ok := item.([]field)
	if !ok {
		return Piece{}
	}
	head := ""
	if h := r.headField(obj); h >= 0 {
		head = headText(obj[h])
	}
	inner := r
	inner.inRecord = true
	// A question that names one of the record's own facts by its head word ("who is maya's
	// teacher") asks for none of its lists (her subjects) unless it names something in them.
	namesFact := slices.ContainsFunc(obj, func(f field) bool {
		_, isList := f.val.([]any)
		return !isList && r.names(lastWord(lang.Humanise(f.key)))
	})
	var blocks []string
	for _, l := range r.recordLists(obj) {
		if namesFact && !l.named && !r.asksAbout(l.noun, l.arr) || keep != nil && !keep(l) {
			continue
		}
		if b := inner.list(l.noun, l.arr, cur); b.kind == pieceList {
			if head != "" {
				b.found += " for " + head
			}
			blocks = append(blocks, lang.Capitalise(b.found)+":\n"+b.text)
		}
	}
	if len(blocks) == 0 {
		return Piece{}
	}
	line := r.item(item, cur)
	return Piece{kind: pieceList, found: found, text: "- " + line + "\n" + strings.Join(blocks, "\n")}
}

// recordList is a list of records a record holds, and the noun it reads under.
type recordList struct {
	noun  string
	arr   []any
	named bool // it sits in an object the request names by its key
}

// recordLists returns the lists of records obj holds as members, then those held by an object
// member the request names ("the food" of a booking whose food holds the children's choices)
// or names something in ("ava" of the food's allergies), each under the object's key and its
// own ("food choices").
func (r renderer) recordLists(obj []field) []recordList {
	var out, inner []recordList
	for _, f := range obj {
		switch v := f.val.(type) {
		case []any:
			if len(v) > 0 && !allScalars(v) {
				out = append(out, recordList{noun: lang.Humanise(f.key), arr: v})
			}
		case []field:
			label := lang.Humanise(f.key)
			named := r.names(lastWord(label))
			for _, g := range v {
				arr, ok := g.val.([]any)
				if noun := label + " " + lang.Humanise(g.key); ok && len(arr) > 0 && !allScalars(arr) && (named || r.asksAbout(noun, arr)) {
					inner = append(inner, recordList{noun: noun, arr: arr, named: named})
				}
			}
		}
	}
	return append(out, inner...)
}

// withReasons renders a few records, each with its own lists, for a request asking why
// ("how come the water bill went up", of two bills): their charges say why. It returns an
// empty piece for any other request, or when no record has a list of its own.
func (r renderer) withReasons(noun string, arr []any, cur, found string) Piece {
	if len(arr) < 2 || len(arr) > reasonRecords || !r.asksWhy() {
		return Piece{}
	}
	// Every line may be the reason, not only those in the request's words ("the water bill":
	// its leak inspection too).
	plain := r
	plain.answer("")
	plain.earlier, plain.earlierTerm = "", nil
	return r.withOwnLists(plain, noun, arr, cur, found, nil)
}

var reasonRecords = int(lang.Number("reasonRecords")) // see language.txt

// withNamedLists renders a few records with those of their own lists the request names by
// their noun ("what tyres are they putting on", of appointments each with its tyres): the
// record's line alone says none of them. It returns an empty piece when the request names
// no such list, or the records are too many to show so.
func (r renderer) withNamedLists(noun string, arr []any, cur, found string) Piece {
	if len(arr) < 2 || len(arr) > reasonRecords {
		return Piece{}
	}
	return r.withOwnLists(r, noun, arr, cur, found, func(l recordList) bool { return r.namesList(l.noun) })
}

// withOwnLists renders each of arr's records with its own lists as lister renders them
// (those keep says yes of, when keep is not nil), or by its line alone where it shows none.
// It returns an empty piece when no record shows a list.
func (r renderer) withOwnLists(lister renderer, noun string, arr []any, cur, found string, keep func(recordList) bool) Piece {
	var parts []string
	nested := false
	for _, item := range arr {
		if p := lister.withNestedLists(noun, item, cur, found, keep); !p.empty() {
			nested = true
			parts = append(parts, p.text)
		} else if s := r.item(item, cur); s != "" {
			parts = append(parts, "- "+s)
		}
	}
	if !nested {
		return Piece{}
	}
	return Piece{kind: pieceList, found: found, text: strings.Join(parts, "\n")}
}

// countNoun is noun (a plural) for n things.
func countNoun(n int, noun string) string {
	if n == 1 {
		return singular(noun)
	}
	return noun
}

// scalarList joins up to listLimit scalars of arr ("a, b and 3 more"), read by their key.
func (r renderer) scalarList(key string, arr []any) string {
	var items []string
	for i, v := range arr {
		if i == r.listLimit {
			items = append(items, fmt.Sprintf("%d more", len(arr)-i))
			break
		}
		if s := scalar(key, v); s != "" {
			items = append(items, s)
		}
	}
	return joinAnd(items)
}

// allScalars reports whether arr holds no objects or arrays: a list of values, not records.
func allScalars(arr []any) bool {
	for _, v := range arr {
		switch v.(type) {
		case []any, []field:
			return false
		}
	}
	return true
}

// unfiltered reports whether a list the call asked for by a field of its records
// ("amenity": "cabana") holds records whose field carries none of the argument's words: the
// service did not choose by it (a fixture answers every call alike), so which records the
// request names is still to be found. A search's query names no field: what it returns
// beside its matches is related.
func (r renderer) unfiltered(arr []any) bool {
	return slices.ContainsFunc(arr, func(item any) bool {
		obj, _ := item.([]field)
		return slices.ContainsFunc(obj, func(f field) bool {
			want, ok := r.argKeys[strings.ToLower(f.key)]
			terms := valueTerms(f.val)
			return ok && !slices.ContainsFunc(want, func(t string) bool { return terms[t] })
		})
	})
}

// sharesTerm reports whether two labels share a term that is no light noun.
func sharesTerm(a, b string) bool {
	bs := lang.Terms(b)
	return slices.ContainsFunc(lang.Terms(a), func(t string) bool { return !lang.IsLightNoun(t) && slices.Contains(bs, t) })
}

// namesHeldBeside reports whether the request, after the words of thing, names something a
// record of arr holds as a value (an author, a place): thing is then that record called in
// words of the user's own, a kind the records need not state, and no missing record. A verb
// ("shipped") says what is asked of the thing, and words before it what is asked for; so
// does a word only a record's state holds ("is my chaise longue ready yet", of a job "ready
// for collection"): it says how the thing stands, not which record it is.
func (r renderer) namesHeldBeside(arr []any, thing string) bool {
	values := valueTerms(withoutStates(arr))
	tf := strings.Fields(strings.ToLower(thing))
	if len(tf) == 0 {
		return false
	}
	ws := lang.ScanWords(lang.OwnPart(r.asked))
	at := slices.IndexFunc(ws, func(w lang.Word) bool { return w.Lower == tf[len(tf)-1] })
	if at < 0 {
		return false
	}
	for _, w := range ws[at+1:] {
		if lang.IsStopword(w.Lower) || timeNouns[w.Lower] || calendarWords[w.Lower] || strings.HasSuffix(w.Lower, "ed") || strings.HasSuffix(w.Lower, "ing") {
			continue
		}
		if slices.ContainsFunc(lang.Terms(w.Lower), func(t string) bool { return values[t] && !r.generic(t) }) {
			return true
		}
	}
	return false
}

// namesOwnThing reports whether the request's own words name a thing, of the agent's trade
// or not ("how many loans is that"), beyond verbs, light nouns, words of time and the frame
// of a question: "how many am i getting" names none.
func (r renderer) namesOwnThing() bool {
	for _, w := range lang.ScanWords(r.askedMain) {
		if strings.HasSuffix(w.Lower, "ing") || strings.HasSuffix(w.Lower, "ed") || frameWords[w.Lower] || timeNouns[w.Lower] {
			continue
		}
		if slices.ContainsFunc(lang.Terms(w.Lower), func(t string) bool {
			return !lang.IsStopword(t) && !lang.IsNumberTerm(t) && !lang.IsLightNoun(t) && !timeNouns[t]
		}) {
			return true
		}
	}
	return false
}

// earlierNamesNoun reports whether a follow-up's earlier words name a list by its noun
// ("when's my next appointment" of appointments).
func (r renderer) earlierNamesNoun(noun string) bool {
	return slices.ContainsFunc(lang.Terms(noun), func(t string) bool { return !lang.IsLightNoun(t) && slices.Contains(r.earlierTerm, t) })
}

// withoutStates returns v with the fields that say how a record stands (stateKeys: "status")
// left out, however deep.
func withoutStates(v any) any {
	switch x := v.(type) {
	case []field:
		out := make([]field, 0, len(x))
		for _, f := range x {
			if !stateKeys[lastWord(lang.Humanise(f.key))] {
				out = append(out, field{key: f.key, val: withoutStates(f.val)})
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = withoutStates(c)
		}
		return out
	}
	return v
}
