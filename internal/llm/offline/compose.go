package offline

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// compose narrates the tool results that follow the last human message as one reply, the
// way a concierge would: each result in turn with a transition that names its topic, and
// a plain acknowledgment of what could not be fetched. No JSON, status word or tool name
// reaches the text.
func (m *Model) compose(req *request) string {
	var pieces []answer.Piece
	var results []toolResult
	question := req.asked()
	domain := func() map[string]bool { return m.domainTerms(req) }
	held := make([]map[string]bool, len(req.results))
	for i, res := range req.results {
		if len(req.results) > 1 { // a lone result has no others to hold its words
			held[i] = answer.HeldTerms(res.Result)
		}
	}
	looked, nowhere := false, true
	further := m.lookedFurther(req)
	var keep []bool
	if further {
		keep = m.furtherKept(req, question, domain)
	}
	for i, res := range req.results {
		if further && !keep[i] {
			continue // looked further (lookFurther): another result holds more of what was asked
		}
		r := res.Result
		r.Elsewhere = othersHeld(held, i) // the terms the turn's other results hold
		r.Today = req.today
		p := answer.Narrate(r, question, m.opts.listLimit, domain)
		looked = looked || res.round > 1
		nowhere = nowhere && (p.OffTopic() || res.round > 1 && answer.HoldsNothingAsked(r, question, m.opts.listLimit, domain))
		if res.round > 1 && p.OffTopic() {
			continue // looked up elsewhere (lookElsewhere) and no nearer what was asked
		}
		pieces, results = append(pieces, p), append(results, res)
	}
	act := route.UnofferedAction(lang.OwnPart(req.lastHuman()), m.offered(req.plainTools()))
	if looked && nowhere && len(pieces) > 0 && act == "" {
		// The agent's other tools were looked in, and none holds a word of what was asked
		// ("can i have a car at my dorm"): that is the answer, not the first result's data.
		if p, ok := pieces[0].HeldNowhere(); ok {
			pieces, results = []answer.Piece{p}, results[:1]
		}
	}
	// A look elsewhere that found nothing for the thing named is no answer, whatever tool it
	// asked ("no receipt for the seattle" beside the Seattle reservation).
	reply, found := answer.Reply(pieces, func(i int) bool { return results[i].round == 1 && asksForTool(req, results[i].Name) })
	if act != "" && found > 0 && !refuses(reply, act) {
		// Asked to act ("can I cancel it?") with tools that only look things up: say so
		// first, then what the lookups found, rather than answer as if the data were the act.
		reply = "I can look this up, but I cannot " + act + " it for you here.\n\n" + reply
	}
	return reply
}

// refusals say an act cannot be done (see language.txt).
var refusals = lang.List("refusals")

// refuses reports whether reply's first paragraph already says it cannot do act, as a tool's
// answer template may ("I can't close or delete an account from here."): the lead would say
// it a second time.
func refuses(reply, act string) bool {
	first, _, _ := strings.Cut(reply, "\n\n")
	var refused, named bool
	for _, w := range lang.ScanWords(first) {
		word := strings.ReplaceAll(w.Lower, "'", "")
		refused = refused || refusals[word]
		named = named || word == act
	}
	return refused && named
}

// asksForTool reports whether the request uses a word of the named tool's description (not
// a light noun): then what that tool found, or did not, is part of the answer.
func asksForTool(req *request, name string) bool {
	var asked map[string]bool
	for _, t := range req.plainTools() {
		if t.Function.Name != name {
			continue
		}
		if asked == nil {
			asked = map[string]bool{}
			for _, t := range lang.Terms(lang.OwnPart(req.lastHuman())) {
				asked[t] = !lang.IsLightNoun(t)
			}
		}
		if slices.ContainsFunc(descriptionTerms(t.Function.Description), func(w string) bool { return asked[w] }) {
			return true
		}
	}
	return false
}

// descriptionTerms returns the terms of a tool's description without its examples, worked out
// once per description (every answer reads them); they are shared and must not be modified.
func descriptionTerms(description string) []string {
	return descriptionTermsKept.Get(description, func() []string {
		desc, _ := splitToolExamples(description)
		return lang.Terms(desc)
	})
}

// descriptionTermsKept holds descriptionTerms: descriptions come from definitions, never from
// users.
var descriptionTermsKept = lang.NewCache[string, []string](1024)

// lookElsewhere calls other tools of the sub-agent when the one result so far holds none of
// the words the request asks with ("where are my socks?" answered with returns, none for
// socks: the socks may be an order; "when is pilates" answered with the membership). It looks
// once: the reply then says what was found, leaving out looks that held no more (see compose).
func (m *Model) lookElsewhere(req *request) []llms.ToolCall {
	tools := req.plainTools()
	if len(req.results) != 1 || len(tools) < 2 {
		return nil
	}
	res := req.results[0]
	if !answer.HoldsNothingAsked(res.Result, req.asked(), m.opts.listLimit, func() map[string]bool { return m.domainTerms(req) }) {
		return m.lookFurther(req)
	}
	// It looks among the user's records: a search finds whatever it is given (lodges in Oslo
	// for "Oslo"), so what it returns shows nothing of the thing asked.
	var rest []llms.Tool
	for _, t := range tools {
		if t.Function.Name != res.Name && !answer.NeedsArguments(t.Function.Parameters) {
			rest = append(rest, t)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	sub := &request{system: req.system, humans: req.humans, tools: rest, nCalls: req.nCalls, encode: req.encode}
	if len(rest) <= maxLooks {
		// Every one of them is asked: the request's sentence would only say which first, and
		// reading it costs milliseconds. Its words still do.
		sub.encode = noSentence
	}
	calls, _ := m.useTools(sub, true)
	if len(calls) > 1 {
		calls = calls[:1]
	}
	// The tools the request's words rank below it may hold the thing as well ("that scratch
	// they say i put on the car": neither the reservations nor the receipts, but the damage
	// claims): they are asked too, up to maxLooks in all.
	for _, t := range rest {
		if len(calls) >= maxLooks || len(calls) > 0 && calls[0].FunctionCall.Name == t.Function.Name {
			continue
		}
		calls = append(calls, newToolCall(req.nCalls+len(calls)+1, t.Function.Name, map[string]any{}))
	}
	return calls
}

// noSentence encodes no sentence: a request read by its words alone.
func noSentence(string) []float32 { return nil }

// lookFurther calls the other tools of the sub-agent whose descriptions name a word of the
// request the one result so far does not hold, when it holds some ("how many meeting room
// hours do i have left" answered with bookings of meeting rooms: the membership's description
// names the credit hours). compose then keeps the results that hold more of it (furtherKept).
func (m *Model) lookFurther(req *request) []llms.ToolCall {
	if lang.OwnPart(req.lastHuman()) != req.lastHuman() {
		return nil // a follow-up: its own words are few, the earlier ones chose the tool
	}
	res := req.results[0]
	terms, held := answer.HeldOfAsked(res.Result, req.asked(), m.opts.listLimit, func() map[string]bool { return m.domainTerms(req) }, m.tradeTerms(req))
	if len(held) == 0 || len(held) == len(terms) {
		return nil
	}
	var calls []llms.ToolCall
	for _, t := range req.plainTools() {
		if t.Function.Name == res.Name || answer.NeedsArguments(t.Function.Parameters) || len(calls) >= maxLooks {
			continue
		}
		doc := lang.Terms(toolDoc(t))
		if slices.ContainsFunc(terms, func(w string) bool { return !slices.Contains(held, w) && slices.Contains(doc, w) }) {
			calls = append(calls, newToolCall(req.nCalls+len(calls)+1, t.Function.Name, map[string]any{}))
		}
	}
	return calls
}

// lookedFurther reports whether the results after the first are the look further (see
// lookFurther) the first asked for.
func (m *Model) lookedFurther(req *request) bool {
	if len(req.results) < 2 || req.results[0].round != 1 || req.results[1].round == 1 || len(req.plainTools()) < 2 || len(req.routingTools()) > 0 {
		return false
	}
	// Each call's result may come in a message of its own: the tools the request itself chose
	// ("deals on sneakers, also promo codes") are no look further.
	chosen, _ := m.useTools(&request{system: req.system, humans: req.humans, tools: req.tools, encode: req.encode}, true)
	if slices.ContainsFunc(chosen, func(c llms.ToolCall) bool { return c.FunctionCall.Name == req.results[1].Name }) {
		return false
	}
	first := *req
	first.results = req.results[:1]
	if answer.HoldsNothingAsked(first.results[0].Result, first.asked(), m.opts.listLimit, func() map[string]bool { return m.domainTerms(req) }) {
		return false // looked elsewhere instead
	}
	calls := m.lookFurther(&first)
	return slices.EqualFunc(calls, req.results[1:], func(c llms.ToolCall, r toolResult) bool { return c.FunctionCall.Name == r.Name })
}

// furtherKept says which results of a look further (lookFurther) answer: those that hold
// every word of the request the first result holds, and more, in its place; the first when
// none does.
func (m *Model) furtherKept(req *request, question string, domain func() map[string]bool) []bool {
	keep := make([]bool, len(req.results))
	trade := m.tradeTerms(req)
	_, first := answer.HeldOfAsked(req.results[0].Result, question, m.opts.listLimit, domain, trade)
	for i, res := range req.results[1:] {
		_, h := answer.HeldOfAsked(res.Result, question, m.opts.listLimit, domain, trade)
		keep[i+1] = len(h) > len(first) && !slices.ContainsFunc(first, func(t string) bool { return !slices.Contains(h, t) })
	}
	keep[0] = !slices.Contains(keep, true)
	return keep
}

// tradeTerms are the terms of the sub-agent's system prompt: the words of its trade ("student
// loans"), which every tool's data may hold and which tell no tool from another. They are
// worked out once per prompt: stemming it on every answer was a thirtieth of the server's CPU.
// Callers must not modify them.
func (m *Model) tradeTerms(req *request) map[string]bool {
	return m.trades.Get(req.system, func() map[string]bool {
		out := map[string]bool{}
		for _, t := range lang.Terms(req.system) {
			out[t] = true
		}
		return out
	})
}

var maxLooks = int(lang.Number("maxLooks")) // see language.txt

// offeredTerms are the stems of what tools offer: their names and descriptions; nil when there
// are no tools.
func offeredTerms(tools []llms.Tool) map[string]bool {
	if len(tools) == 0 {
		return nil
	}
	offered := map[string]bool{}
	for _, t := range tools {
		for _, term := range lang.Terms(toolDoc(t)) {
			offered[term] = true
		}
	}
	return offered
}

// othersHeld is the union of held but its i-th, nil when that is empty.
func othersHeld(held []map[string]bool, i int) map[string]bool {
	var out map[string]bool
	for j, h := range held {
		if j == i {
			continue
		}
		for t := range h {
			if out == nil {
				out = map[string]bool{}
			}
			out[t] = true
		}
	}
	return out
}

// asked is the last human message with the initials of the tools' words spelled out ("pto",
// "paid time off"): a result holds the words, seldom the initials. It is worked out once per
// request (whether to look elsewhere, then the reply each read it): spelling out initials
// reads every tool's description.
func (r *request) asked() string {
	if !r.askedSet {
		var docs []string
		for _, t := range r.plainTools() {
			docs = append(docs, toolDoc(t))
		}
		r.askedText, r.askedSet = lang.SpellOut(r.lastHuman(), docs), true
	}
	return r.askedText
}
