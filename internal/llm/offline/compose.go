package offline

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// Statuses of the tool wrapper a sub-agent gives its LLM, and of failure notes.
const (
	resultOK          = "ok"
	resultPartial     = "partial"
	resultUnavailable = "unavailable"
	resultError       = "error"
)

// compose narrates the tool results that follow the last human message as one reply, the
// way a concierge would: each result in turn with a transition that names its topic, and
// a plain acknowledgment of what could not be fetched. No JSON, status word or tool name
// reaches the text.
func (m *Model) compose(req *request) string {
	var found, failed []piece
	for _, res := range req.results {
		s := m.narrate(req, res)
		if s.missing && asksForTool(req, res.name) {
			s.missing = false // "my refund for the socks": that no return is for them is the answer
		}
		switch {
		case s.kind == pieceFailure:
			failed = append(failed, s)
		case !s.empty():
			found = append(found, s)
		}
	}
	if slices.ContainsFunc(found, func(p piece) bool { return !p.missing }) {
		// Another tool found the thing the request names ("where are my socks": an order,
		// not a return): the list that had nothing about it is no answer.
		found = slices.DeleteFunc(found, func(p piece) bool { return p.missing })
	}
	found, lead := sharedLead(found)
	reply := arrange(found, failed)
	if lead != "" {
		reply = lead + "\n\n" + reply
	}
	if act := unofferedAction(lang.OwnPart(req.lastHuman()), m.offers.offered(req.plainTools())); act != "" && len(found) > 0 {
		// Asked to act ("can I cancel it?") with tools that only look things up: say so
		// first, then what the lookups found, rather than answer as if the data were the act.
		reply = "I can look this up but not " + act + " it for you here.\n\n" + reply
	}
	return reply
}

// asksForTool reports whether the request uses a word of the named tool's description (not
// a light noun): then what that tool found, or did not, is part of the answer.
func asksForTool(req *request, name string) bool {
	asked := map[string]bool{}
	for _, t := range lang.Terms(lang.OwnPart(req.lastHuman())) {
		asked[t] = !lang.LightNouns[t]
	}
	for _, t := range req.plainTools() {
		if t.Function.Name != name {
			continue
		}
		desc, _ := splitToolExamples(t.Function.Description)
		for _, w := range lang.Terms(desc) {
			if asked[w] {
				return true
			}
		}
	}
	return false
}

// lookElsewhere calls another of the sub-agent's tools when every result so far holds
// nothing about the thing the request names ("where are my socks?" answered with returns,
// none for socks): the socks may be an order. It looks once: with two results or more, the
// reply says what was found.
func (m *Model) lookElsewhere(req *request) []llms.ToolCall {
	tools := req.plainTools()
	if len(req.results) != 1 || len(tools) < 2 {
		return nil
	}
	res := req.results[0]
	v, err := decodeOrdered([]byte(strings.TrimSpace(res.content)))
	if err != nil {
		return nil
	}
	obj, _ := v.([]field)
	if status, _ := member(obj, "status"); status != resultOK {
		return nil
	}
	data, _ := member(obj, "data")
	noun, arr := recordsOf(data)
	r := newRenderer(m.opts.listLimit, res.call, spellAsData(lang.OwnPart(req.lastHuman()), v))
	r.domain = m.domains.terms(req)
	if len(arr) == 0 || len(r.tellingItems(arr)) > 0 || r.unmatchedSubject(arr, noun) == "" {
		return nil
	}
	var rest []llms.Tool
	for _, t := range tools {
		if t.Function.Name != res.name {
			rest = append(rest, t)
		}
	}
	sub := &request{system: req.system, humans: req.humans, tools: rest, nCalls: req.nCalls}
	calls, _ := m.useTools(sub, true)
	if len(calls) > 1 {
		calls = calls[:1]
	}
	return calls
}

// recordsOf returns the list of records data is, or wraps alone, with its noun.
func recordsOf(data any) (string, []any) {
	switch d := data.(type) {
	case []any:
		return "results", d
	case []field:
		if len(d) == 1 {
			if arr, ok := d[0].val.([]any); ok && !allScalars(arr) {
				return lang.Humanise(d[0].key), arr
			}
		}
	}
	return "", nil
}

// sharedLead takes out the first paragraph that every one of several answers opens with
// ("I can look this up but not cancel it for you here." from each agent asked), so that the
// reply says it once, first.
func sharedLead(found []piece) ([]piece, string) {
	if len(found) < 2 {
		return found, ""
	}
	lead, _, ok := strings.Cut(found[0].text, "\n\n")
	if !ok || found[0].kind != pieceProse {
		return found, ""
	}
	for _, p := range found[1:] {
		if p.kind != pieceProse || !strings.HasPrefix(p.text, lead+"\n\n") {
			return found, ""
		}
	}
	out := make([]piece, len(found))
	for i, p := range found {
		p.text = strings.TrimPrefix(p.text, lead+"\n\n")
		out[i] = prosePiece(p.text, topic{noun: p.topic})
	}
	return out, lead
}

// actionVerbs ask for something to be done rather than looked up.
var actionVerbs = lang.List("actionVerbs")

// unofferedAction returns the action verb of text that none of the tools names or describes
// (offered, see offeredTerms), or "": a sub-agent whose tools read data cannot perform it.
func unofferedAction(text string, offered map[string]bool) string {
	if offered == nil { // no tools: nothing to offer or not
		return ""
	}
	ws := lang.ScanWords(text)
	plain := plainWordsOf(ws)
	start := 0 // first word of the current clause
	for i, verb := range plain {
		if i > 0 && strings.ContainsAny(text[ws[i-1].End:ws[i].Start], ",.;:!?-") {
			start = i // "my order arrived broken, can you cancel it?"
		}
		if actionVerbs[verb] && !offered[lang.Stem(verb)] && asksToAct(plain[start:i]) {
			return verb
		}
	}
	return ""
}

// offeredTerms are the stems of what tools offer: their names and descriptions; nil when there
// are no tools.
func offeredTerms(tools []llms.Tool) map[string]bool {
	if len(tools) == 0 {
		return nil
	}
	offered := map[string]bool{}
	for _, t := range tools {
		desc, _ := splitToolExamples(t.Function.Description)
		for _, term := range lang.Terms(lang.Humanise(t.Function.Name) + " " + desc) {
			offered[term] = true
		}
	}
	return offered
}

// actRequests are what may come before an action verb when a message asks for the act:
// "please cancel", "can you cancel", "can I cancel", "I want to cancel". Anything else makes
// the verb part of a question or a description: "where can I buy", "how do I send it back",
// "no points on my last purchase".
var actRequests = [][]string{
	{}, {"kindly"}, {"help", "me"}, {"help", "me", "to"},
	{"can", "you"}, {"could", "you"}, {"would", "you"}, {"will", "you"}, {"can", "u"},
	{"can", "i"}, {"could", "i"}, {"may", "i"}, {"can", "we"},
	{"i", "want", "to"}, {"i", "wanna"}, {"i", "need", "to"}, {"i", "would", "like", "to"},
	{"id", "like", "to"}, {"we", "want", "to"}, {"i", "have", "to"}, {"i", "must"},
}

// asksToAct reports whether the words before an action verb make the message a request to
// perform it.
func asksToAct(before []string) bool {
	for len(before) > 0 && (leads[before[0]] || fillers[before[0]]) {
		before = before[1:]
	}
	for len(before) > 0 && (before[len(before)-1] == "please" || before[len(before)-1] == "just" || before[len(before)-1] == "still") {
		before = before[:len(before)-1]
	}
	for _, r := range actRequests {
		if slices.Equal(before, r) {
			return true
		}
	}
	return false
}

// arrange places narrated results in one reply. A single bare failure beside data opens
// the reply ("I couldn't get X right now, but I found 5 offers: ..."); failures with a
// note, or several, close it.
func arrange(found, failed []piece) string {
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

// narrate renders one tool result as a piece.
func (m *Model) narrate(req *request, res toolResult) piece {
	content := strings.TrimSpace(res.content)
	t := topicOf(res)
	if note, ok := failureNote(content); ok {
		return t.unavailable(note)
	}
	if !strings.HasPrefix(content, "{") && !strings.HasPrefix(content, "[") {
		return prosePiece(content, t) // a sub-agent's own words
	}
	v, err := decodeOrdered([]byte(content))
	if err != nil {
		return t.unavailable("") // never show what could not be read
	}
	r := newRenderer(m.opts.listLimit, res.call, spellAsData(lang.OwnPart(req.lastHuman()), v))
	r.domain = m.domains.terms(req)
	if last := req.lastHuman(); lang.OwnPart(last) != last {
		r.earlierTerm = lang.Terms(strings.ToLower(lang.EarlierPart(last)))
	}
	obj, isObj := v.([]field)
	status, _ := member(obj, "status")
	s, _ := status.(string)
	if !isObj || !isResultStatus(s) {
		return orNothing(r.data(v, t), t)
	}
	data, _ := member(obj, "data")
	note, _ := member(obj, "note")
	noteText, _ := note.(string)
	// A result's answer is the agent team's own statement of its data: it is said as written,
	// in place of the model's narration of the data.
	said := func() piece { return orNothing(r.data(data, t), t) }
	if thing := r.unasked(data); thing != "" {
		said = func() piece { return notInData(thing, t) }
	}
	if answer, _ := member(obj, "answer"); answer != nil {
		if a, ok := answer.(string); ok && strings.TrimSpace(a) != "" {
			said = func() piece { return piece{kind: pieceProse, text: strings.TrimSpace(a)} }
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

func isResultStatus(s string) bool {
	switch s {
	case resultOK, resultPartial, resultUnavailable, resultError:
		return true
	}
	return false
}

// orNothing says so when a result held nothing worth narrating.
func orNothing(s piece, t topic) piece {
	if !s.empty() {
		return s
	}
	if t.noun != "" {
		return piece{kind: pieceProse, text: "I didn't find anything for " + t.noun + "."}
	}
	return piece{kind: pieceProse, text: "I didn't find anything for that."}
}
