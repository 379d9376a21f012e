package offline

import (
	"strings"

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
)

var (
	greetingWords = setOf("hi", "hello", "hey", "hiya", "howdy", "yo", "greetings", "morning", "afternoon", "evening")
	thanksWords   = setOf("thanks", "thank", "thx", "ty", "cheers", "appreciate", "appreciated", "grateful")
	byeWords      = setOf("bye", "goodbye", "later", "cya", "farewell", "night")
	ackWords      = setOf("great", "awesome", "perfect", "cool", "nice", "ok", "okay", "got", "fine", "good", "lovely", "excellent", "sounds", "alright")
)

// capabilityPhrases ask what the assistant can do.
var capabilityPhrases = []string{
	"what can you do", "what can you help", "what do you do", "how can you help",
	"what are you", "who are you", "what can i ask", "what can i do", "capabilit",
	"what are your", "what do you know", "what else can you",
}

// chatKind classifies a message that is pure chit-chat; chatNone for anything else.
func chatKind(text string) chat {
	lower := strings.Join(strings.Fields(normalise(text)), " ")
	for _, p := range capabilityPhrases {
		if strings.Contains(lower, p) {
			return chatCapabilities
		}
	}
	ws := scanWords(text)
	if len(ws) == 0 {
		return chatGreeting
	}
	if len(ws) <= 2 && ws[0].lower == "help" {
		return chatCapabilities
	}
	var greet, thanks, bye, ack bool
	for _, w := range ws {
		switch {
		case thanksWords[w.lower]:
			thanks = true
		case byeWords[w.lower]:
			bye = true
		case greetingWords[w.lower]:
			greet = true
		case ackWords[w.lower]:
			ack = true
		case isStopword(w.lower):
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
	return chatNone
}

// directAnswer replies without tools. Capabilities come from the first sentence of each
// tool's description, so the answer follows whatever agents are configured.
func directAnswer(text string, tools []llms.Tool) string {
	if answer, ok := arithmetic(text); ok {
		return answer
	}
	caps := capabilities(tools)
	switch chatKind(text) {
	case chatGreeting:
		if caps == "" {
			return "Hello! How can I help?"
		}
		return "Hello! Here's what I can help with:\n" + caps + "\nWhat would you like to do?"
	case chatThanks:
		return "You're welcome! Is there anything else I can help with?"
	case chatBye:
		return "Goodbye! Come back any time."
	case chatAck:
		return "Glad to help. Anything else?"
	case chatCapabilities:
		if caps == "" {
			return "I can chat, but I have no tools to look anything up in this conversation."
		}
		return "Here's what I can help with:\n" + caps
	}
	if caps == "" {
		return "I'm sorry, I can't help with that here: I have no tools to look it up."
	}
	return "I'm not sure I can help with that. Here's what I can help with:\n" + caps
}

// capabilities lists the first sentence of each tool description, one per line.
func capabilities(tools []llms.Tool) string {
	var lines []string
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		if s := firstSentence(t.Function.Description); s != "" {
			lines = append(lines, "- "+s)
		}
	}
	return strings.Join(lines, "\n")
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i < len(s); i++ {
		if strings.ContainsRune(".!?", rune(s[i])) && (i+1 == len(s) || s[i+1] == ' ') {
			return s[:i]
		}
	}
	return strings.TrimRight(s, ".!? ")
}
