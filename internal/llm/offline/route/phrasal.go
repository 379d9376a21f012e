package route

import (
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// A phrasal verb means something its verb alone does not: "send back" is a return, "sign up"
// an enrolment, "take off" a departure. Such a verb, with its particle next to it or after a
// pronoun ("sign me up", "send it back"), adds the word it means to the message, at
// phraseWeight. These are English, not any agent's: an agent whose texts say "return" meets
// "send back" through them.
var phrasalVerbs = lang.List("phrasalVerbs") // see language.txt

// phrasalObjects may stand between a phrasal verb and its particle.
var phrasalObjects = lang.List("phrasalObjects")

// phrasalMeanings returns the words the phrasal verb starting at ws[i] means, if one does.
func phrasalMeanings(ws []lang.Word, i int) []string {
	j := i + 1
	if j < len(ws) && phrasalObjects[ws[j].Lower] {
		j++
	}
	if j < len(ws) && !journeyBack(ws, j) {
		return phrasalByForm[[2]string{ws[i].Lower, ws[j].Lower}]
	}
	return nil
}

// journeyAfterBack: see language.txt.
var journeyAfterBack = lang.List("journeyAfterBack")

// journeyBack reports whether the particle ws[j] says the user comes back from somewhere
// rather than gets a thing back: "when do i get back from the york trip" asks for no refund.
func journeyBack(ws []lang.Word, j int) bool {
	return verbParticles[ws[j].Lower] && j+1 < len(ws) && journeyAfterBack[ws[j+1].Lower]
}

// phrasalByForm indexes phrasalVerbs by verb form and particle, as queryTerms asks for every
// word of every clause.
var phrasalByForm = func() map[[2]string][]string {
	out := map[[2]string][]string{}
	for entry := range phrasalVerbs { // "send sends sent sending + back = return"
		verbs, rest, _ := strings.Cut(entry, " + ")
		particle, means, _ := strings.Cut(rest, " = ")
		for _, v := range strings.Fields(verbs) {
			out[[2]string{v, particle}] = strings.Fields(means)
		}
	}
	return out
}()

// endsPhrasal reports whether ws[i] is the particle of one of phrasalVerbs, at most
// maxPhrasalGap words after its verb: "back" in "sent it back", "send the shoes back".
func endsPhrasal(ws []lang.Word, i int) bool {
	if journeyBack(ws, i) {
		return false
	}
	for j := i - 1; j >= max(0, i-1-maxPhrasalGap); j-- { // the furthest the verb may stand
		if _, ok := phrasalByForm[[2]string{ws[j].Lower, ws[i].Lower}]; ok {
			return !closeParticleVerbs[ws[j].Lower] || j == i-1 || j == i-2 && phrasalObjects[ws[i-1].Lower]
		}
	}
	return false
}

// closeParticleVerbs: see language.txt.
var closeParticleVerbs = lang.List("closeParticleVerbs")

var maxPhrasalGap = int(lang.Number("maxPhrasalGap")) // see language.txt

// ParticleOf reports whether ws[i] is the particle of one of phrasalVerbs whose verb stands
// anywhere before it in ws: "back" in "did they give my cabana deposit back", which says what
// is done with the thing, not what the thing is.
func ParticleOf(ws []lang.Word, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if _, ok := phrasalByForm[[2]string{ws[j].Lower, ws[i].Lower}]; ok {
			return true
		}
	}
	return false
}
