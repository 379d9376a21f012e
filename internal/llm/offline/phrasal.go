package offline

import (
	"slices"
	"strings"
)

// phrasalObjects may stand between a phrasal verb and its particle.
var phrasalObjects = list("phrasalObjects")

// phrasalMeanings returns the words the phrasal verb starting at ws[i] means, if one does.
// Paying with points, or using them to pay, is redeeming them: "can I use points to pay for
// the hotel". Paying with a card is not.
func phrasalMeanings(ws []word, i int) []string {
	if redeems(ws, i) {
		return []string{"redeem"}
	}
	j := i + 1
	if j < len(ws) && phrasalObjects[ws[j].lower] {
		j++
	}
	if j < len(ws) {
		return phrasalByForm[[2]string{ws[i].lower, ws[j].lower}]
	}
	return nil
}

// phrasalByForm indexes the phrasal verbs of language.txt by verb form and particle
// (queryTerms asks for every word of every clause). A phrasal verb means something its verb
// alone does not: "send back" is a return, "sign up" an enrolment. With its particle next to it
// or after a pronoun ("sign me up") it adds the word it means to the message, at phraseWeight.
var phrasalByForm = func() map[[2]string][]string {
	out := map[[2]string][]string{}
	for _, f := range frames("phrasalVerbs") {
		// "send sends sent sending back: return": the verb's forms, its particle and, after
		// the colon, the words it means.
		i := slices.IndexFunc(f, func(w string) bool { return strings.HasSuffix(w, ":") })
		if i < 1 {
			panic("offline: language.txt's [phrasalVerbs] needs forms, a particle and a colon")
		}
		for _, v := range f[:i] {
			out[[2]string{v, strings.TrimSuffix(f[i], ":")}] = f[i+1:]
		}
	}
	return out
}()

// redeems reports whether ws[i] opens "use <points> to pay/buy" or "pay with <points>", with at
// most one word (such as "my") before the points.
func redeems(ws []word, i int) bool {
	word := func(k int) string {
		if k < len(ws) {
			return ws[k].lower
		}
		return ""
	}
	units := func(k int) (next int, ok bool) { // "[my] points" at ws[k]
		if !loyaltyUnits[word(k)] {
			k++
		}
		return k + 1, loyaltyUnits[word(k)]
	}
	switch word(i) {
	case "use", "using":
		k, ok := units(i + 1)
		return ok && word(k) == "to" && (word(k+1) == "pay" || word(k+1) == "buy")
	case "pay", "paying":
		_, ok := units(i + 2)
		return word(i+1) == "with" && ok
	}
	return false
}

// loyaltyUnits are what a loyalty scheme pays out in.
var loyaltyUnits = list("loyaltyUnits")
