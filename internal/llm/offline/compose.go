package offline

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Statuses of the tool wrapper a sub-agent gives its LLM, and of failure notes.
const (
	resultOK          = "ok"
	resultPartial     = "partial"
	resultUnavailable = "unavailable"
	resultError       = "error"
)

// transitions introduce the second, third... result of a composed reply.
var transitions = []string{"Also, ", "And ", "On top of that, "}

// compose narrates the tool results that follow the last human message, in order, as one
// reply. No JSON, status word or tool name reaches the text.
func (m *Model) compose(req *request) string {
	r := renderer{listLimit: m.opts.listLimit}
	texts := make([]string, 0, len(req.results))
	failed := make([]bool, 0, len(req.results))
	for _, res := range req.results {
		t, bad := r.narrate(res)
		if t == "" {
			continue
		}
		texts = append(texts, t)
		failed = append(failed, bad)
	}
	switch len(texts) {
	case 0:
		return "I didn't find anything for that."
	case 1:
		return texts[0]
	}
	var b strings.Builder
	for i, t := range texts {
		switch {
		case i == 0 && !failed[0] && !strings.HasPrefix(t, "I found") && !strings.HasPrefix(t, "Here"):
			b.WriteString("Here's what I found. ")
			b.WriteString(t)
		case i == 0:
			b.WriteString(t)
		default:
			b.WriteString("\n\n")
			b.WriteString(transitions[(i-1)%len(transitions)])
			b.WriteString(lowerFirst(t))
		}
	}
	return b.String()
}

// narrate renders one tool result and reports whether it is a failure acknowledgment.
func (r renderer) narrate(res toolResult) (string, bool) {
	content := strings.TrimSpace(res.content)
	topic := topicOf(res)
	if note, ok := failureNote(content); ok {
		return topic.unavailable(note), true
	}
	if !strings.HasPrefix(content, "{") && !strings.HasPrefix(content, "[") {
		return content, false // a sub-agent's own words
	}
	v, err := decodeOrdered([]byte(content))
	if err != nil {
		return topic.unavailable(""), true // never show what could not be read
	}
	obj, isObj := v.([]field)
	status, _ := member(obj, "status")
	s, _ := status.(string)
	if !isObj || !isResultStatus(s) {
		return r.orNothing(r.data(v), topic), false
	}
	data, _ := member(obj, "data")
	note, _ := member(obj, "note")
	noteText, _ := note.(string)
	switch s {
	case resultUnavailable, resultError:
		return topic.unavailable(noteText), true
	case resultPartial:
		caveat := "Some of this may be incomplete right now"
		if n := cleanNote(noteText); n != "" {
			caveat += ": " + n
		}
		body := r.orNothing(r.data(data), topic)
		sep := " "
		if strings.Contains(body, "\n") {
			sep = "\n" // after a list, not inside its last item
		}
		return body + sep + caveat + ".", false
	}
	return r.orNothing(r.data(data), topic), false
}

func isResultStatus(s string) bool {
	switch s {
	case resultOK, resultPartial, resultUnavailable, resultError:
		return true
	}
	return false
}

func (r renderer) orNothing(text string, t topic) string {
	if strings.TrimSpace(text) != "" {
		return text
	}
	if t.noun != "" {
		return "I didn't find anything for " + t.noun + "."
	}
	return "I didn't find anything for that."
}

// failureNote recognises a plain-text failure note ("unavailable: ...").
func failureNote(content string) (string, bool) {
	lower := strings.ToLower(content)
	for _, p := range []string{resultUnavailable, resultError} {
		if strings.HasPrefix(lower, p) && (len(lower) == len(p) || strings.ContainsRune(":-. ", rune(lower[len(p)]))) {
			return strings.TrimLeft(content[len(p):], ":-. \t\n"), true
		}
	}
	return "", false
}

// topic names what a tool result is about, for acknowledgments.
type topic struct {
	noun  string // "the points balance", from a data tool's name
	quote string // the user's words, from a sub-agent call's request
}

// toolVerbs lead tool names without saying what the data is.
var toolVerbs = setOf("get", "fetch", "search", "find", "list", "lookup", "look", "check", "load",
	"show", "query", "retrieve", "read", "ask", "browse", "view")

func topicOf(res toolResult) topic {
	var t topic
	if res.call != nil && res.call.FunctionCall != nil {
		var args map[string]any
		if json.Unmarshal([]byte(res.call.FunctionCall.Arguments), &args) == nil {
			if q, ok := args["request"].(string); ok {
				t.quote = strings.TrimRight(strings.TrimSpace(ownPart(q)), "?!., ")
			}
		}
	}
	if strings.HasPrefix(res.name, routePrefix) {
		return t // a sub-agent's id is not something to show
	}
	words := strings.Fields(humanise(res.name))
	for len(words) > 1 && toolVerbs[words[0]] {
		words = words[1:]
	}
	if len(words) > 0 && !toolVerbs[words[0]] {
		t.noun = "the " + strings.Join(words, " ")
	}
	return t
}

func (t topic) unavailable(note string) string {
	var b strings.Builder
	switch {
	case t.noun != "":
		b.WriteString("I couldn't get " + t.noun + " right now")
	case t.quote != "":
		b.WriteString("I couldn't get an answer to \"" + t.quote + "\" right now")
	default:
		b.WriteString("I couldn't get that information right now")
	}
	if n := cleanNote(note); n != "" {
		b.WriteString(": " + n)
	}
	b.WriteString(".")
	return b.String()
}

// cleanNote keeps a failure note only when it reads as plain words: a note carrying
// anything code-like (identifiers, status codes, braces) is dropped whole rather than
// shown half-redacted.
func cleanNote(note string) string {
	note = strings.TrimRight(strings.Join(strings.Fields(note), " "), ".!; ")
	if note == "" || len(note) > 200 {
		return ""
	}
	for _, f := range strings.Fields(note) {
		if looksLikeCode(f) {
			return ""
		}
	}
	return lowerFirst(note)
}

var codeWords = setOf("exception", "panic", "nil", "null", "stack", "traceback", "errno", "stacktrace", "undefined")

func looksLikeCode(tok string) bool {
	t := strings.Trim(tok, ".,;:!?()\"'")
	if strings.ContainsAny(t, "_{}[]<>=/\\:@#$") || codeWords[strings.ToLower(t)] {
		return true
	}
	if isDigits(t) && len(t) == 3 && t[0] >= '1' && t[0] <= '5' {
		return true // an HTTP status
	}
	hasDigit, hasUpper, hasLower := false, false, false
	for _, r := range t {
		hasDigit = hasDigit || unicode.IsDigit(r)
		hasUpper = hasUpper || unicode.IsUpper(r)
		hasLower = hasLower || unicode.IsLower(r)
	}
	return hasDigit && (hasUpper || hasLower) // E5001, err42
}

// lowerFirst lower-cases the first word when it is a common word, so that it can follow
// a transition; names and "I" keep their capital.
func lowerFirst(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
	if end < 0 {
		end = len(s)
	}
	first := strings.ToLower(s[:end])
	if first == "" || strings.HasPrefix(first, "i'") || first == "i" || !isStopword(first) && !transitionSafe[first] {
		return s
	}
	return first + s[end:]
}

// transitionSafe are sentence openers that are not stopwords but read fine lower-cased.
var transitionSafe = setOf("sorry", "unfortunately", "good", "great", "here", "none", "nothing")
