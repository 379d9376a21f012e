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
// address"), or a statement that the next clause points back at ("the shoes I sent back,
// how's that return going"). A clause ending in a question mark asks something itself.
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
