package answer

import (
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/tmc/langchaingo/llms"
)

// topic names what a tool result is about, for transitions and acknowledgments.
type topic struct {
	noun  string // "your points balance", "the offers": from the tool's name
	bare  string // the same without a determiner: "points balance"
	quote string // the user's words, from a sub-agent call's request
	agent bool   // the tool is a sub-agent (ask_*)
}

// topicOf reads what a tool result is about from the tool's name and the request the call
// quoted.
func topicOf(name string, call *llms.ToolCall) topic {
	var t topic
	if q, ok := callArgs(call)["request"].(string); ok {
		t.quote = strings.TrimRight(strings.TrimSpace(lang.OwnPart(q)), "?!., ")
	}
	name, agent := strings.CutPrefix(name, lang.RoutePrefix)
	t.agent = agent
	var words []string
	for _, w := range strings.Fields(lang.Humanise(name)) {
		if !strings.ContainsFunc(w, unicode.IsDigit) && w != "ID" {
			words = append(words, w) // "v2" and ids are for machines
		}
	}
	searched := false
	for len(words) > 1 && toolVerbs[words[0]] {
		searched = searched || searchVerbs[words[0]]
		words = words[1:]
	}
	if len(words) > 1 && possessives[strings.ToLower(words[0])] {
		words = words[1:] // "list_my_prescriptions" is "your prescriptions", not "your my ..."
	}
	if len(words) == 0 || toolVerbs[words[0]] {
		return t
	}
	t.bare = strings.Join(words, " ")
	t.noun = "your " + t.bare
	if searched {
		t.noun = "the " + t.bare
	}
	return t
}

// listNoun names the items of a bare top-level list: the topic when it reads as a plural.
func (t topic) listNoun() string {
	if w := lastWord(t.bare); len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return t.bare
	}
	return ""
}

// unavailable acknowledges a result that could not be used. A note that is already a plain
// first-person sentence ("I couldn't get an answer from Rewards right now") is used as it
// is; any other plain note follows the acknowledgment unless it only repeats it.
func (t topic) unavailable(note string) Piece {
	n := cleanNote(note)
	if strings.HasPrefix(n, "I ") {
		return Piece{kind: pieceFailure, text: n, plain: true}
	}
	var text string
	switch {
	case t.quote != "" && (t.agent || t.noun == ""):
		text = "I couldn't get an answer to \"" + t.quote + "\" right now"
	case t.noun != "":
		text = "I couldn't get " + t.noun + " right now"
	default:
		text = "I couldn't get that information right now"
	}
	if n == "" || restatesFailure(n) {
		return Piece{kind: pieceFailure, text: text, plain: true}
	}
	return Piece{kind: pieceFailure, text: text + ": " + n}
}

// restatesFailure reports whether a note only says again that data is missing.
func restatesFailure(note string) bool {
	for p := range failurePhrases {
		if strings.Contains(note, p) {
			return true
		}
	}
	return false
}

// failureNote recognises a plain-text failure note ("unavailable: ...").
func failureNote(content string) (string, bool) {
	for _, p := range []string{resultUnavailable, resultError} {
		if hasLowerPrefix(content, p) && (len(content) == len(p) || strings.ContainsRune(":-. ", rune(content[len(p)]))) {
			return strings.TrimLeft(content[len(p):], ":-. \t\n"), true
		}
	}
	return "", false
}

// hasLowerPrefix reports whether s, lower-cased, starts with prefix, a lower-case ASCII word:
// only the prefix is lower-cased, not the whole of what may be a long payload.
func hasLowerPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// cleanNote keeps a failure note only when it reads as plain words: a note carrying
// anything code-like (identifiers, status codes, braces) is dropped whole rather than
// shown half-redacted.
func cleanNote(note string) string {
	note = strings.TrimRight(strings.Join(strings.Fields(note), " "), ".!; ")
	if note == "" || len(note) > 200 || slices.ContainsFunc(strings.Fields(note), looksLikeCode) {
		return ""
	}
	return lowerFirst(note)
}

// looksLikeCode reports whether a word of a note is for machines: marks, codes, HTTP statuses.
func looksLikeCode(tok string) bool {
	t := strings.Trim(tok, ".,;:!?()\"'")
	if strings.ContainsAny(t, "_{}[]<>=/\\:@#$") || codeWords[strings.ToLower(t)] {
		return true
	}
	if lang.IsDigits(t) && len(t) == 3 && t[0] >= '1' && t[0] <= '5' {
		return true // an HTTP status
	}
	// E5001, err42
	return strings.ContainsFunc(t, unicode.IsDigit) && strings.ContainsFunc(t, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) })
}

// lowerFirst lower-cases the first word when it is a common word, so that it can follow
// a transition; names and "I" keep their capital.
func lowerFirst(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
	if end < 0 {
		end = len(s)
	}
	first := strings.ToLower(s[:end])
	if first == "" || strings.HasPrefix(first, "i'") || first == "i" || !lang.IsStopword(first) && !transitionSafe[first] {
		return s
	}
	return first + s[end:]
}
