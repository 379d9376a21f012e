package route

import (
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/style"
)

// A question about the world asks no agent anything, even in an agent's own words: "what year
// did netflix start" beside a streaming agent, "is being a plumber a good career" beside a
// handyman. The frames of aside.go name the common shapes of such questions; a question of
// another shape is told apart by meaning. Asked impersonally (no I, my or number ties it to
// the user's affairs), it is an aside when its sentence comes at least as close to one of the
// questions of offTopicExamples (language.txt), which no agent of a service answers, as to
// anything an agent says.
//
// The same questions tell a faint request from idle chat in the last resort (see
// byMeaningOnly and sentenceLowFloor).
//
// An agent whose trade is one of their topics (a weather agent, a tutor) still wins when its
// texts come closer.
var offTopicExamples = func() []string {
	var out []string
	for _, f := range lang.Frames("offTopicExamples") {
		out = append(out, strings.Join(f, " "))
	}
	return out
}()

// offTopicVectors are the sentence vectors of offTopicExamples, encoded once.
var offTopicVectors = sync.OnceValue(func() [][][]float32 {
	var vs [][]float32
	for _, s := range offTopicExamples {
		if v := sentenceModel().Embed(s); v != nil {
			vs = append(vs, v)
		}
	}
	return [][][]float32{vs}
})

// offTopicSim returns the cosine of text's sentence vector and the closest of the questions
// no agent answers; 0 when text has no vector.
func (p *planner) offTopicSim(text string) float64 {
	q := p.sentenceVector(text)
	if q == nil {
		return 0
	}
	return closestPerDoc(q, offTopicVectors())[0]
}

// worldQuestion reports whether text, whose plain words are plain, asks impersonally about the
// world, or asks for advice on life in general, and its sentence comes at least as close to a
// question no agent answers as to any agent's texts. In a conversation (conversing), "he" or
// "she" (personalPronouns) is someone named before: "has she missed any days" asks about the
// user's daughter. Other words that point back do not count: "why is that the tallest
// mountain" asks about the world whenever it comes.
func (p *planner) worldQuestion(text string, plain []string, conversing bool) bool {
	ws := trimLeads(plain)
	// Three words say too little to be read as a sentence ("whitening cost?"), a question
	// that points back ("why did they charge it twice") is about the conversation, and one
	// about what is on offer ("what's on clearance in garden tools") is for an agent.
	// A modal opens a request as often ("can the electrician come on thursday"), and a question
	// about the world only when it speaks of kinds of things ("can dogs get cavities").
	if len(ws) < 4 || !questionOpeners[ws[0]] && !(modals[ws[0]] && speaksOfKinds(ws)) || asksWhatIsOffered(ws) {
		return false
	}
	// One that names someone ("when's lily's next lesson") is about the user's affairs, and
	// one that picks among what was found ("which one works on shoes") about the conversation.
	if namesSomeone(lang.ScanWords(text)) || conversing && picksAmongEarlier(text) {
		return false
	}
	// Advice is asked in the first person ("should i become a dentist or a doctor"); whether
	// it is advice on life or on an agent's service ("how do i change my delivery address")
	// is for the sentence to say.
	rest, advice := matchFrame(ws, adviceFrames)
	if !advice {
		rest = ws
		if hasPersonalStake(ws) {
			return false
		}
	}
	if slices.ContainsFunc(rest, func(w string) bool { return pronouns[w] || conversing && personalPronouns[w] }) {
		return false
	}
	// A record of the whole world ("the oldest zoo in the world") is no agent's record,
	// however plainly it names an agent's trade.
	if slices.ContainsFunc(worldScopes, func(f []string) bool { return containsPhrase(rest, f) }) {
		return true
	}
	sims := p.wholeSims(text)
	if sims == nil {
		return false
	}
	_, s1, _ := lang.Best(sims)
	// A question about kinds of things ("how often should tyres be rotated") is about the
	// world even a little nearer an agent's texts than the questions no agent answers: what
	// an agent's user asks after is a particular thing (see speaksOfKinds).
	if speaksOfKinds(rest) {
		s1 -= kindMargin
	}
	return p.offTopicSim(text) >= s1
}

// kindMargin: see language.txt, which says where it was chosen.
var kindMargin = lang.Number("kindMargin")

// particulars: see language.txt.
var particulars = lang.List("particulars")

// speaksOfKinds reports whether plain words speak of kinds of things only ("should a ten year
// old have a phone", "how many bottles are in a case"): nothing particular (particulars: "the
// van", "this week", "on friday", "has leo missed"), which a user asks an agent after, nothing
// of the user's or put to the service ("do you do laser tag"), and no price, which an agent
// quotes for a kind of thing it offers ("how much is a season pass").
func speaksOfKinds(ws []string) bool {
	return !slices.ContainsFunc(ws, func(w string) bool {
		return particulars[w] || timeNouns[w] || personal[w] || secondPerson[w] ||
			slices.ContainsFunc(lang.Terms(w), func(t string) bool { return priceStems[t] })
	})
}

// worldScopes: see language.txt.
var worldScopes = lang.PhraseList("worldScopes")

// containsPhrase reports whether the words of phrase stand together somewhere in ws.
func containsPhrase(ws, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// personalPronouns stand for someone named in an earlier message: "has she missed any days".
var personalPronouns = lang.List("personalPronouns")

// asideFloor, personalAsideFloor, minAsideWords, maxAsideWords: see language.txt, which says
// where the floors were chosen.
var (
	asideFloor         = lang.Number("asideFloor")
	personalAsideFloor = lang.Number("personalAsideFloor")
	minAsideWords      = int(lang.Number("minAsideWords"))
	maxAsideWords      = int(lang.Number("maxAsideWords"))
)

// soundsAside reports whether text, read into words raw and their plain forms plain, reads as a
// message that asks a service nothing (see asideFloor); about the user's own affairs it must read
// so more surely, unless it asks advice on life ("should i learn spanish or french"). A message
// that points back at an earlier one (conversing says there is one), asks what is on offer (see
// offerFrames) or names someone ("what did mr patel say about jake's essay") is about the user's
// affairs, whatever it sounds like.
func (p *planner) soundsAside(text string, raw []lang.Word, plain []string, conversing bool) bool {
	ws := trimLeads(plain)
	if len(ws) < minAsideWords || len(ws) > maxAsideWords || ws[0] == "any" && !asksForTips(ws) || asksWhatIsOffered(ws) {
		return false
	}
	// A request in the imperative, asked politely or not, or a wish asks plainly, and the
	// sentence costs milliseconds to read: "book me a table for two on friday night" and "can
	// you change the email on my account" are never read for their style.
	if imperative(raw) || asksAssistantTo(raw) || wishes(raw) || conversing && (pointsBack(raw) || opensFollowUp(raw) || pointsAtPerson(raw)) || namesSomeone(raw) {
		return false
	}
	floor := asideFloor
	if _, advice := matchFrame(ws, adviceFrames); !advice && hasPersonalStake(ws) {
		floor = personalAsideFloor
	}
	if p.namesAnAgent(raw) {
		floor = max(floor, namedAgentAsideFloor)
	}
	return style.Aside(p.sentenceVector(text)) >= floor
}

// pointsAtPerson reports whether a short message, read into words ws, leans on a person or
// thing named before through a pronoun that is what it asks about: "what does he need to do"
// after a driver's licence check.
func pointsAtPerson(ws []lang.Word) bool {
	return len(ws) <= maxSubjectlessWords && slices.ContainsFunc(ws, func(w lang.Word) bool { return subjectPointers[w.Lower] })
}

// asksAssistantTo reports whether words put a request in the imperative to the assistant as a
// question: "can you change the email on my account", "could you please book a table".
func asksAssistantTo(ws []lang.Word) bool {
	return len(ws) > 2 && modals[ws[0].Lower] && ws[1].Lower == "you" && imperative(ws[2:])
}

// asksAfterOwnThing reports whether a message, which its words route to one agent (intents),
// asks after a thing of the user's that the agent's texts name, at the head of what it asks:
// "is my hotel booking in chicago confirmed", "what gate does my flight leave from", "what's my
// tier and how far am i from the next one". Such a question is a request however it sounds,
// and its sentence is not read for its style (see soundsAside), which costs milliseconds. In a
// message of several clauses the thing must be in one that asks (opens with a question word).
// A thing named only in the words that narrow the request ("the top scorer in our league"), a
// story told before the question ("I keep missing my train, how do people cope") and a plea for
// tips or advice ("any tips to pass my exam") leave the style to tell.
func (p *planner) asksAfterOwnThing(text string, raw []lang.Word, plain []string, intents []Intent) bool {
	if len(intents) != 1 {
		return false
	}
	ws := trimLeads(plain)
	if _, advice := matchFrame(ws, adviceFrames); advice || asksForTips(ws) {
		return false
	}
	owned := map[string]bool{}
	for _, w := range p.ix.ownedWords(raw) {
		if p.ix.uses(intents[0].Tool, w) {
			for _, t := range lang.Terms(w) {
				owned[t] = true
			}
		}
	}
	if len(owned) == 0 {
		return false
	}
	head := func(words []lang.Word) bool {
		return slices.ContainsFunc(queryTerms(words), func(q qterm) bool {
			return owned[q.stem] && q.weight >= 1 && !lang.IsLightNoun(q.stem) && !lang.IsNumberTerm(q.stem)
		})
	}
	segs := splitClauses(text)
	if len(segs) == 1 {
		return head(raw)
	}
	return slices.ContainsFunc(segs, func(seg segment) bool {
		return questionOpeners[strings.ReplaceAll(seg.words[0].Lower, "'", "")] && head(seg.words)
	})
}

// asksForTips reports whether words open by asking for tips or advice: "any tips for
// sleeping on a plane" asks for something anyone might know, where "any deals on" asks a
// business. The classifier still decides, and it errs both ways: "any tips for getting more
// points" reads to it as chat, though the points agent could answer it.
func asksForTips(ws []string) bool {
	return len(ws) > 1 && ws[0] == "any" && tipWords[ws[1]]
}

// tipWords, after "any", ask for advice anyone might give.
var tipWords = lang.List("tipWords")

// offerFrames ask what is on offer or on the programme.
var offerFrames = lang.PhraseList("offerFrames") // see language.txt

// asksWhatIsOffered reports whether ws open with one of offerFrames.
func asksWhatIsOffered(ws []string) bool {
	return slices.ContainsFunc(offerFrames, func(f []string) bool { return hasPrefix(ws, f) })
}

// namesSomeone reports whether words speak of someone or something in particular: "his
// lesson", "jake's essay" (and, as it reads possessives only, "today's menu").
func namesSomeone(ws []lang.Word) bool {
	return slices.ContainsFunc(ws, func(w lang.Word) bool {
		base, possessive := strings.CutSuffix(w.Lower, "'s")
		return w.Lower == "his" || w.Lower == "her" || possessive && !lang.IsStopword(base)
	})
}

// adviceFrames ask what to do, in general or about the user's own life.
var adviceFrames = lang.PhraseList("adviceFrames") // see language.txt

// questionOpeners open a question. Modal verbs are left out: "can the electrician come on
// thursday" asks for a service, impersonal as it is.
var questionOpeners = lang.List("questionOpeners")

// namedAgentAsideFloor is how sure the style must be that a message naming an agent by its
// own name is an aside (see language.txt).
var namedAgentAsideFloor = lang.Number("namedAgentAsideFloor")

// namesAnAgent reports whether words name an agent by its own name ("the tutor never tells me
// anything" beside a tutoring agent): most such messages are about the agent's service.
func (p *planner) namesAnAgent(ws []lang.Word) bool {
	return slices.ContainsFunc(queryTerms(ws), func(q qterm) bool { return p.ix.names[q.stem] })
}
