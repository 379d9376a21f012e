package offline

import "strings"

// subordinators open a clause that frames another rather than asking anything itself:
// "before I buy, ...", "if it's late, ...". "when" is left out: it opens questions far
// more often ("when is my trip").
var subordinators = setOf("before", "after", "since", "because", "if", "once", "while", "whilst",
	"although", "though", "unless", "whenever", "until")

// topicOpeners open a statement or a bare noun phrase rather than a question or a command.
var topicOpeners = setOf("the", "a", "an", "my", "this", "that", "these", "those", "our",
	"i", "i've", "ive", "i'm", "im", "i'd", "we", "we've")

// backReferences in a clause point at something the clause before it named.
var backReferences = setOf("it", "its", "it's", "that", "this", "them", "those", "these", "they", "one", "ones")

// contextClause reports whether segment i only sets the scene for the segment after it,
// so that both are one request: a subordinate clause ("before I buy, I need to fix my
// address"), a statement of what happened before a question ("booked a hotel for the
// marathon, can i still get into the yoga class that morning"), or a statement that the next
// clause points back at ("the shoes I sent back, how's that return going"). A clause ending
// in a question mark asks something itself.
func contextClause(text string, segs []segment, labels []int, i int) bool {
	if i+1 >= len(segs) || labels[i+1] == labelEmpty || len(segs[i].words) == 0 {
		return false
	}
	if strings.Contains(text[segs[i].end:segs[i+1].start], "?") {
		return false
	}
	first := segs[i].words[0].lower
	if subordinators[first] {
		return true
	}
	// A statement that tells what happened sets the scene for a question after it, directly
	// or through more such statements: "my flight got cancelled and the airline refunded me,
	// do I need to put that on my tax return?" asks the tax agent alone.
	plain := strings.ReplaceAll(first, "'", "")
	if statement := !questionOpeners[plain] && !modals[plain] && !asks(text, segs, i); statement && narrates(segs[i].words) {
		if asks(text, segs, i+1) {
			return true
		}
		if len(segs[i+1].words) > 0 && contextClause(text, segs, labels, i+1) {
			return true
		}
	}
	if !topicOpeners[first] {
		return false
	}
	for _, w := range segs[i+1].words {
		if backReferences[w.lower] {
			return true
		}
	}
	return false
}

// asks reports whether segment i asks something: it ends in a question mark or opens as a
// question or a request to the assistant.
func asks(text string, segs []segment, i int) bool {
	end := len(text)
	if i+1 < len(segs) {
		end = segs[i+1].start
	}
	if strings.Contains(text[segs[i].end:end], "?") {
		return true
	}
	ws := plainWordsOf(segs[i].words)
	if len(ws) == 0 {
		return false
	}
	// "is" and "are" open statements as often as questions once a clause is cut out of a
	// sentence ("... and are they in stock").
	if questionOpeners[ws[0]] && ws[0] != "is" && ws[0] != "are" {
		return true
	}
	return len(ws) > 1 && modals[ws[0]] && (secondPerson[ws[1]] || ws[1] == "i")
}

// modals open a request when the assistant or the user follows: "can you", "could i".
var modals = setOf("can", "could", "would", "will")

// narrates reports whether a statement tells what happened, in the past tense, without a
// complaint or a wish in it: "I moved house last month", "the airline refunded me", but not
// "my order never arrived" or "i want to return the blender".
func narrates(ws []word) bool {
	past := false
	for _, w := range ws {
		l := strings.ReplaceAll(w.lower, "'", "")
		if complaintWords[l] {
			return false
		}
		past = past || irregularPast[l] || len(l) > 4 && strings.HasSuffix(l, "ed") && !notPast[l]
	}
	return past
}

// complaintWords turn a statement of what happened into a request of its own: something went
// wrong, or the user wants something.
var complaintWords = setOf("not", "never", "no", "cant", "cannot", "couldnt", "didnt", "doesnt", "dont",
	"wont", "wasnt", "isnt", "havent", "hasnt", "want", "wanted", "need", "needed", "wrong", "broken",
	"broke", "missing", "lost", "still", "yet", "again", "twice", "late", "damaged", "charged", "problem")

// irregularPast are common past forms that do not end in -ed.
var irregularPast = setOf("got", "had", "went", "bought", "made", "took", "left", "came", "paid", "sent",
	"gave", "told", "said", "saw", "met", "did", "was", "were", "flew", "drove", "ran", "began", "spent",
	"sold", "won", "ate", "brought", "found", "heard", "kept")

// notPast end in -ed without being past forms.
var notPast = setOf("speed", "breed", "indeed", "exceed", "proceed", "succeed", "greed", "seed", "shed", "bed", "feed", "embed", "embedded")

// afterthought reports whether segment i, after a question, only explains it: a statement with
// no complaint in it that points back at the question ("how much is the calculator, his tutor
// says he needs one") or tells what happened ("... ? I remember getting an email about it").
func afterthought(text string, segs []segment, i int) bool {
	ws := segs[i].words
	if len(ws) == 0 || !asks(text, segs, i-1) || asks(text, segs, i) {
		return false
	}
	plain := strings.ReplaceAll(ws[0].lower, "'", "")
	if questionOpeners[plain] || modals[plain] {
		return false
	}
	for _, w := range ws {
		if complaintWords[strings.ReplaceAll(w.lower, "'", "")] {
			return false
		}
	}
	for _, w := range ws {
		if backReferences[w.lower] {
			return true
		}
	}
	return narrates(ws)
}
