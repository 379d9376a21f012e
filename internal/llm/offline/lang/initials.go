package lang

import "strings"

// SpellOut returns text with each rare word that spells the initials of consecutive words of
// one of docs (a tool's name and description), and is no word of any, replaced by those
// words: "how much pto do i have" beside "Paid time off balances" reads "how much paid time
// off do i have", so that tool choice finds the tool and composing sees that its result holds
// what was asked. A common word ("low" is no "lab orders with") or one spelling two
// phrases stays as written.
func SpellOut(text string, docs []string) string {
	ws := ScanWords(text)
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i].Lower
		if r := WordVectors().Rank(Stem(w)); len(w) < 2 || len(w) > 5 || r > 0 && r < acronymRank ||
			IsStopword(w) || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			continue
		}
		if found := spelledBy(w, docs); found != "" {
			text = text[:ws[i].Start] + found + text[ws[i].End:]
		}
	}
	return text
}

// spelledBy returns the one phrase of docs whose initials w spells, or "" when there is none,
// more than one, or w is a word of docs.
func spelledBy(w string, docs []string) string {
	found := ""
	for _, doc := range docs {
		dws := ScanWords(doc)
		for j := range dws {
			if dws[j].Lower == w {
				return ""
			}
			if j+len(w) > len(dws) {
				continue
			}
			initials, phrase := "", make([]string, len(w))
			for k, dw := range dws[j : j+len(w)] {
				initials += dw.Lower[:1]
				phrase[k] = dw.Lower
			}
			if p := strings.Join(phrase, " "); initials == w && found != p {
				if found != "" {
					return ""
				}
				found = p
			}
		}
	}
	return found
}

var acronymRank = int(Number("acronymRank")) // see language.txt
