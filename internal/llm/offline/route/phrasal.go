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
	if j < len(ws) {
		return phrasalByForm[[2]string{ws[i].Lower, ws[j].Lower}]
	}
	return nil
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
	from := max(0, i-1-maxPhrasalGap) // the furthest the verb may stand
	return ParticleOf(ws[from:], i-from)
}

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
