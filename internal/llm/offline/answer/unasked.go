package answer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A question can ask for something its data does not hold: "what food does rex eat?" of a pet
// profile without food. Stating the profile would answer another question; the reply says
// plainly that the thing is not there.

// unasked returns the thing a question names ("food" of "what food does rex eat") when
// nothing in the data (its keys and values), the agent's vocabulary or the called tool uses
// that word, or "" when the data may answer.
func (r renderer) unasked(data any) string {
	ws := lang.ScanWords(r.askedMain)
	for i := 0; i+1 < len(ws); i++ {
		if !whWords[ws[i].Lower] {
			continue
		}
		w := ws[i+1].Lower
		if i+2 < len(ws) && !auxiliaries[ws[i+2].Lower] {
			continue // "what cheap headphones are there": a description, not the thing
		}
		ts := lang.Terms(w)
		if len(ts) != 1 || lang.IsStopword(w) || lang.IsLightNoun(ts[0]) || timeNouns[w] || frameWords[w] {
			continue
		}
		if r.holds(data, ts) || r.stated().in(data) {
			return "" // "which van is the card ending 4425 for": the card says, in its own words
		}
		return w
	}
	// Words held nowhere are a guess at a missing thing only when they are all the request
	// says: beside another clause they may ask of a thing that clause names ("call the
	// landlord, what's his cell"), or the tool was called for that other clause.
	// An amount the data holds ("whats the 7.50 on it for") names what holds it, however the
	// words around it read.
	if thing := r.unheldPhrase(ws, data); thing != "" && !severalClauses(lang.OwnPart(r.asked)) && !r.stated().in(data) {
		return thing
	}
	// A question whether someone does a thing asks about the thing it ends on ("does my
	// dentist take walk-ins"), unless a preposition or "have" came before it ("do i have
	// enough points for a lounge pass" asks about points) or it is no thing at all. Questions of state ("is my order delayed", "has my refund
	// arrived") are answered by the records' statuses, and questions whether one owes ("do we
	// owe any subs") by what is owed, whatever the debt is called.
	if n := len(ws); n >= 4 && doLeads[ws[0].Lower] && !slices.ContainsFunc(ws[1:n-1], func(w lang.Word) bool { return scopePreps[w.Lower] || possessionVerbs[w.Lower] || oweWords[w.Lower] }) {
		w := ws[n-1].Lower
		ts := lang.Terms(w)
		if len(ts) == 0 || lang.IsStopword(w) || chatParticles[w] || verbParticles[w] || timeNouns[w] || frameWords[w] || noise[w] || fillers[w] ||
			slices.ContainsFunc(ts, func(t string) bool { return lang.IsLightNoun(t) || lang.IsNumberTerm(t) }) || r.holds(data, ts) {
			return ""
		}
		return w
	}
	return ""
}

// unheldPhrase returns the thing a wh-question names after its article or possessive ("the
// school's snow day policy" of "what's the school's snow day policy") when none of its words
// beyond the agent's trade, light nouns and words of time is held by data (see holds), or "".
// A word a key holds says the data may answer; one a value holds ("my vitamin d level" of a
// list of vitamin d tests) may name a record of which the rest asks a fact, in words the data
// need not use.
func (r renderer) unheldPhrase(ws []lang.Word, data any) string {
	i := 0
	for i < len(ws) && !whWords[ws[i].Lower] {
		i++
	}
	opened, opener := false, ""
	for i++; i < len(ws) && (auxiliaries[ws[i].Lower] || subjectOpener(ws[i].Lower)); i++ {
		if o, ok := subjectOpeners[ws[i].Lower]; ok {
			opened, opener = true, o
		}
	}
	if !opened {
		return "" // "what plans could i move to": no thing named yet
	}
	known, keys := heldTerms(data), keyTerms(data)
	var phrase []string
	things, start := 0, i
	for ; i < len(ws) && !auxiliaries[ws[i].Lower] && !scopePreps[ws[i].Lower] && !phraseEnds[ws[i].Lower]; i++ {
		w := strings.TrimSuffix(ws[i].Lower, "'s")
		if strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || lang.IsStopword(w) || thingEnd(ws, start, i+1) <= i {
			break // a verb says what is asked of the thing, not what it is; "and" starts another
		}
		phrase = append(phrase, ws[i].Text)
		for _, t := range lang.Terms(w) {
			switch {
			case keys[t] || joinedKey(w, keys):
				return "" // the data may answer
			case known[t]:
				// a record's name, of which the rest may ask a fact
			case lang.IsLightNoun(t) || timeNouns[w] || nextWords[w] || latestWords[w] ||
				r.domain[t] || r.tool[t] || misspells(t, r.domain) || nearAny(t, r.domain, tradeCloseness):
				// the agent's trade names no thing of its own: "the school's snow day policy";
				// "the next payment" says which of them, not what
			case nearAny(t, known, claimCloseness):
				return "" // the data may say it in other words
			default:
				things++
			}
		}
	}
	if things == 0 {
		return ""
	}
	return strings.TrimSpace(opener + " " + strings.Join(phrase, " "))
}

// severalClauses reports whether a request says more than one thing: a comma or semicolon
// between its parts, or a second question word ("what's my plan and when does it renew").
func severalClauses(text string) bool {
	n := 0
	for _, w := range lang.ScanWords(text) {
		if askWords[w.Lower] {
			n++
		}
	}
	return n > 1 || strings.ContainsAny(strings.TrimRight(text, ",;?!. "), ",;")
}

// subjectOpener reports whether w opens the words naming what a request is about: "the", "my".
func subjectOpener(w string) bool {
	_, ok := subjectOpeners[w]
	return ok
}

// holds reports whether data, the agent's vocabulary or the called tool use one of the terms
// ts, or the data comes near one in meaning: then the data may answer.
func (r renderer) holds(data any, ts []string) bool {
	known := heldTerms(data)
	return slices.ContainsFunc(ts, func(t string) bool {
		return known[t] || r.domain[t] || r.tool[t] || nearAny(t, known, claimCloseness)
	})
}

// notInData says plainly that the data holds nothing about thing.
func notInData(thing string, t topic) Piece {
	return Piece{kind: pieceProse, text: fmt.Sprintf("I couldn't find anything about %s in %s.", thing, cmp.Or(t.noun, "what I can see")), missing: true, unheld: true}
}

// joinedKey reports whether w is a verb and its particle written as one word ("holdup") whose
// verb a key of the data holds ("hold_reason").
func joinedKey(w string, keys map[string]bool) bool {
	for p := range joinedParticles {
		if verb, ok := strings.CutSuffix(w, p); ok && len(verb) >= minJoinedVerb {
			if ts := lang.Terms(verb); len(ts) == 1 && keys[ts[0]] {
				return true
			}
		}
	}
	return false
}

// minJoinedVerb: a shorter head ("s" of "sup") is no verb.
const minJoinedVerb = 3
