package route

import (
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// segment is a clause of a user message: a byte span of the original text.
type segment struct {
	start, end int
	words      []lang.Word
}

// conjunctions that may join two requests, longest first so "oh and" wins over "and".
var conjunctions = lang.PhraseList("conjunctions") // see language.txt

// splitClauses cuts s on sentence punctuation (? ; ! and . or , followed by a space) and
// on conjunctions. Delimiters are not part of any segment.
func splitClauses(s string) []segment {
	ws := lang.ScanWords(s)
	var out []segment
	cur := segment{start: -1}
	flush := func() {
		if len(cur.words) > 0 {
			out = append(out, cur)
		}
		cur = segment{start: -1}
	}
	for i := 0; i < len(ws); {
		if i > 0 && (hasBoundary(s[ws[i-1].End:ws[i].Start]) || dashBetween(s[ws[i-1].End:ws[i].Start], ws, i)) {
			flush()
		}
		if n := conjunctionAt(ws, i); n > 0 {
			flush()
			i += n
			continue
		}
		w := ws[i]
		if cur.start < 0 {
			cur.start = extendLeft(s, w.Start)
		}
		cur.end = extendRight(s, w.End)
		cur.words = append(cur.words, w)
		i++
	}
	flush()
	return out
}

// conjunctionAt returns how many words the conjunction at ws[i] has, 0 when none opens there.
func conjunctionAt(ws []lang.Word, i int) int {
	for _, c := range conjunctions {
		if phraseAt(ws, i, c) {
			return len(c)
		}
	}
	return 0
}

// hasBoundary reports whether the text between two words ends a clause.
func hasBoundary(gap string) bool {
	if strings.ContainsAny(gap, "?;!\n") {
		return true
	}
	// "+" and "&" between spaces join two requests ("deals on tvs + my points"); inside a
	// name ("AT&T") they do not.
	if t := strings.TrimSpace(gap); (t == "+" || t == "&") && t != gap {
		return true
	}
	for i := 0; i < len(gap); i++ {
		if (gap[i] == '.' || gap[i] == ',') && i+1 < len(gap) && lang.IsSpace(gap[i+1]) {
			return true
		}
	}
	return false
}

// dashBetween reports whether a dash with spaces on both sides parts two clauses: "cancel my
// movie tickets for Friday - my flight's been moved". Between two numbers or codes it marks a
// range ("9am - 5pm", "NYC - LAX", "june 3 - june 10"), and inside a word ("Wi-Fi") nothing.
func dashBetween(gap string, ws []lang.Word, i int) bool {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(gap), ")"))
	if t != "-" && t != "–" && t != "—" || !strings.HasPrefix(gap, " ") && !strings.HasPrefix(gap, ")") || !strings.HasSuffix(gap, " ") {
		return false
	}
	// The range's far end may be a word away: "june 3 - june 10".
	return !(rangeEnd(ws[i-1]) && (rangeEnd(ws[i]) || i+1 < len(ws) && rangeEnd(ws[i+1])))
}

// rangeEnd reports whether a word can end a range: it holds a digit, or it is a code in
// capitals ("LAX").
func rangeEnd(w lang.Word) bool {
	return strings.ContainsAny(w.Text, "0123456789") || len(w.Text) <= 4 && w.Text == strings.ToUpper(w.Text) && w.Text != strings.ToLower(w.Text)
}

// extendLeft and extendRight widen a span over symbols glued to a word ("$100", "20%").
func extendLeft(s string, i int) int {
	for i > 0 && !lang.IsSpace(s[i-1]) && !strings.ContainsRune("?;!.,()\"", rune(s[i-1])) {
		i--
	}
	return i
}

func extendRight(s string, i int) int {
	for i < len(s) && !lang.IsSpace(s[i]) && !strings.ContainsRune("?;!.,()\"", rune(s[i])) {
		i++
	}
	return i
}

// fillers are dropped from the front of a clause handed on to a tool.
var fillers = lang.List("fillers")

// clauseText returns s[start:end] without leading fillers.
func clauseText(s string, seg segment) string {
	start := seg.start
	for _, w := range seg.words {
		if !fillers[w.Lower] {
			break
		}
		start = w.End
	}
	return strings.Trim(strings.TrimSpace(s[start:seg.end]), ",;:- ")
}
