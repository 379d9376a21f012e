package route

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A follow-up with no subject of its own ("when do they run out" after a points question,
// "how much am i getting paid out" after a claim, "can I cancel it?" after an order) is about
// the previous turn's subject, however well one of its words suits another agent: "run" is a
// shop word, "paid" and "how much" price words, "cancel" a gym word. Such a message only says
// what to do or know about the earlier thing. A thing it names itself ("how much are neck
// pillows", "any coupons for headphones"), that the earlier agent's texts do not use, moves the
// conversation on, whether or not an agent knows the word.

var maxSubjectlessWords = int(lang.Number("maxSubjectlessWords")) // see language.txt

// verbLeads come right before a verb: "do they run", "can we get", "getting paid". A word
// after one is what is done, not the thing it is done to.
var verbLeads = lang.List("verbLeads")

// userLeads come before what the user does or is: "can I cancel it" is about the earlier
// thing, but "when do i fly out next" and "am i gold yet" name a subject of their own. The
// word after one is read as a verb only when the message points back.
var userLeads = lang.List("userLeads")

// subjectWh ask who or what does something: the -s word after one is then its verb.
var subjectWh = lang.List("subjectWh")

// backPointers point back at a person or things named before.
var backPointers = lang.List("backPointers")

// whenLeads come right before a word that says when, not what: "after school", "before work".
var whenLeads = lang.List("whenLeads")

// degreeWords say how much of a quality the earlier thing has: "so expensive", "too late".
var degreeWords = lang.List("degreeWords")

// orderWords say when or in what order, not what: "how much would i pay first".
var orderWords = lang.List("orderWords")

// frameWords frame a question without naming its subject.
var frameWords = lang.List("frameWords")

// moreWords, closing a follow-up, stand for more of the earlier thing: "can i buy more".
var moreWords = lang.List("moreWords")

// unitLeads come before the unit of a price: "how much per head".
var unitLeads = lang.List("unitLeads")

// shorthand are chat spellings of small words ("tho", "rn", "em"): never a subject.
var shorthand = lang.List("shorthand")

// measureWords count or describe a thing without naming it: "3 packs", "a pair".
var measureWords = lang.List("measureWords")

// beEndings end a contracted form of "be": "who's", "they're".
var beEndings = lang.List("beEndings")

// unnamedPeople stand for a person the message does not name: "can i bring someone".
var unnamedPeople = lang.List("unnamedPeople")

// namesNewSubject reports whether the message, read into words ws, names a thing of its own:
// a content word that is not a verb, a time, a question frame or a description of the earlier
// thing ("the earliest", "so expensive"), and that none of the previous turn's agents
// (documents prev) uses. unmatched says no agent's words reach the message: then what the user
// does ("can i pay by card", "can you send me the details") is done to the earlier thing.
func (ix *Index) namesNewSubject(ws []lang.Word, prev []Intent, to int, unmatched bool) bool {
	// A closing "more" stands for more of the earlier thing: "can i buy more".
	pointsBack := unmatched || len(ws) > 0 && moreWords[ws[len(ws)-1].Lower] ||
		slices.ContainsFunc(ws, func(w lang.Word) bool { return backPointers[w.Lower] })
	verb := imperativeVerb(ws)
	for i, w := range ws {
		lw := w.Lower
		ts := lang.AppendTerms(nil, lw)
		// Whom the request is for (people) is no subject ("and for my son?").
		if len(ts) == 0 || fillers[lw] || noise[lw] || shorthand[lw] || ackWords[lw] || timeNouns[lw] || frameWords[lw] ||
			orderWords[lw] || anaphora[lw] || numeral(lw) || phraseEnds[lw] || people[lw] || lang.IsLightNoun(lang.Stem(lw)) {
			continue
		}
		// Nor is a condition left unsaid at the end ("if possible", "if needed").
		if i == len(ws)-1 && i > 0 && ws[i-1].Lower == "if" {
			continue
		}
		// An adverb of manner or degree says how, not what: "when exactly", "how quickly".
		if adverb(lw) {
			continue
		}
		// What the earlier thing costs is no new subject: "how much is the renewal fee", "when
		// did i last pay".
		if slices.ContainsFunc(ts, func(t string) bool { return priceStems[t] }) {
			continue
		}
		if i > 0 && (verbLeads[ws[i-1].Lower] || pointsBack && userLeads[ws[i-1].Lower] || whenLeads[ws[i-1].Lower]) {
			continue
		}
		// After a modal and the user the word is what the user would do ("can i bring
		// someone"), and a person left unnamed is no thing: neither names a subject.
		if userVerb(ws, i) || unnamedPeople[lw] {
			continue
		}
		// Where the user goes after that verb is no thing either: "can i drive home after".
		if i > 0 && placeAdverbs[lw] && userVerb(ws, i-1) {
			continue
		}
		// How the thing wanted stands to the earlier one is no thing of its own: "is there
		// anything cheaper nearby" after a hotel's price.
		if relativeWords[lw] {
			continue
		}
		// A word before "one" says which of the earlier things: "the childcare one".
		if i+1 < len(ws) && pronounOnes[ws[i+1].Lower] && i > 0 && articles[ws[i-1].Lower] {
			continue
		}
		// Money the user paid or is owed is the earlier booking's: "will i get my deposit back"
		// after a cancelled stay (see moneyNouns).
		if moneyNouns[lw] {
			continue
		}
		// A particle after the thing it is done to says which way, not what: the "back" of
		// "get my deposit back". Right after its verb it means what the phrasal verb means
		// ("how much will i get back" asks for a refund), and "my back" names a back.
		if verbParticles[lw] && i > 0 && !possessives[ws[i-1].Lower] && !articles[ws[i-1].Lower] && !closeParticle(ws, i) {
			continue
		}
		// After "per" a word is a unit of the price ("how much per head"); after a form of
		// "be" an -ing word is what is going on ("who's teaching").
		if unitLeads[lw] || i > 0 && (unitLeads[ws[i-1].Lower] || ingForm(lw) && beForm(ws[i-1].Lower)) {
			continue
		}
		// A closing degree or a superlative standing for the thing names none: "why so
		// expensive", "whats the earliest you can do", "which gate is closest".
		closing := i == len(ws)-1 || lang.IsStopword(ws[i+1].Lower)
		if closing && i > 0 && (i == len(ws)-1 && degreeWords[ws[i-1].Lower] || (ws[i-1].Lower == "the" || beForm(ws[i-1].Lower)) && strings.HasSuffix(lw, "est")) {
			continue
		}
		// The verb a request opens with says what to do with the earlier thing, and a
		// measure or the unit after a number how much of it: "send me 3 packs", "5 km";
		// not a thing the agent the message reaches counts ("5000 points").
		if i == verb || measureWords[lw] || i > 0 && numeral(ws[i-1].Lower) && (to < 0 || !ix.uses(to, lw)) {
			continue
		}
		// A word right before one that points back is what is done to the earlier thing:
		// "make it friday", "push that back"; not before a time ("tutoring that day").
		if i+1 < len(ws) && backPointers[ws[i+1].Lower] && !(topicOpeners[ws[i+1].Lower] && saysWhen(ws, i+1)) {
			continue
		}
		if i > 0 && subjectWh[ws[i-1].Lower] && strings.HasSuffix(lw, "s") &&
			(i+1 == len(ws) || !auxiliaries[ws[i+1].Lower] && !modals[ws[i+1].Lower] && !userLeads[ws[i+1].Lower]) {
			continue // "what happens next" asks what is done; "what plans do i have" names plans
		}
		if slices.ContainsFunc(prev, func(in Intent) bool { return ix.uses(in.Tool, lw) }) {
			continue
		}
		// A thing of someone or something named before ("whats her phone number" after a
		// project manager) or the kind of a price ("did they charge us a late fee" after a
		// statement) is a side of the earlier subject, whichever agent's texts use the word,
		// unless it names an agent ("his tutoring fee").
		if (pointedOwner(ws, i) || i+1 < len(ws) && priced(ws[i+1].Lower)) &&
			!slices.ContainsFunc(ts, func(t string) bool { return ix.names[t] }) {
			continue
		}
		// A word many agents use ("due", "list") is a side of many things, not one of its own:
		// "when is the next one due" after a bill asks about the bill.
		if ix.common(lw) {
			continue
		}
		// A thing neither agent's texts name is the kind of thing of the one it sits
		// nearer in meaning to: an "suv" after rental cars, a vacuum after an order.
		if to >= 0 && !ix.uses(to, lw) && ix.nearerPrev(ts, prev, to) {
			continue
		}
		return true
	}
	return false
}

// userVerb reports whether ws[i] stands after a modal and the user ("can i bring", "could we
// drive"), or those and an adverb ("can i still cancel"): what the user would do.
func userVerb(ws []lang.Word, i int) bool {
	j := i - 1
	if j > 1 && verbAdverbs[ws[j].Lower] {
		j--
	}
	return j > 0 && modals[ws[j-1].Lower] && userLeads[ws[j].Lower]
}

// verbAdverbs: see language.txt.
var verbAdverbs = lang.List("verbAdverbs")

// closeParticle reports whether ws[i] is the particle of one of phrasalVerbs right after its
// verb, or after its verb and a pronoun: "get back", "send it back".
func closeParticle(ws []lang.Word, i int) bool {
	j := i - 1
	if j > 0 && phrasalObjects[ws[j].Lower] {
		j--
	}
	_, ok := phrasalByForm[[2]string{ws[j].Lower, ws[i].Lower}]
	return ok
}

// relativeWords: see language.txt.
var relativeWords = lang.List("relativeWords")

// pronounOnes: see language.txt.
var pronounOnes = lang.List("pronounOnes")

// articles: see language.txt.
var articles = lang.List("articles")

// placeAdverbs: see language.txt.
var placeAdverbs = lang.List("placeAdverbs")

// pointingPossessives say whose a thing is by pointing back at someone or something named
// before (see language.txt).
var pointingPossessives = lang.List("pointingPossessives")

// pointedOwner reports whether ws[i] stands in the noun phrase, of at most maxOwnedWords
// words, after one of pointingPossessives that points back at an earlier turn: "phone" and
// "number" in "whats her phone number". One after a thing the message names points at that
// thing ("how do streaming services pay their actors"); one after a verb of asking ("can you
// send me her email") names none.
func pointedOwner(ws []lang.Word, i int) bool {
	for j := i; j >= 0 && j > i-maxOwnedWords && !lang.IsStopword(ws[j].Lower); j-- {
		if j > 0 && pointingPossessives[ws[j-1].Lower] {
			return !slices.ContainsFunc(ws[:j-1], func(w lang.Word) bool { return !lang.IsStopword(w.Lower) && !requestVerbs[w.Lower] })
		}
	}
	return false
}

// priced reports whether a lowercased word is one of priceWords ("fee").
func priced(w string) bool {
	return slices.ContainsFunc(lang.Terms(w), func(t string) bool { return priceStems[t] })
}

// nearerPrev reports whether the terms ts come closer in meaning to one of the earlier
// intents' agents than to agent to.
func (ix *Index) nearerPrev(ts []string, prev []Intent, to int) bool {
	sims := ix.similarities(ts)
	return slices.ContainsFunc(prev, func(in Intent) bool { return sims[in.Tool] > sims[to] })
}

// phraseEnds are prepositions and conjunctions that are no stopwords ("within", "without"):
// they relate things, never name one.
var phraseEnds = lang.List("phraseEnds")

// numeral reports whether a lowercased word is a number, cardinal or ordinal ("14", "14th",
// "3rd"): a count or a date, never a thing.
func numeral(w string) bool {
	for _, end := range []string{"st", "nd", "rd", "th"} {
		if n, ok := strings.CutSuffix(w, end); ok {
			w = n
			break
		}
	}
	return lang.IsDigits(w)
}

// asksSomething reports whether a message, read into words ws, asks a question or for
// something to be done, rather than telling or chatting ("im bored").
func asksSomething(text string, ws []lang.Word) bool {
	plain := plainWordsOf(afterPivots(ws))
	return len(plain) > 0 && (strings.Contains(text, "?") || questionOpeners[plain[0]] || modals[plain[0]] || imperative(ws))
}

// beForm reports whether a lowercased word is one of beForms, or ends in one of beEndings:
// "is", "who's", "they're".
func beForm(w string) bool {
	if beForms[w] {
		return true
	}
	for end := range beEndings {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// minAdverbLetters: see language.txt.
var minAdverbLetters = int(lang.Number("minAdverbLetters"))

// adverb reports whether a lowercased word is an adverb made of an English word and "ly"
// ("exactly", "quickly", "monthly"), which says how or how often rather than naming a thing.
// Short words and those whose base is no word ("reply", "family", "supply") are left alone.
func adverb(w string) bool {
	base, ok := strings.CutSuffix(w, "ly")
	return ok && len(w) >= minAdverbLetters && lang.Dictionary().Known(lang.Stem(lang.Normalise(base)))
}

// asksOnEarlierSubject reports whether a message that reads as small talk or a question about
// the world (plain, ws its words) is, in a conversation, a question about what the previous
// turn asked: it asks something, is no greeting, thanks or creative ask, and names no subject
// of its own (see namesNewSubject): "why so many absences" after grades, "how long would that
// take" after a quote. A word of its own ("is flying that often bad for the environment") makes
// it a question about the world.
func (p *planner) asksOnEarlierSubject(plain []string, ws []lang.Word, earlier func() []planned) bool {
	if len(ws) > maxSubjectlessWords || isClosing(plain) || isSmallTalk(plain) || !asksSomething(strings.Join(plain, " "), ws) {
		return false
	}
	if _, creative := matchFrame(trimLeads(plain), creativeFrames); creative {
		return false
	}
	prev := firstPlanned(earlier())
	return prev != nil && (opensFollowUp(ws) || !p.ix.namesNewSubject(ws, prev.intents, -1, false))
}

// onlyKnownWords reports whether a message, read into words ws, reaches agent tool through at
// least one word, and each of its words that could say what it is about is used by that agent
// or by one of the earlier intents' agents: it names nothing new to either.
func (ix *Index) onlyKnownWords(ws []lang.Word, tool int, earlier []Intent) bool {
	reached := false
	for _, w := range ws {
		lw := w.Lower
		if len(lang.AppendTerms(nil, lw)) == 0 || lang.IsStopword(lw) || noise[lw] || shorthand[lw] || fillers[lw] ||
			anaphora[lw] || timeNouns[lw] || lang.IsDigits(lw) {
			continue
		}
		if ix.uses(tool, lw) {
			reached = true
			continue
		}
		if !slices.ContainsFunc(earlier, func(in Intent) bool { return ix.uses(in.Tool, lw) }) {
			return false
		}
	}
	return reached
}

// commonShare, commonAgents: see language.txt.
var (
	commonShare  = lang.Number("commonShare")
	commonAgents = int(lang.Number("commonAgents"))
)

// common reports whether a lowercased word is used by at least commonShare of the agents'
// texts, and by commonAgents of them at least: every trade has such a word, so it singles
// none out.
func (ix *Index) common(w string) bool {
	rs := ix.resolve(lang.AppendTerms(nil, w)) // once, not once per document as uses would
	n := 0
	for _, d := range ix.docs {
		if slices.ContainsFunc(rs, func(r resolved) bool { return r.term != "" && d.tf[r.term] > 0 }) {
			n++
		}
	}
	return n >= commonAgents && float64(n) >= commonShare*float64(len(ix.docs))
}
