package answer

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// Result is one tool result the reply narrates.
type Result struct {
	Name    string         // the tool's name
	Content string         // what it returned, usually the JSON of an EnricherResponse
	Call    *llms.ToolCall // the call it answers, when the history has it
	// Elsewhere are the terms the turn's other results hold as written (see HeldTerms): a
	// word of the request one of them holds names its thing, so a record here that only
	// comes near it in meaning is another thing.
	Elsewhere map[string]bool
	// Today is the day the system prompt states as today (see TodayIn), zero when unknown:
	// the days a request names from it ("last sunday") pick the records dated in them.
	Today time.Time

	decoded *decodedContent // Content decoded once for every copy (see NewResult)
}

// decodedContent is a result's Content decoded, kept because a turn reads one result several
// times (what it holds, whether it answers, then its narration) and decoding was a twentieth
// of a turn's CPU. The decoded value is only ever read.
type decodedContent struct {
	once sync.Once
	v    any
	err  error

	mu      sync.Mutex
	spelled map[string]string // request text -> as the data spells it (see spelledAs)

	heldOnce sync.Once
	held     map[string]bool // the terms the content's data holds (see dataTerms)

	rendered keptRenderer // guarded by mu (see requestRenderer)
}

// keptRenderer is the renderer a result made last, with the request and list limit it was
// made for; made is false until there is one.
type keptRenderer struct {
	made      bool
	asked     string
	listLimit int
	r         renderer
}

// NewResult returns a Result whose content is decoded at most once, however often it and
// its copies are read.
func NewResult(name, content string) Result {
	return Result{Name: name, Content: content, decoded: &decodedContent{}}
}

// value decodes the result's content, keeping object member order.
func (res Result) value() (any, error) {
	decode := func() (any, error) { return decodeOrdered(strings.TrimSpace(res.Content)) }
	if res.decoded == nil {
		return decode()
	}
	d := res.decoded
	d.once.Do(func() { d.v, d.err = decode() })
	return d.v, d.err
}

// spelledAs is spellAsData of asked against the result's decoded content v, worked out once
// per request text: the checks and the narration of one result each read the request so. A
// result from NewResult lives for one model request, whose trade terms dom do not change.
func (res Result) spelledAs(asked string, v any, dom map[string]bool) string {
	d := res.decoded
	if d == nil {
		return spellAsData(asked, v, dom)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.spelled[asked]; ok {
		return s
	}
	if d.spelled == nil {
		d.spelled = map[string]string{}
	}
	s := spellAsData(asked, v, dom)
	d.spelled[asked] = s
	return s
}

// dataTerms returns heldTerms of the result's data, worked out once per result: whether it
// answers, what it holds of the request and its narration each read them. Callers must not
// modify the map.
func (res Result) dataTerms() map[string]bool {
	terms := func() map[string]bool {
		v, _ := res.value()
		obj, _ := v.([]field)
		data, _ := member(obj, "data")
		return heldTerms(data)
	}
	d := res.decoded
	if d == nil {
		return terms()
	}
	d.heldOnce.Do(func() { d.held = terms() })
	return d.held
}

// okData decodes a result and returns it whole and its data, with ok false unless its status
// is ok.
func okData(res Result) (v, data any, ok bool) {
	v, err := res.value()
	if err != nil {
		return nil, nil, false
	}
	obj, _ := v.([]field)
	if status, _ := member(obj, "status"); status != resultOK {
		return nil, nil, false
	}
	data, _ = member(obj, "data")
	return v, data, true
}

// HeldTerms returns the terms of the values in a result's data, nil when it holds none.
func HeldTerms(res Result) map[string]bool {
	_, data, ok := okData(res)
	if !ok {
		return nil
	}
	return valueTerms(data)
}

// Narrate renders one tool result as a piece of the reply. asked is the last user message,
// listLimit caps the records a list shows, and domain returns the terms of the agent's trade.
func Narrate(res Result, asked string, listLimit int, domain func() map[string]bool) Piece {
	content := strings.TrimSpace(res.Content)
	t := topicOf(res.Name, res.Call)
	if note, ok := failureNote(content); ok {
		return t.unavailable(note)
	}
	if !strings.HasPrefix(content, "{") && !strings.HasPrefix(content, "[") {
		return prosePiece(content, t) // a sub-agent's own words
	}
	v, err := res.value()
	if err != nil {
		return t.unavailable("") // never show what could not be read
	}
	r := askedRenderer(res, listLimit, asked, v, domain())
	r.elsewhere = res.Elsewhere
	obj, isObj := v.([]field)
	status, _ := member(obj, "status")
	s, _ := status.(string)
	if !isObj || !slices.Contains([]string{resultOK, resultPartial, resultUnavailable, resultError}, s) {
		return orNothing(r.data(v, t), t)
	}
	data, _ := member(obj, "data")
	note, _ := member(obj, "note")
	noteText, _ := note.(string)
	// A result's answer is the agent team's own statement of its data: it is said as written,
	// in place of the model's narration of the data.
	said := func() Piece {
		p := orNothing(r.data(data, t), t)
		if !p.missing { // "no return for the socks" is about the socks
			a := r.askedThings(res.dataTerms(), false)
			if p.offTopic = a.offTopic(); p.offTopic {
				p.absent, p.absentIn = r.absentPhrase(a), t.noun
			}
		}
		return p
	}
	if thing := r.unasked(data); thing != "" {
		said = func() Piece { return notInData(thing, t) }
	}
	if answer, _ := member(obj, "answer"); answer != nil {
		if a, ok := answer.(string); ok && strings.TrimSpace(a) != "" {
			// A template states its data whatever was asked, so its data is judged as the
			// narration's would be: "I forgot my password" is not answered by the orders.
			said = func() Piece {
				return Piece{kind: pieceProse, text: strings.TrimSpace(a), offTopic: r.offTopic(res.dataTerms(), false)}
			}
		}
	}
	switch s {
	case resultUnavailable, resultError:
		return t.unavailable(noteText)
	case resultPartial:
		caveat := "Some of this may be incomplete right now"
		if n := cleanNote(noteText); n != "" && !restatesFailure(n) {
			caveat += ": " + n
		}
		return said().withCaveat(caveat + ".")
	}
	return said()
}

// Reply arranges the narrated results of one turn as one reply and says how many found
// something. asksFor reports whether the request names what the i-th result's tool is for:
// then that it holds nothing about the thing asked is part of the answer.
func Reply(pieces []Piece, asksFor func(i int) bool) (string, int) {
	var found, failed []Piece
	for i, s := range pieces {
		s.named = asksFor(i)
		if s.missing && !s.unheld && s.named {
			s.missing = false // "my refund for the socks": that no return is for them is the answer
		}
		switch {
		case s.kind == pieceFailure:
			failed = append(failed, s)
		case !s.empty():
			found = append(found, s)
		}
	}
	if slices.ContainsFunc(found, func(p Piece) bool { return !p.missing }) {
		// Another tool found the thing the request names ("where are my socks": an order,
		// not a return): the list that had nothing about it is no answer.
		found = slices.DeleteFunc(found, func(p Piece) bool { return p.missing })
	}
	if slices.ContainsFunc(found, func(p Piece) bool { return !p.offTopic && !p.missing }) {
		// "when is pilates": the classes that hold pilates answer it, not the membership. A
		// result of a tool the request names ("is my flight to boston on time", the flight
		// to BOS) stays.
		found = slices.DeleteFunc(found, func(p Piece) bool { return p.offTopic && !p.named })
	}
	found = sayNoneOnce(found)
	found, lead := sharedLead(found)
	reply := arrange(found, failed)
	if lead != "" {
		reply = lead + "\n\n" + reply
	}
	return reply, len(found)
}

// HoldsNothingAsked reports whether a result's data holds none of the words the request asks
// with (see offTopic): "when is pilates" answered with the membership, "where are my socks"
// with returns none of which is for socks. Another tool may hold them. The arguments are
// Narrate's.
func HoldsNothingAsked(res Result, asked string, listLimit int, domain func() map[string]bool) bool {
	v, _, ok := okData(res)
	if !ok {
		return false
	}
	a := askedRenderer(res, listLimit, asked, v, domain()).askedThings(res.dataTerms(), true)
	// A follow-up that names a thing of its own and points back at nothing ("am i on the
	// pickleball court" after "whats my hoa balance") asks of that thing: data holding the
	// earlier words does not answer it, and another tool may hold the thing. One that points
	// back ("can i cancel it?") asks of the earlier record.
	return a.offTopic() || len(a.asked) > 0 && !slices.ContainsFunc(a.asked, a.held) && !pointsBack(lang.OwnPart(asked))
}

// pointsBack reports whether text has a word pointing back at what an earlier message named
// ("it", "that").
func pointsBack(text string) bool {
	return slices.ContainsFunc(lang.ScanWords(text), func(w lang.Word) bool { return backPointers[w.Lower] })
}

// HeldOfAsked returns the terms of the request's own words that may say what is asked of data
// (not stopwords, numbers, light nouns, the frame of a question, words of asking or the
// agent's trade, the terms of trade) and, of them, those res's data holds as written or
// misspelt; both nil when res holds no data.
func HeldOfAsked(res Result, asked string, listLimit int, domain func() map[string]bool, trade map[string]bool) (terms, held []string) {
	v, _, ok := okData(res)
	if !ok {
		return nil, nil
	}
	r := askedRenderer(res, listLimit, asked, v, domain())
	a := askedOf{known: res.dataTerms()}
	for _, w := range lang.ScanWords(r.askedMain) {
		if frameWords[w.Lower] || askingWords(w.Lower) || lang.IsStopword(w.Lower) {
			continue
		}
		for _, t := range lang.Terms(w.Lower) {
			if trade[t] || lang.IsStopword(t) || lang.IsNumberTerm(t) || lang.IsLightNoun(t) || timeNouns[t] || slices.Contains(terms, t) {
				continue
			}
			terms = append(terms, t)
			if a.held(t) {
				held = append(held, t)
			}
		}
	}
	return terms, held
}

// askedRenderer is the renderer of payload v for the request asked (a follow-up's earlier
// request read apart), its typos spelled as v and the domain's words spell them.
func askedRenderer(res Result, listLimit int, asked string, v any, dom map[string]bool) renderer {
	r := res.requestRenderer(listLimit, asked, v, dom)
	if !res.Today.IsZero() {
		r.within, _ = relativeSpan(lang.ScanWords(lang.OwnPart(asked)), res.Today)
	}
	return r
}

// requestRenderer is askedRenderer but for the days the request names from today, kept for the
// last request text and list limit it was made for: whether the result answers, what it holds
// of the request and its narration each read the request so. A result from NewResult lives
// for one model request, whose call and trade terms dom do not change; Today may be set on a
// copy (the reply dates records, the checks before it need not), so the days are not kept.
// Renderers only read the maps and slices they share.
func (res Result) requestRenderer(listLimit int, asked string, v any, dom map[string]bool) renderer {
	d := res.decoded
	if d == nil {
		return newRequestRenderer(res, listLimit, asked, v, dom)
	}
	d.mu.Lock()
	kept := d.rendered
	d.mu.Unlock()
	if kept.made && kept.asked == asked && kept.listLimit == listLimit {
		return kept.r
	}
	r := newRequestRenderer(res, listLimit, asked, v, dom)
	d.mu.Lock()
	d.rendered = keptRenderer{made: true, asked: asked, listLimit: listLimit, r: r}
	d.mu.Unlock()
	return r
}

// newRequestRenderer makes requestRenderer's renderer.
func newRequestRenderer(res Result, listLimit int, asked string, v any, dom map[string]bool) renderer {
	own := lang.OwnPart(asked)
	r := newRenderer(listLimit, res.Call, res.spelledAs(own, v, dom))
	r.domain = dom
	if own != asked {
		// The earlier request is read as the data spells it too: "how many metres of it"
		// after "...for the chesterfeild" is about the Chesterfield.
		r.earlier = strings.ToLower(res.spelledAs(lang.EarlierPart(asked), v, dom))
		r.earlierTerm = requestTerms(r.earlier)
	}
	return r
}

// offTopic reports whether data, whose terms are known (heldTerms), holds none of the words
// the request asks with, when it asks with any beyond the agent's trade, the called tool's
// name, light nouns and numbers: "when is pilates" answered with the membership, which says
// nothing of pilates. A word the data uses or misspells counts as held; one only near in
// meaning does not, since another result that holds it takes this one's place.
func (r renderer) offTopic(known map[string]bool, strict bool) bool {
	return r.askedThings(known, strict).offTopic()
}

// askedOf is what a request asks of one result's data: the terms it asks with that may name
// a thing (see thingTerms), a follow-up's earlier ones, and the terms data holds.
type askedOf struct {
	asked, earlier []string
	known          map[string]bool
}

// held reports whether data holds term t, or a word t misspells.
func (a askedOf) held(t string) bool {
	return a.known[t] || len(t) > minTypoLetters && misspells(t, a.known)
}

// offTopic: see [renderer.offTopic].
func (a askedOf) offTopic() bool {
	// A follow-up's earlier words may be what the data is about ("when is it due" after "how
	// much is my car payment").
	return len(a.asked) > 0 && !slices.ContainsFunc(a.asked, a.held) && !slices.ContainsFunc(a.earlier, a.held)
}

// askedThings reads what the request asks of data whose terms are known (heldTerms); strict
// reads a follow-up in the trade's words only as asking what its earlier words name.
func (r renderer) askedThings(known map[string]bool, strict bool) askedOf {
	var words []string
	ws := lang.ScanWords(r.askedMain)
	for i, w := range ws {
		if (strings.HasSuffix(w.Lower, "ing") || strings.HasSuffix(w.Lower, "ed")) && !slices.ContainsFunc(lang.Terms(w.Lower), func(t string) bool { return known[t] }) || frameWords[w.Lower] {
			continue // verbs ("seeing", "shipped") and the frame of a question ("how long") name no thing data would hold
		}
		if i >= 2 && copulas[ws[i-1].Lower] && !lang.IsStopword(ws[i-2].Lower) && !whWords[ws[i-2].Lower] && !known[w.Lower] {
			continue // "my email is wrong": what is said of the thing named before, not a thing
		}
		words = append(words, lang.Terms(w.Lower)...)
	}
	a := askedOf{asked: r.thingTerms(words, strict), earlier: r.earlierTerm, known: known}
	// A follow-up in the trade's words only ("why's it more than last month" after "how much
	// do i owe for november") is about what the earlier words name, unless the data holds one
	// of its own words ("when does it charge next", the pass's next charge).
	if strict && len(a.asked) == 0 && !slices.ContainsFunc(words, func(t string) bool { return a.held(t) && !lang.IsStopword(t) }) {
		a.asked, a.earlier = r.thingTerms(a.earlier, true), nil
	}
	return a
}

// absentPhrase returns the words of the request that name what the data a asks of holds
// nothing about ("potty training" of "do they help with potty training at daycare", of the
// children), or "". Only a question whether, of one thing, in words none of which the data
// holds or comes near in meaning, is read so: anything else may be answered by data in other
// words.
func (r renderer) absentPhrase(a askedOf) string {
	if r.scoped || r.earlier != "" || !a.offTopic() {
		return "" // held after all, a follow-up, or a search's results, which are what it was asked for
	}
	if own := lang.ScanWords(lang.OwnPart(r.asked)); len(own) == 0 || !auxiliaries[own[0].Lower] || severalClauses(lang.OwnPart(r.asked)) {
		// Only a question whether ("can i have a car at my dorm") names a thing by itself; a
		// wh-question's words ask of the thing the data is about.
		return ""
	}
	known := a.known
	if slices.ContainsFunc(r.askedWord, func(w lang.Word) bool { return r.asksOfData(w.Lower, known) }) {
		return ""
	}
	// A word near the agent's trade names the trade, not a thing of its own ("dorm" of "can i
	// have a car at my dorm", of a dorms agent): the thing is what the other words name.
	things := slices.DeleteFunc(slices.Clone(a.asked), func(t string) bool { return nearAny(t, r.domain, tradeCloseness) })
	if len(things) == 0 || slices.ContainsFunc(things, func(t string) bool { return nearAny(t, known, claimCloseness) }) {
		return "" // the data may say it in other words ("my plane" of flights, "credits" of points)
	}
	return absentRun(lang.ScanWords(r.askedMain), things, a.held)
}

// asksOfData reports whether w, a word of the request, says it asks something of data whose
// words it need not use: an amount or rank ("do i owe the dentist money"), a second thing ("can
// i bring a friend or am i out of passes"), a question inside ("can u check where my package
// is"), or a word the data holds ("do my socks come in red", of orders of socks).
func (r renderer) asksOfData(w string, known map[string]bool) bool {
	return askingWords(w) || clauseJoins[w] || askWords[w] ||
		!lang.IsStopword(w) && slices.ContainsFunc(lang.Terms(w), func(t string) bool { return known[t] })
}

// absentRun returns the first run of words of ws whose terms are among asked: with a word in
// -ing after it that data does not hold ("potty training"), up to a word of a phrasal verb ("my
// dhl delivery" of "has my dhl delivery shown up"). A run that follows a word of content, or
// is only what is done ("move" of "can you move my flight", "fill" of "did i fill out"), names
// no thing: then "".
func absentRun(ws []lang.Word, asked []string, held func(string) bool) string {
	start, end := -1, -1
	for i, w := range ws {
		ts := lang.Terms(w.Lower)
		named := !(i == 2 && doing(ws)) && !phraseEnds[w.Lower] && !calendarWords[w.Lower] && !timeNouns[w.Lower] &&
			slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(asked, t) })
		if named && start < 0 {
			if i > 0 && !lang.IsStopword(ws[i-1].Lower) && !(i == 3 && doing(ws)) {
				return "" // "arrive" of "did my package arrive" says what the thing does
			}
			start = i
		}
		// A word in -ing that ends the phrase names the thing with the run ("potty training
		// at daycare"); one before more words says what it does ("amsterdam running late").
		ending := i+1 == len(ws) || lang.IsStopword(ws[i+1].Lower)
		if start >= 0 && !named && !(strings.HasSuffix(w.Lower, "ing") && end == i && ending && !slices.ContainsFunc(ts, held)) {
			break
		}
		if start >= 0 {
			end = i + 1
		}
	}
	if start >= 0 && end < len(ws) && route.ParticleOf(ws[:end+1], end) {
		end-- // "shown" of "shown up" says what is asked of the thing
	}
	if start < 0 || end <= start {
		return ""
	}
	words := make([]string, 0, end-start)
	for _, w := range ws[start:end] {
		words = append(words, w.Text)
	}
	return strings.Join(words, " ")
}

// thingTerms keeps the terms that may name a thing data would hold: not the agent's trade,
// the called tool's name, numbers, light nouns or words of time, but months and weekdays
// (data dated in one holds it: "on saturday"). A month or weekday dates the thing asked for
// and says nothing of which thing it is: strict, when other terms are kept, it is left out
// ("what are the kids eating wednesday" is not answered by the children's weekdays alone, so
// other tools are asked; their results, dated that day, then stand beside it).
func (r renderer) thingTerms(terms []string, strict bool) []string {
	var out []string
	for _, t := range terms {
		if !r.domain[t] && !r.tool[t] && !lang.IsNumberTerm(t) && !lang.IsStopword(t) &&
			(calendarWords[t] || !lang.IsLightNoun(t) && !timeNouns[t]) {
			out = append(out, t)
		}
	}
	if things := slices.DeleteFunc(slices.Clone(out), func(t string) bool { return calendarWords[t] }); strict && len(things) > 0 {
		return things
	}
	return out
}

// sharedLead takes out the first paragraph that every one of several answers opens with ("I
// can look this up, but I cannot cancel it for you here." from each agent asked), so that the
// reply says it once, first.
func sharedLead(found []Piece) ([]Piece, string) {
	if len(found) < 2 {
		return found, ""
	}
	lead, _, ok := strings.Cut(found[0].text, "\n\n")
	if !ok || slices.ContainsFunc(found, func(p Piece) bool { return p.kind != pieceProse || !strings.HasPrefix(p.text, lead+"\n\n") }) {
		return found, ""
	}
	out := make([]Piece, len(found))
	for i, p := range found {
		p.text = strings.TrimPrefix(p.text, lead+"\n\n")
		out[i] = prosePiece(p.text, topic{noun: p.topic})
	}
	return out, lead
}

// arrange places narrated results in one reply. A single bare failure beside data opens
// the reply ("I couldn't get X right now, but I found 5 offers: ..."); failures with a
// note, or several, close it.
func arrange(found, failed []Piece) string {
	if len(found) == 0 {
		if len(failed) == 0 {
			return "I didn't find anything for that."
		}
		parts := make([]string, len(failed))
		for i, f := range failed {
			parts[i] = f.standalone()
		}
		return strings.Join(parts, " ")
	}
	if len(found) == 1 && len(failed) == 0 {
		return found[0].standalone()
	}
	lead := ""
	if len(failed) == 1 && failed[0].plain && (found[0].kind == pieceList || found[0].kind == pieceFacts && found[0].topic != "") {
		lead, failed = failed[0].text+", but ", nil
	}
	parts := make([]string, 0, len(found)+len(failed))
	for i, s := range found {
		p := s.placed(i, i == 0 && lead != "")
		if i == 0 {
			p = lead + p
		}
		parts = append(parts, p)
	}
	for _, f := range failed {
		parts = append(parts, f.standalone())
	}
	return strings.Join(parts, "\n\n")
}

// orNothing says so when a result held nothing worth narrating, in the words every other
// reply of nothing found uses ("I couldn't find anything about ...").
func orNothing(s Piece, t topic) Piece {
	if !s.empty() {
		return s
	}
	return Piece{kind: pieceProse, text: "I couldn't find anything for " + cmp.Or(t.noun, "that") + "."}
}

// HeldNowhere returns, when p holds no word of what was asked and says in the request's words
// what ("do they help with potty training", of the children), the piece saying that nothing is
// held about it. The caller says when every place that could hold the thing was looked in: one
// result cannot tell data that says it in other words ("take home" of a net pay).
func (p Piece) HeldNowhere() (Piece, bool) {
	if !p.offTopic || p.absent == "" {
		return Piece{}, false
	}
	return notInData(p.absent, topic{noun: p.absentIn}), true
}

// askingWords reports whether w says what is asked of data rather than naming a thing: an
// amount ("cost", "owe"), a rank ("highest", "latest"), an identifier, a finished state.
func askingWords(w string) bool {
	return moneyWords[w] || priceWords[w] || oweWords[w] || mostWords[w] || leastWords[w] || latestWords[w] || idAsks[w] || finishedWords[w]
}

// doing reports whether ws opens with an auxiliary and a subject ("can you", "do they"), so
// that ws[2] is what is done.
func doing(ws []lang.Word) bool {
	return len(ws) > 2 && (userLeads[ws[1].Lower] || subjectPronouns[ws[1].Lower])
}
