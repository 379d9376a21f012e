package route

import (
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// An aside is a message that asks for no service: a closing ("thanks, that's all for now"),
// small talk with the assistant ("how's your day going"), a creative request ("tell me a joke
// about airports") or a question about how the world is rather than about the user's own
// affairs ("who won last night", "why is the sky blue"). Such messages often share a word with
// an agent, and a topic match alone would send them there; a careful person answers them
// directly. The rules below are English speech acts, not knowledge of any agent.

// isAside reports whether a message, given as its plain words (see plainWords), is an aside.
// trade, when given, reports whether a stem is a word of some agent's trade (see
// index.tradeWord): a question about the world is an aside only when it uses none, since an
// agent's trade is not the world at large for its users ("why is the refund taking so long",
// "will it rain" beside a weather agent).
func isAside(ws []string, trade func(stem string) bool) bool {
	if len(ws) == 0 {
		return false
	}
	if isClosing(ws) || isSmallTalk(ws) {
		return true
	}
	ws = trimLeads(ws)
	if len(ws) == 0 {
		return false
	}
	if _, ok := matchFrame(ws, creativeFrames); ok {
		return true // "write me a poem about my cat" is still a poem
	}
	if hasPersonalStake(ws) {
		return false
	}
	rest, ok := matchFrame(ws, worldFrames)
	if r, history := asksHistory(ws); !ok && history {
		rest, ok = r, true // "tell me about the history of insurance"
	}
	if !ok {
		rest, ok = matchFrame(ws, openQuestionFrames)
	}
	// "why is it higher than last month" asks about something said before.
	if !ok || slices.ContainsFunc(rest, func(w string) bool { return pronouns[w] }) {
		return false
	}
	// "will it rain tomorrow" is a question about the world, unless an agent forecasts rain.
	// Last, as trade may read the message's sentence, which costs milliseconds.
	return trade == nil || !slices.ContainsFunc(lang.Terms(strings.Join(ws, " ")), trade)
}

// asksHistory reports whether plain words ask for the history of something, and returns the
// words after "history of".
func asksHistory(ws []string) ([]string, bool) {
	if i := slices.Index(ws, "history"); i >= 0 && i+1 < len(ws) && ws[i+1] == "of" {
		return ws[i+2:], true
	}
	return nil, false
}

// mishapWords and pastAuxiliaries: see language.txt.
var mishapWords, pastAuxiliaries = lang.List("mishapWords"), lang.List("pastAuxiliaries")

// asksWhyItHappened reports whether plain words ask why a business did something to the user's
// booking or account: "why did the climbing class get cancelled", "why was the van rental
// charged twice". Such a question is a request for an explanation the agent holds.
func asksWhyItHappened(ws []string) bool {
	ws = trimLeads(ws)
	return len(ws) > 2 && ws[0] == "why" && pastAuxiliaries[ws[1]] && slices.ContainsFunc(ws[2:], func(w string) bool { return mishapWords[w] })
}

// plainWords returns the lowercased words of text with apostrophes dropped, so that "what's"
// and "whats" read alike.
func plainWords(text string) []string {
	return plainWordsOf(lang.ScanWords(text))
}

// plainWordsOf is plainWords for words already scanned.
func plainWordsOf(ws []lang.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ReplaceAll(w.Lower, "'", "")
	}
	return out
}

// closingWords may accompany thanks or a goodbye without making a request: "thanks so much,
// that's everything", "have a nice day".
var closingWords = lang.List("closingWords")

// isClosing reports whether a message only thanks or takes leave.
func isClosing(ws []string) bool {
	polite := false
	for _, w := range ws {
		switch {
		case thanksWords[w] || byeWords[w]:
			polite = true
		case closingWords[w] || ackWords[w] || greetingWords[w]:
		default:
			return false
		}
	}
	return polite
}

// smallTalk asks the assistant how it is, selfTalk what it is (see language.txt).
var smallTalk, selfTalk = lang.PhraseList("smallTalk"), lang.PhraseList("selfTalk")

// isSmallTalk reports whether a message opens with small talk and asks nothing else: "hey,
// how are you doing today?" but not "how are you? can you check my points" nor "whats up with
// my order".
func isSmallTalk(ws []string) bool {
	return opensWith(ws, smallTalk) || opensWith(ws, selfTalk)
}

// asksWhoIAm reports whether a message of small talk asks what the assistant is.
func asksWhoIAm(ws []string) bool { return opensWith(ws, selfTalk) }

// opensWith reports whether ws, past a greeting and polite leads, is one of phrases followed
// by nothing that asks more.
func opensWith(ws []string, phrases [][]string) bool {
	ws = trimLeads(afterGreeting(ws))
	for _, p := range phrases {
		if hasPrefix(ws, p) && !slices.ContainsFunc(ws[len(p):], func(w string) bool {
			return !smallTalkTail[w] && !closingWords[w] && !greetingWords[w]
		}) {
			return true
		}
	}
	return false
}

// afterGreeting returns ws without the greeting it opens with: "good morning, how are you".
func afterGreeting(ws []string) []string {
	greeted := false
	for len(ws) > 0 && (greetingWords[ws[0]] || ws[0] == "good" && len(ws) > 1 && greetingWords[ws[1]] ||
		greeted && greetingVocatives[ws[0]]) {
		greeted = greeted || greetingWords[ws[0]]
		ws = ws[1:]
	}
	return ws
}

// greetingVocatives: see language.txt.
var greetingVocatives = lang.List("greetingVocatives")

// smallTalkTail may follow small talk without turning it into a request.
var smallTalkTail = lang.List("smallTalkTail")

// leads open a message without saying anything: greetings, fillers and polite asks.
var leads = lang.List("leads")

// politeAsks open a request politely: "can you", "could you" (see language.txt).
var politeAsks = lang.PhraseList("politeAsks")

// trimLeads drops leads and a polite "can you" / "could you" from the front.
func trimLeads(ws []string) []string {
	for len(ws) > 0 && leads[ws[0]] {
		ws = ws[1:]
	}
	for _, p := range politeAsks {
		if hasPrefix(ws, p) {
			return ws[len(p):]
		}
	}
	return ws
}

// creativeFrames ask the assistant to make something up or suggest something to enjoy.
var creativeFrames = lang.PhraseList("creativeFrames") // see language.txt

// worldFrames ask how the world is: its history, who won, the weather.
var worldFrames = lang.PhraseList("worldFrames") // see language.txt

// openQuestionFrames open questions about the world as often as about a service.
var openQuestionFrames = lang.PhraseList("openQuestionFrames") // see language.txt

// judgements close a yes/no question about the world: "is yoga actually good for back pain",
// "are electric cars really better for the environment". Plain praise ("good", "worth") is
// left out: "are the headphones worth buying" asks about a product.
var judgements = lang.List("judgements")

// contests mark a question about a game or an election: "did the lakers cover the spread".
// Losing is left out: "did the package get lost" is about a delivery.
var contests = lang.List("contests")

// ways mark a question about how something in the world comes about. "Work" is left out: "how
// does the points program work" asks about the service.
var ways = lang.List("ways")

// matchFrame returns the words after the first of frames that ws opens with and whose
// condition holds: "did the" needs a contest, "how do" a way, "is" and "are" a judgement and
// no "there". ok is false when none does.
func matchFrame(ws []string, frames [][]string) (rest []string, ok bool) {
	for _, f := range frames {
		if !hasPrefix(ws, f) {
			continue
		}
		rest := ws[len(f):]
		var need map[string]bool
		switch {
		case slices.Equal(f, []string{"did", "the"}):
			need = contests
		case len(f) == 2 && f[0] == "how" && f[1] != "tall" && f[1] != "deep":
			need = ways
		case len(f) == 1 && (f[0] == "is" || f[0] == "are"):
			if len(rest) > 0 && rest[0] == "there" {
				continue
			}
			need = judgements
		}
		if need == nil || slices.ContainsFunc(rest, func(w string) bool { return need[w] }) {
			return rest, true
		}
	}
	return nil, false
}

// pronouns stand for something named in an earlier message.
var pronouns = lang.List("pronouns")

// personal words tie a question to the user's own affairs.
var personal = lang.List("personal")

// hasPersonalStake reports whether a message is about the user's own things: it says my, I or
// we, or carries a number (an order, a date, an amount).
func hasPersonalStake(ws []string) bool {
	for i, w := range ws {
		if w == "me" && i > 0 && askVerbs[ws[i-1]] {
			continue // "tell me about the history of insurance" asks for nothing of the user's
		}
		if personal[w] || strings.ContainsAny(w, "0123456789") {
			return true
		}
	}
	return false
}

// askVerbs before "me" ask the assistant to say something, not to act on the user's things.
var askVerbs = lang.List("askVerbs")

// hasPrefix reports whether the words ws open with the words p.
func hasPrefix(ws, p []string) bool {
	return len(ws) >= len(p) && slices.Equal(ws[:len(p)], p)
}
