package offline

import "fmt"

// A question can ask for something its data does not hold: "what food does rex eat?" of a pet
// profile without food. Stating the profile would answer another question; the reply says
// plainly that the thing is not there.

// whWords open a question whose next word names the thing asked for: "what food", "which vet".
var whWords = list("whWords")

// auxiliaries follow the thing a wh-question names: "what food does", "which vet is".
var auxiliaries = list("auxiliaries")

// unasked returns the thing a question names ("food" of "what food does rex eat") when
// nothing in the data (its keys and values), the agent's vocabulary or the called tool uses
// that word, or "" when the data may answer.
func (r renderer) unasked(data any) string {
	ws := scanWords(mainClause(r.asked))
	for i := 0; i+1 < len(ws); i++ {
		if !whWords[ws[i].lower] {
			continue
		}
		w := ws[i+1].lower
		if i+2 < len(ws) && !auxiliaries[ws[i+2].lower] {
			continue // "what cheap headphones are there": a description, not the thing
		}
		ts := terms(w)
		if len(ts) != 1 || isStopword(w) || lightNouns[ts[0]] || timeNouns[w] || frameWords[w] || noise[w] || fillers[w] {
			continue
		}
		known := map[string]bool{}
		valueTerms(data, known)
		keyTerms(data, known)
		if known[ts[0]] || r.domain[ts[0]] || r.tool[ts[0]] {
			return ""
		}
		return w
	}
	return ""
}

// notInData says plainly that the data holds nothing about thing.
func notInData(thing string, t topic) piece {
	where := "what I can see"
	if t.noun != "" {
		where = t.noun
	}
	return piece{kind: pieceProse, text: fmt.Sprintf("I couldn't find anything about %s in %s.", thing, where)}
}
