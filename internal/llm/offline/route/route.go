package route

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// exampleLine matches a few-shot line of the orchestrator's prompt, such as
// `- "where is my parcel?" -> ask_parcels`.
var exampleLine = regexp.MustCompile(`(?m)^\s*[-*•]?\s*["“](.+?)["”]\s*(?:->|→|=>)\s*(` + lang.RoutePrefix + `[A-Za-z0-9_]+)\s*$`)

// capabilityLine matches a line of the orchestrator's prompt that says what one of a
// sub-agent's tools does, such as `- ask_parcels: track_parcel: Where a parcel is now.`
var capabilityLine = regexp.MustCompile(`^\s*[-*•]\s*(` + lang.RoutePrefix + `[A-Za-z0-9_]+):\s*([A-Za-z0-9_]+):\s*(.+?)\s*$`)

// capRule matches the cap rule of the orchestrator's prompt, such as "call at most 3".
var capRule = regexp.MustCompile(`(?i)\bat\s+most\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b`)

var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}

// promptExamples keeps the examples of system prompts already parsed: the orchestrator sends
// the same prompt every turn, and matching its example lines took a third of a turn's
// routing.
var promptExamples = lang.NewCache[string, map[string][]string](64)

// parseExamples returns the few-shot examples in the system prompt, by tool name, and after
// them the lines that say what the agent's own tools do (its tool's name and description).
// Only lines that name a routing tool are matched: run over a whole prompt, the pattern
// backtracks through every line.
func parseExamples(system string) map[string][]string {
	out := map[string][]string{}
	capabilities := map[string][]string{}
	for line := range strings.Lines(system) {
		if !strings.Contains(line, lang.RoutePrefix) {
			continue
		}
		if m := exampleLine.FindStringSubmatch(line); m != nil {
			out[m[2]] = append(out[m[2]], m[1])
		} else if m := capabilityLine.FindStringSubmatch(line); m != nil {
			capabilities[m[1]] = append(capabilities[m[1]], lang.Humanise(m[2])+": "+m[3])
		}
	}
	for name, texts := range capabilities {
		out[capabilityKey+name] = texts
	}
	return out
}

// capabilityKey marks, in parseExamples' map, what an agent's tools do apart from its examples.
const capabilityKey = "tools:"

// ParseCap returns N of an "at most N" rule in the system prompt, or 0 when there is none.
func ParseCap(system string) int {
	m := capRule.FindStringSubmatch(system)
	if m == nil {
		return 0
	}
	if n, ok := numberWords[strings.ToLower(m[1])]; ok {
		return n
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// Settings are the bars a clause's scores must clear for it to choose a candidate.
type Settings struct {
	// MinScore is the score a clause needs before it is routed to a candidate.
	MinScore float64
	// Margin is how many times the runner-up's score the best candidate must reach for a
	// clause to count as its own intent.
	Margin float64
	// Encode returns a user's sentence's vector (see package encoder), which may have been
	// encoded before; nil encodes every sentence anew.
	Encode func(text string) []float32
}

// Decide routes the last of the human messages of a conversation: the indexes of the agents
// (ask_ tools) it goes to, each with the part of the message it serves, at most capN of them
// (all when capN <= 0); none when it is answered directly. ix indexes the agents' texts.
func Decide(ix *Index, humans []string, capN int, s Settings) []Intent {
	c := &conversation{humans: humans, decided: map[int][]Intent{}, capN: capN,
		p: &planner{ix: ix, minScore: s.MinScore, margin: s.Margin, fallbackMin: s.MinScore, substance: true, byMeaning: true, sentences: true, encode: s.Encode}}
	return c.decide(len(humans))
}

// conversation routes the human messages of one request, each in the light of those before
// it, so that a follow-up continues what the turn before it was routed to (which may itself
// have been a follow-up), not what that turn's words alone would reach.
type conversation struct {
	p       *planner
	humans  []string
	capN    int
	decided map[int][]Intent // by the number of messages read: the intents of the last
}

// earlierTurns is how many messages before a follow-up are read for the subject it continues
// (see language.txt).
var earlierTurns = int(lang.Number("earlierTurns"))

// earlier returns the messages before the n-th, newest first, up to earlierTurns, each with
// the intents it was routed to.
func (c *conversation) earlier(n int) []planned {
	var out []planned
	for i := n - 1; i >= 1 && len(out) < earlierTurns; i-- {
		out = append(out, planned{text: c.humans[i-1], intents: c.decide(i)})
	}
	return out
}

// decide returns the intents the n-th message is routed to (none when it is answered
// directly), each decision made once.
func (c *conversation) decide(n int) []Intent {
	if in, ok := c.decided[n]; ok {
		return in
	}
	in := c.routeMessage(n)
	c.decided[n] = in
	return in
}

// routeMessage routes the n-th message (see decide).
func (c *conversation) routeMessage(n int) []Intent {
	p, text := c.p, c.humans[n-1]
	if _, sum := arithmetic(text); sum {
		return nil
	}
	// The message is read into words once: a long one costs its words' allocation each time.
	ws := lang.ScanWords(text)
	plain := plainWordsOf(ws)
	earlier := sync.OnceValue(func() []planned { return c.earlier(n) }) // only follow-ups read it
	// A follow-up of few words may lean on the earlier subject (see followup.go).
	short := len(ws) <= maxSubjectlessWords
	// A question made of acknowledging or parting words ("how much is the fine", "is that
	// ok", "can i get a later one") still asks something: it is read as a request.
	kind := chatKind(text)
	if kind == chatPerson || kind == chatFault || kind == chatDismiss || kind == chatReaction {
		return nil // asks for someone, finds fault with the help, drops the ask or only exclaims: no agent's data
	}
	if n == 1 && asksNothing(plain) {
		// "can you help me", "never mind": nothing asked yet, so nobody's data. The user's
		// things asked after in such words ("where are my things") are some agent's when the
		// sentence says whose.
		if namesBelongings(plain) {
			if top, s := p.sentenceLeader(text); top >= 0 {
				return []Intent{{Tool: top, Text: strings.TrimSpace(text), score: s}}
			}
		}
		return nil
	}
	if (kind == chatAck || kind == chatBye) && asksSomething(text, ws) {
		kind = chatNone
	}
	// A reaction ("haha ok", "lool great") asks nothing and points at nothing: it is answered
	// directly, whatever its words come close to in meaning.
	if kind == chatAck && !looksLikeFollowUp(ws) {
		return nil
	}
	intents := pointerFollowUp(text, ws, n > 1, earlier)
	if intents == nil {
		// In a conversation, a question on what the previous turn asked ("why so many
		// absences" after grades) is no aside, however much it sounds like one.
		// Why a booking was cancelled or charged is asked of the agent that did it, however
		// much the sentence sounds like a question about the world.
		// So is a question about someone's thing ("why is sophie's fuel card frozen"): it is
		// about the user's affairs, whatever frame it opens with.
		mishap := asksWhyItHappened(plain) || namesSomeone(ws)
		if !mishap && (isAside(plain, p.tradeWordNearby(text)) || p.worldQuestion(text, plain, n > 1)) &&
			!(n > 1 && (p.asksOnEarlierSubject(plain, ws, earlier) || p.staysWithEarlier(text, ws, func() []Intent { return p.plan(text) }, earlier))) {
			return nil
		}
		intents = p.plan(text)
		// An aside is one thought: a message that asks two agents is read no further for its style.
		if len(intents) <= 1 && !mishap && !p.asksAfterOwnThing(text, ws, plain, intents) && p.soundsAside(text, ws, plain, n > 1) &&
			!(n > 1 && p.staysWithEarlier(text, ws, func() []Intent { return intents }, earlier)) {
			return nil
		}
	}
	// A follow-up continues the earlier subject when it names none of its own, or when it
	// points back ("can I cancel it?") and reaches an agent only through one word that agent
	// uses in passing ("noise cancelling headphones").
	if !hasEarlier(intents) && looksLikeFollowUp(ws) && slices.Contains([]chat{chatNone, chatAck}, kind) &&
		(len(intents) == 0 || pointsBack(ws) && p.incidental(intents)) {
		if prev := firstPlanned(earlier()); prev != nil {
			intents = p.continued(text, ws, prev.intents)
		}
	}
	// A message that names nothing of its own continues the previous turn's agents however
	// it opens ("how much is left to pay" after a bill): its words say what to do or know
	// about the earlier thing, and read alone they reach no agent or a wrong one by meaning.
	if len(intents) == 0 && n > 1 && kind == chatNone {
		asks := asksSomething(text, ws)
		// One that asks nothing but gives a number or a code ("size 9, two pairs", "the
		// reference is AB-12") answers what the earlier agent needs to know.
		if prev := firstPlanned(earlier()); prev != nil && short &&
			(!asks && givesValue(ws) || !p.ix.namesNewSubject(ws, prev.intents, -1, asks)) {
			intents = p.continued(text, ws, prev.intents)
		}
	}
	if len(intents) == 0 {
		if top, s := p.byMeaningOnly(text, n > 1); top >= 0 {
			intents = []Intent{{Tool: top, Text: strings.TrimSpace(text), score: s}}
		}
	}
	// A short question in a conversation that neither its words nor its sentence take to any
	// agent, and that reads as no aside, asks on about the earlier subject ("who's the tech"
	// after a repair): the thing it names is a side of that subject no agent's texts spell out.
	// A thing of the user's that no agent's texts name ("my python code") is a subject of its own.
	if len(intents) == 0 && n > 1 && kind == chatNone && short && asksSomething(text, ws) && !namesAThingOf(ws) {
		if prev := firstPlanned(earlier()); prev != nil {
			intents = p.continued(text, ws, prev.intents)
		}
	}
	if len(intents) == 0 {
		return nil
	}
	// A follow-up with no subject of its own stays with the previous turn's agent (see
	// followup.go).
	if len(intents) == 1 && n > 1 && kind == chatNone {
		if prev := firstPlanned(earlier()); prev != nil && !strings.Contains(intents[0].Text, lang.EarlierMarker) {
			same := slices.IndexFunc(prev.intents, func(in Intent) bool { return in.Tool == intents[0].Tool })
			// The user's own thing, when it is the chosen agent's rather than the earlier
			// one's ("and the points on my credit card" after loyalty points), is a new subject.
			owned := same < 0 && slices.ContainsFunc(prev.intents, func(in Intent) bool { return p.ix.ownThingOf(ws, intents[0].Tool, in.Tool) })
			switch {
			case owned:
			case same >= 0 && short:
				// The same agent again: it gets the earlier request too, which says what the
				// follow-up is about ("how much will i get back" after a return's status, "how
				// much is the renewal fee" after the truck's registration). The sub-agent
				// reads the follow-up's own words first and the earlier ones only when its
				// own name no record.
				intents[0].Text = followUpText(intents[0].Text, prev.intents[same].Text)
			case same < 0 && refines(text, ws) && p.inPassing(intents[0]):
				// A few words that ask nothing ("double sided") narrow down the earlier request
				// when they reach the other agent only through a word it uses in passing;
				// "gift cards" names a thing of its own.
				intents = p.continued(text, ws, prev.intents)
			case same < 0 && short &&
				!p.ix.namesNewSubject(ws, prev.intents, intents[0].Tool, p.ix.onlyThrough(queryTerms(ws), intents[0].Tool, priceStems)):
				// It names nothing the earlier agent's texts lack and the new one's have, or
				// that sits nearer the new one in meaning; when only price words reached the
				// new one, it asks what the earlier thing costs ("how much do i owe").
				intents = p.continued(text, ws, prev.intents)
			case same < 0 && short && !leadsToNewThing(ws) && !opensFollowUp(ws) &&
				!p.ix.namesOwnThing(ws, intents[0].Tool) && p.lostBefore(prev, intents[0].Tool):
				// The earlier request's words reached this agent too, and the earlier agent was
				// chosen over it: a short question in the words they share ("whats the tracking
				// number" after a prescription order, where orders are tracked) asks on about
				// the earlier thing, unless it names a thing of the user's ("my next trip").
				intents = p.continued(text, ws, prev.intents)
			case same < 0 && short && p.inPassing(intents[0]) && !leadsToNewThing(ws) &&
				!p.ix.namesOwnThingBesidesMoney(ws, intents[0].Tool) && p.ix.onlyKnownWords(ws, intents[0].Tool, prev.intents):
				// A short message that reaches another agent only through one word its texts
				// use once ("what if im late" after a pick-up time, where a parcel is late),
				// and names nothing neither agent knows ("a cheap blender"), asks on about the
				// earlier thing.
				intents = p.continued(text, ws, prev.intents)
			}
		}
		// Only a message whose words reach its agent weakly, or not at all, is read so.
		if short && (strings.Contains(intents[0].Text, lang.EarlierMarker) || p.inPassing(intents[0])) {
			if back := p.namesEarlierThing(ws, intents[0].Tool, earlier()); back != nil {
				intents = withEarlier(text, back.intents)
			}
		}
	}
	if n > 1 && short && slices.Contains([]chat{chatNone, chatAck}, kind) {
		intents = p.quotePrevious(text, ws, c.humans[n-2], len(c.decide(n-1)) == 0, intents)
	}
	return keepStrongest(intents, c.capN)
}

// staysWithEarlier reports whether a short question in a conversation, whose words choose
// intents (planned only when the rest holds), goes to the one agent the newest earlier request went to: "how tall do the kids
// have to be" after a kart party's room, "how long is the quote good for" after a frame's
// price. Asked on about the earlier subject in that agent's own words, it is no aside or
// question about the world, however it sounds.
//
// Why things are as they are ("why do the karts go so fast"), how they come about, whether
// they are good ("is flying that often bad for the environment"), their history and creative
// asks stay asides: a conversation's subject is no reason to ask its agent those.
func (p *planner) staysWithEarlier(text string, ws []lang.Word, planned func() []Intent, earlier func() []planned) bool {
	if len(ws) > maxSubjectlessWords || !asksSomething(text, ws) {
		return false
	}
	plain := trimLeads(plainWordsOf(ws))
	if slices.ContainsFunc(openQuestionFrames, func(f []string) bool { return hasPrefix(plain, f) }) {
		return false // whatever follows: "how do streaming services pay their actors"
	}
	if _, creative := matchFrame(plain, creativeFrames); creative {
		return false
	}
	if _, history := asksHistory(plain); history || isClosing(plain) || isSmallTalk(plain) {
		return false
	}
	prev := firstPlanned(earlier())
	if prev == nil {
		return false
	}
	intents := planned()
	return len(intents) == 1 && slices.ContainsFunc(prev.intents, func(in Intent) bool { return in.Tool == intents[0].Tool })
}

// quotePrevious gives a follow-up that leans on the message before it ("whats the order number
// for it", "and the battery?") that message as its earlier request when no rule above did,
// because the earlier message went to no agent or to another: the follow-up's agent reads
// what "it" is from there. Only an agent the earlier message's words reach gets it, or any
// when that message asked something and went nowhere (unrouted says so), and only when the
// follow-up names nothing that agent's texts lack ("and the hotel in rome?").
func (p *planner) quotePrevious(text string, ws []lang.Word, prev string, unrouted bool, intents []Intent) []Intent {
	if len(intents) == 0 || hasEarlier(intents) || !pointsBack(ws) && !opensFollowUp(ws) {
		return intents
	}
	pws := lang.ScanWords(prev)
	asked := unrouted && chatKind(prev) == chatNone && asksSomething(prev, pws)
	sc := p.scores(prev, queryTerms(pws))
	out := slices.Clone(intents)
	for i, in := range out {
		if (asked || sc[in.Tool] > 0) && !p.ix.namesNewSubject(ws, []Intent{{Tool: in.Tool}}, -1, false) {
			out[i].Text = followUpText(in.Text, prev)
		}
	}
	return out
}

// RoutingSources returns, per ask_ tool, the texts that describe its agent: its name, its
// description and the examples the system prompt gives for it.
func RoutingSources(system string, tools []llms.Tool) []Source {
	examples := promptExamples.Get(system, func() map[string][]string { return parseExamples(system) })
	sources := make([]Source, len(tools))
	for i, t := range tools {
		name := t.Function.Name
		texts := []string{lang.Humanise(strings.TrimPrefix(name, lang.RoutePrefix)), t.Function.Description}
		sources[i] = Source{Texts: append(texts, examples[name]...), Tools: examples[capabilityKey+name]}
	}
	return sources
}

// planned is an earlier message of the conversation and the intents it was planned into.
type planned struct {
	text    string
	intents []Intent
}

// firstPlanned returns the newest earlier message that asked something, or nil.
func firstPlanned(earlier []planned) *planned {
	if i := slices.IndexFunc(earlier, func(p planned) bool { return len(p.intents) > 0 }); i >= 0 {
		return &earlier[i]
	}
	return nil
}

// continued returns the earlier intents a follow-up continues, each carrying it (see
// withEarlier): of several, those whose agents its own words reach, if some do and not all
// ("can I cancel it?" after "where is my order and how many points do I have" is about the
// order); all of them otherwise ("and for bob?").
func (p *planner) continued(text string, ws []lang.Word, earlier []Intent) []Intent {
	if len(earlier) >= 2 {
		sc := p.scores(text, queryTerms(ws))
		if reached := slices.DeleteFunc(slices.Clone(earlier), func(in Intent) bool { return sc[in.Tool] <= 0 }); len(reached) > 0 {
			earlier = reached
		}
	}
	return withEarlier(text, earlier)
}

// withEarlier returns copies of an earlier message's intents that carry text, the follow-up.
func withEarlier(text string, earlier []Intent) []Intent {
	out := slices.Clone(earlier)
	for i := range out {
		out[i].Text = followUpText(text, out[i].Text)
	}
	return out
}

// followUpText joins a follow-up and the earlier request it leans on, the way the sub-agent
// reads them: "can I cancel it? (earlier: where is my order)".
func followUpText(text, earlier string) string {
	// An earlier follow-up leans on the request that named the subject: that one is quoted,
	// unless the follow-up named a thing of its own or picked one of what that request found
	// ("and the keyboard", "which one works on shoes"): the subject is that thing now.
	quoted := lang.EarlierPart(earlier)
	if own := lang.OwnPart(earlier); own != earlier && namesItsOwnSubject(own) {
		quoted = strings.TrimSpace(own)
	}
	return strings.TrimSpace(text) + lang.EarlierMarker + quoted + ")"
}

// namesItsOwnSubject reports whether a follow-up names the thing it is about: it opens with a
// follow-up lead and a thing ("and the keyboard?") or picks among what was found ("which one
// is still processing").
func namesItsOwnSubject(followUp string) bool {
	ws := lang.ScanWords(followUp)
	if picksAmongEarlier(followUp) {
		// "which one is cheapest" ranks what was found: the thing is still the earlier one's.
		return slices.ContainsFunc(ws, func(w lang.Word) bool {
			return w.Lower != "which" && !picks[w.Lower] && !lang.IsStopword(w.Lower) && !rankingWords[w.Lower]
		})
	}
	i := 0
	for i < len(ws) {
		n := slices.IndexFunc(followUpLeads, func(lead []string) bool { return phraseAt(ws, i, lead) })
		if n < 0 {
			break
		}
		i += len(followUpLeads[n])
	}
	// "ok and can I cancel it?" asks on about the earlier thing; "and the shoes?" names one.
	return i > 0 && i < len(ws) && !questionOpeners[ws[i].Lower] && !modals[ws[i].Lower] && ws[i].Lower != "i" &&
		slices.ContainsFunc(ws[i:], func(w lang.Word) bool { return !lang.IsStopword(w.Lower) })
}

// pointerFollowUp returns the previous turn's one agent, carrying the earlier request, for a
// short question whose subject is a word pointing back ("is it on autopay", "what time do they
// close on saturday", "when will it get here"): whatever its other words suit, they ask about
// the earlier thing. A message that opens as a follow-up with a thing ("and the hotel, is it
// booked?"), names a thing of the user's ("is it in my cart") or asks for a thing of its own
// ("how many points did i get for it") moves on, as does one of several clauses or one after
// a turn that asked several agents (see continued). nil when the rule does not apply.
func pointerFollowUp(text string, ws []lang.Word, hasHistory bool, earlier func() []planned) []Intent {
	if !hasHistory || len(ws) > maxSubjectlessWords || !pointsBack(ws) || leadsToNewThing(ws) || asksOwnThing(ws) ||
		strings.ContainsAny(strings.TrimRight(text, "?!. "), ",;…") || strings.Contains(text, "..") ||
		!slices.Contains([]chat{chatNone, chatAck}, chatKind(text)) {
		return nil // one clause only: "does it have wifi... nvm, any coupons" moves on
	}
	if namesAThingOf(ws) {
		return nil
	}
	for i, w := range ws {
		if subjectPointers[w.Lower] && i > 0 && !saysWhen(ws, i) {
			prev := firstPlanned(earlier())
			if prev == nil || len(prev.intents) != 1 {
				return nil
			}
			out := slices.Clone(prev.intents)
			out[0].Text = followUpText(text, out[0].Text)
			return out
		}
	}
	return nil
}

// asksOwnThing reports whether the question's wh-phrase names the thing it asks for: "how
// many points did i get for it" asks for points, whatever "it" was; "what time do they close"
// and "how much do i owe on it" name none (a light noun, a verb).
func asksOwnThing(ws []lang.Word) bool {
	for i := 0; i+1 < len(ws); i++ {
		j := i + 1
		switch {
		case ws[i].Lower == "how" && (ws[j].Lower == "many" || ws[j].Lower == "much"):
			j++
		case !whWords[ws[i].Lower]:
			continue
		}
		if j < len(ws) {
			w := ws[j].Lower
			ts := lang.Terms(w)
			return len(ts) > 0 && !lang.IsStopword(w) && !auxiliaries[w] && !modals[w] && !slices.ContainsFunc(ts, lang.IsLightNoun)
		}
	}
	return false
}

// rankingWords say which of the things found is wanted, by size or price: the lists
// mostWords, leastWords and rankWords of language.txt together.
var rankingWords = func() map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"mostWords", "leastWords", "rankWords"} {
		maps.Copy(out, lang.List(name))
	}
	return out
}()

// subjectPointers stand for a thing or person named before (see language.txt).
var subjectPointers = lang.List("subjectPointers")

// opensFollowUp reports whether the message opens with one of followUpLeads.
func opensFollowUp(ws []lang.Word) bool {
	return slices.ContainsFunc(followUpLeads, func(lead []string) bool { return phraseAt(ws, 0, lead) })
}

// leadsToNewThing reports whether the message opens with one of followUpLeads and then a
// thing rather than a question ("and netflix, is it...", not "and how much do i owe on it").
func leadsToNewThing(ws []lang.Word) bool {
	for _, lead := range followUpLeads {
		if len(ws) > len(lead) && phraseAt(ws, 0, lead) {
			return !questionOpeners[ws[len(lead)].Lower] && !modals[ws[len(lead)].Lower]
		}
	}
	return false
}

// maxRefiningWords: see refines.
const maxRefiningWords = 3

// refines reports whether a message, read into words ws, is a few words that ask nothing and
// open with no follow-up lead: a detail of the earlier request rather than a request of its own.
func refines(text string, ws []lang.Word) bool {
	return len(ws) <= maxRefiningWords && !asksSomething(text, ws) && !opensFollowUp(ws)
}

// givesValue reports whether some word of ws holds a digit: a number, a date or a code.
func givesValue(ws []lang.Word) bool {
	return slices.ContainsFunc(ws, func(w lang.Word) bool { return strings.ContainsAny(w.Lower, "0123456789") })
}

// hasEarlier reports whether the intents already carry an earlier request.
func hasEarlier(intents []Intent) bool {
	return slices.ContainsFunc(intents, func(in Intent) bool { return strings.Contains(in.Text, lang.EarlierMarker) })
}

// pointsBack reports whether a short message, read into words ws, leans on an earlier one
// through a word that points back ("it", "that one", "those").
func pointsBack(ws []lang.Word) bool {
	return looksLikeFollowUp(ws) && slices.ContainsFunc(ws, func(w lang.Word) bool { return anaphora[w.Lower] })
}

// keepStrongest keeps the n highest-scoring intents (all when n <= 0), in message order:
// the model's side of the fan-out cap, top-N by relevance.
func keepStrongest(in []Intent, n int) []Intent {
	if n <= 0 || len(in) <= n {
		return in
	}
	ranked := slices.Clone(in)
	slices.SortStableFunc(ranked, func(a, b Intent) int { return cmp.Compare(b.score, a.score) })
	ranked = ranked[:n]
	slices.SortStableFunc(ranked, func(a, b Intent) int { return cmp.Compare(a.first, b.first) })
	return ranked
}

// followUpLeads open a message that continues the previous one.
var followUpLeads = lang.PhraseList("followUpLeads") // see language.txt

// anaphora point back at something said before.
var anaphora = lang.List("anaphora")

// looksLikeFollowUp reports whether a short message, read into words ws, leans on the
// previous one: "what about bob's?", "and the other one?".
func looksLikeFollowUp(ws []lang.Word) bool {
	if len(ws) < 2 || len(ws) > 12 {
		return false
	}
	if !slices.ContainsFunc(ws, func(w lang.Word) bool { return !reacts(w.Lower) }) {
		return false // "ok great" closes a topic rather than continuing it
	}
	if opensFollowUp(ws) {
		return true
	}
	for i, w := range ws {
		if anaphora[w.Lower] && !saysWhen(ws, i) {
			return true // "that one", "those"
		}
		if base, ok := strings.CutSuffix(w.Lower, "'s"); ok && !lang.IsStopword(base) {
			return true // a possessive of someone not named in the tools: "bob's"
		}
	}
	// A question made only of function words and light nouns ("how many do I have?",
	// "any update?") names its subject in an earlier message, unless it is about the
	// assistant ("how are you?").
	return len(substantive(queryTerms(ws))) == 0 && !slices.ContainsFunc(ws, func(w lang.Word) bool { return secondPerson[w.Lower] })
}

// timeNouns name a stretch of time: after "this", "that" or "next" they say when, not what.
var timeNouns = lang.List("timeNouns")

// saysWhen reports whether ws[i] stands before one of timeNouns, so that with it it says when:
// "this week", "that afternoon" point at the calendar, not back at an earlier message.
func saysWhen(ws []lang.Word, i int) bool {
	return i+1 < len(ws) && timeNouns[ws[i+1].Lower]
}

// whWords open a question whose next word names the thing asked for: "what food", "which vet".
var whWords = lang.List("whWords")

// auxiliaries follow the thing a wh-question names: "what food does", "which vet is".
var auxiliaries = lang.List("auxiliaries")

// Word lists argument extraction reads too (see package answer and language.txt).
var (
	// noise are words that colour a request without saying what it is about.
	noise = lang.List("noise")
	// possessives and people name who a request is for: "a laptop for my daughter".
	possessives = lang.List("possessives")
	people      = lang.List("people")
)

// secondPerson words address the assistant.
var secondPerson = lang.List("secondPerson")

// namesEarlierThing returns the earlier message, of those before (newest first), whose agent a
// short message goes back to by naming a thing that message named ("so will the shirts be done
// by thursday" after the shirts went to the laundry and a question about the flight), or nil.
// It must be routed to another agent now, and reach it through none of the shared words.
func (p *planner) namesEarlierThing(ws []lang.Word, tool int, before []planned) *planned {
	own := map[string]bool{}
	for _, q := range queryTerms(ws) {
		if q.weight >= 1 && !lang.IsLightNoun(q.stem) && !lang.IsNumberTerm(q.stem) {
			own[q.stem] = true
		}
	}
	for i := range before {
		prev := &before[i]
		if len(prev.intents) != 1 || prev.intents[0].Tool == tool {
			continue
		}
		for _, q := range queryTerms(lang.ScanWords(prev.text)) {
			if own[q.stem] && q.weight >= 1 && !p.ix.uses(tool, q.stem) {
				return prev
			}
		}
	}
	return nil
}

// lostBefore reports whether the earlier message, routed to one agent, reached agent tool
// nearly as strongly (contestShare of the chosen agent's score) and only through words the
// chosen agent's texts use too: the user's subject lies where both agents' words meet ("where
// is my medication order", to a pharmacy that orders and a support desk that tracks orders),
// not in a thing of tool's the message named in passing ("before my trip").
func (p *planner) lostBefore(prev *planned, tool int) bool {
	if len(prev.intents) != 1 {
		return false
	}
	qs := queryTerms(lang.ScanWords(prev.text))
	sc := p.scores(prev.text, qs)
	was := prev.intents[0].Tool
	return sc[tool] > 0 && sc[was] > 0 && sc[tool] >= contestShare*sc[was] && !p.ix.singlesOut(qs, tool, was)
}
