package route

import (
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// chat is the kind of message answered without any tool.
type chat int

const (
	chatNone chat = iota
	chatGreeting
	chatThanks
	chatBye
	chatAck
	chatCapabilities
	chatSmallTalk
	// chatAside is a question about the world or a creative request: answered like anything
	// else no tool serves, and never taken for a follow-up of an earlier message.
	chatAside
	// chatPerson asks for a person rather than the assistant: answered directly, never routed.
	chatPerson
	// chatFault finds fault with the assistant's help: answered with an apology, never routed.
	chatFault
	// chatDismiss drops what was asked ("never mind"): acknowledged, never routed.
	chatDismiss
	// chatReaction only exclaims or apologises ("omg", "oh no", "my bad"): answered, never
	// routed.
	chatReaction
)

var (
	greetingWords = lang.List("greetingWords")
	thanksWords   = lang.List("thanksWords")
	byeWords      = lang.List("byeWords")
	ackWords      = lang.List("ackWords")
)

// reacts reports whether a word only reacts to what was said: an acknowledgement ("nice") or
// laughter ("lol", "hahaha"). A message of such words and function words asks nothing.
func reacts(w string) bool {
	return ackWords[w] || laughs(w)
}

// laughs reports whether a word spells out laughter, however drawn out: "lol", "lool",
// "haha", "hehehe", "lmao".
func laughs(w string) bool {
	switch w {
	case "lmao", "lmfao", "rofl", "xd":
		return true
	}
	if len(w) >= 3 && w[0] == 'l' && w[len(w)-1] == 'l' && strings.Trim(w[1:len(w)-1], "o") == "" {
		return true // lol, lool
	}
	for _, unit := range []string{"ha", "he", "ah"} {
		if len(w) >= 4 && strings.Trim(strings.ReplaceAll(w, unit, ""), "h") == "" && strings.Count(w, unit) >= 2 {
			return true // haha, hehehe, ahahah
		}
	}
	return false
}

// capabilityPhrases ask what the assistant can do.
var capabilityPhrases = []string{
	"what can you do", "what can you help", "what do you do", "how can you help",
	"what are you", "who are you", "what can i ask", "what can i do", "capabilit",
	"what are your", "what do you know", "what else can you",
}

var (
	personNouns   = lang.List("personNouns")
	contactVerbs  = lang.List("contactVerbs")
	personFillers = lang.List("personFillers")
)

// asksForPerson reports whether a message, read into plain words, only asks for a person
// rather than the assistant (see language.txt): "can i speak to a real person", "agent pls",
// but not "can i speak to someone about my deposit".
func asksForPerson(pw []string) bool {
	var person, contact bool
	for _, w := range pw {
		switch {
		case personNouns[w]:
			person = true
		case contactVerbs[w]:
			contact = true
		case w == "my" || w == "our":
			return false // "my agent" is someone of the user's world: a realtor, a broker
		case personFillers[w] || lang.IsStopword(w):
		default:
			return false
		}
	}
	return person && (contact || len(pw) <= 2)
}

var (
	faultWords   = lang.List("faultWords")
	helpWords    = lang.List("helpWords")
	negations    = lang.List("negations")
	faultFillers = lang.List("faultFillers")
)

// findsFault reports whether a message, read into plain words, only finds fault with the
// assistant's help (see language.txt): "this is useless", "that didn't answer my question",
// but not "this blender is useless" nor "i got the wrong size".
func findsFault(pw []string) bool {
	var fault, negated, help bool
	for _, w := range pw {
		switch {
		case faultWords[w]:
			fault = true
		case negations[w]:
			negated = true
		case helpWords[w]:
			help = true
		case faultFillers[w] || lang.IsStopword(w):
		default:
			return false
		}
	}
	return fault || negated && help
}

// emptyWords: see language.txt.
var emptyWords = lang.List("emptyWords")

// asksNothing reports whether a message, read into plain words, is made of stopwords and
// emptyWords alone: "can you help me", "never mind".
func asksNothing(pw []string) bool {
	return len(pw) > 0 && !slices.ContainsFunc(pw, func(w string) bool { return !emptyWords[w] && !lang.IsStopword(w) })
}

// namesBelongings reports whether words made only of stopwords and empty words still name the
// user's things: a possessive before a word other than "question" ("where are my things",
// "where's my stuff", but not "i have a question about my question").
func namesBelongings(pw []string) bool {
	for i := 1; i < len(pw); i++ {
		if possessives[pw[i-1]] && !possessives[pw[i]] && !strings.HasPrefix(pw[i], "question") {
			return true
		}
	}
	return false
}

var dismissWords, dismissFillers = lang.List("dismissWords"), lang.List("dismissFillers")

// dismisses reports whether a message, read into plain words, only drops what was asked (see
// language.txt): "never mind", "nah forget it", "no", but not "no, the other order".
func dismisses(pw []string) bool {
	dropped := false
	for i, w := range pw {
		switch {
		case dismissWords[w] || w == "mind" && i > 0 && pw[i-1] == "never":
			dropped = true
		case dismissFillers[w]:
		default:
			return false
		}
	}
	return dropped
}

var reactionWords, reactionPhrases, reactionFillers = lang.List("reactionWords"), lang.List("reactionPhrases"), lang.List("reactionFillers")

// exclaims reports whether a message, read into plain words, only exclaims or apologises (see
// language.txt): "omg", "oh no", "sorry my bad", but not "oh no, my order is late" or "no".
func exclaims(pw []string) bool {
	reacted := false
	for i := 0; i < len(pw); i++ {
		switch {
		case i+2 < len(pw) && reactionPhrases[pw[i]+" "+pw[i+1]+" "+pw[i+2]]:
			reacted, i = true, i+2
		case i+1 < len(pw) && reactionPhrases[pw[i]+" "+pw[i+1]]:
			reacted, i = true, i+1
		case reactionWords[pw[i]]:
			reacted = true
		case reactionFillers[pw[i]]:
		default:
			return false
		}
	}
	return reacted
}

var apologies = lang.List("apologies")

// apologises reports whether words say sorry ("my bad", "oops") rather than only exclaim.
func apologises(pw []string) bool {
	for i, w := range pw {
		if apologies[w] || i > 0 && apologies[pw[i-1]+" "+w] {
			return true
		}
	}
	return false
}

// chatKind classifies a message that is pure chit-chat; chatNone for anything else.
func chatKind(text string) chat {
	lower := strings.Join(strings.Fields(lang.Normalise(text)), " ")
	for _, p := range capabilityPhrases {
		if strings.Contains(lower, p) {
			return chatCapabilities
		}
	}
	ws := lang.ScanWords(text)
	if len(ws) == 0 {
		return chatGreeting
	}
	pw := plainWordsOf(ws)
	if asksForPerson(pw) {
		return chatPerson
	}
	if findsFault(pw) {
		return chatFault
	}
	if exclaims(pw) {
		return chatReaction
	}
	if dismisses(pw) {
		return chatDismiss
	}
	if isClosing(pw) {
		if slices.ContainsFunc(pw, func(w string) bool { return thanksWords[w] }) {
			return chatThanks
		}
		return chatBye
	}
	if isSmallTalk(pw) {
		return chatSmallTalk
	}
	if len(ws) <= 2 && ws[0].Lower == "help" {
		return chatCapabilities
	}
	var greet, thanks, bye, ack bool
	for _, w := range ws {
		switch {
		case thanksWords[w.Lower]:
			thanks = true
		case byeWords[w.Lower]:
			bye = true
		case greetingWords[w.Lower]:
			greet = true
		case reacts(w.Lower):
			ack = true
		case lang.IsStopword(w.Lower):
		default:
			return chatNone
		}
	}
	switch {
	case thanks:
		return chatThanks
	case bye:
		return chatBye
	case greet:
		return chatGreeting
	case ack:
		return chatAck
	}
	if isAside(pw, nil) {
		return chatAside
	}
	return chatNone
}

// DirectAnswer replies without tools. Capabilities come from the first sentence of each
// tool's description, so the answer follows whatever agents are configured.
func DirectAnswer(text string, tools []llms.Tool) string {
	if answer, ok := arithmetic(text); ok {
		return answer
	}
	// One friendly sentence naming what the assistant can help with: the tools' names, never
	// their descriptions pasted in full.
	offer := ""
	if names := toolNames(tools); names != "" {
		offer = "I can help with " + names + "."
	}
	ws := lang.ScanWords(text)
	pw := plainWordsOf(ws)
	hello := "" // "good morning, how are you?" greets too
	if len(afterGreeting(pw)) < len(pw) {
		hello = "Hello! "
	}
	switch chatKind(text) {
	case chatGreeting:
		if offer == "" {
			return "Hello! How can I help?"
		}
		return "Hello! " + offer + " What would you like to do?"
	case chatThanks:
		return "You're welcome! Is there anything else I can help with?"
	case chatBye:
		return "Goodbye! Come back any time."
	case chatAck:
		return "Glad to help. Anything else?"
	case chatDismiss:
		return "No problem. I'm here if you need anything else."
	case chatReaction:
		if apologises(pw) {
			return strings.TrimSpace("No worries! What can I help you with? " + offer)
		}
		return strings.TrimSpace("Is there anything I can help with? " + offer)
	case chatFault:
		return strings.TrimSpace("I'm sorry that wasn't helpful. " + offer)
	case chatPerson:
		return strings.TrimSpace("I'm an automated assistant and can't put you through to a person from here. " + offer)
	case chatCapabilities:
		if offer == "" {
			return "I can chat, but I have no tools to look anything up in this conversation."
		}
		return offer + " Just ask."
	case chatSmallTalk:
		reply := "I'm doing well, thanks for asking!"
		if asksWhoIAm(pw) {
			reply = "I'm an automated assistant, not a person."
		}
		return strings.TrimSpace(hello + reply + " " + offer)
	}
	// A message no tool serves may still thank or greet in words of its own ("you're a
	// lifesaver, thanks", "hey team, is it going to snow"): the reply answers that part.
	if slices.ContainsFunc(pw, func(w string) bool { return thanksWords[w] }) && !asksSomething(text, ws) {
		return "You're welcome! Is there anything else I can help with?"
	}
	if asksNothing(pw) {
		return strings.TrimSpace(hello + "What can I help you with? " + offer)
	}
	if offer == "" {
		return hello + "I'm sorry, I can't help with that here: I have no tools to look it up."
	}
	return hello + "Sorry, I can't help with that here. " + offer
}

// toolNames lists the tools by name, in words ("shop, rewards, support and travel"): for the
// orchestrator these are its sub-agents.
func toolNames(tools []llms.Tool) string {
	var names []string
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		if n := lang.Humanise(strings.TrimPrefix(t.Function.Name, lang.RoutePrefix)); n != "" {
			names = append(names, n)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1:
		return names[0]
	case len(names) > namedOffers:
		// A service of thirty agents would read its whole directory out; the first few say
		// what kind of help there is.
		return strings.Join(names[:namedOffers], ", ") + " and " + strconv.Itoa(len(names)-namedOffers) + " more"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// namedOffers is how many agents a reply names when it says what the assistant can help with.
const namedOffers = 8
