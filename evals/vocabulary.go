package evals

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// MissingWord is a word users said in turns that should have reached an agent and did not,
// which the agent's description and examples never use.
type MissingWord struct {
	Word  string `json:"word"`
	Turns int    `json:"turns"` // how many such turns said it
}

// maxMissingWords bounds each agent's list: a handful of candidates to read, not a dump.
const maxMissingWords = 8

// missingWords lists, per sub-agent, the words of the single-intent turns that expected it
// but did not invoke it that none of its own texts use, most frequent first. They are the first thing to
// try adding to a description (docs/adding-an-agent.md, step 5): a model, and the offline one
// above all, routes by the words a definition gives it.
func missingWords(cases []CaseReport, agents []AgentInfo) map[string][]MissingWord {
	known := map[string]map[string]bool{}
	for _, a := range agents {
		known[a.ID] = wordSet(append([]string{a.ID, a.Name, a.Description}, a.Examples...)...)
	}
	counts := map[string]map[string]int{}
	for _, c := range cases {
		for _, t := range c.Turns {
			if len(t.Expected) != 1 {
				continue // in a two-intent turn, whose words are whose is not known
			}
			for _, id := range t.Expected {
				if slices.Contains(t.Invoked, id) || known[id] == nil {
					continue
				}
				for _, w := range contentWords(t.Message) {
					if !known[id][w] && !known[id][singular(w)] {
						if counts[id] == nil {
							counts[id] = map[string]int{}
						}
						counts[id][w]++
					}
				}
			}
		}
	}
	out := map[string][]MissingWord{}
	for id, byWord := range counts {
		list := make([]MissingWord, 0, len(byWord))
		for w, n := range byWord {
			list = append(list, MissingWord{Word: w, Turns: n})
		}
		slices.SortFunc(list, func(a, b MissingWord) int {
			return cmp.Or(cmp.Compare(b.Turns, a.Turns), cmp.Compare(a.Word, b.Word))
		})
		out[id] = list[:min(len(list), maxMissingWords)]
	}
	return out
}

// wordSet returns the content words of texts with their singular forms, to look words up in.
func wordSet(texts ...string) map[string]bool {
	set := map[string]bool{}
	for _, text := range texts {
		for _, w := range contentWords(text) {
			set[w] = true
			set[singular(w)] = true
		}
	}
	return set
}

// contentWords returns the distinct content words of text, lowercased, in order: words of
// three letters or more that are not numbers or everyday function words.
func contentWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		w = strings.ReplaceAll(w, "'", "")
		if len([]rune(w)) >= 3 && !functionWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// singular drops a plural ending, so that "parcels" in a message meets "parcel" in a
// description.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// functionWords carry no subject: listing them as missing would only be noise.
var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you your yours with have has had was were
		this that these those them they their there then than what when where which who whom why how
		can could would should will shall may might must does did doing done just about into from
		out over under again also any all some much many more most very too only own same such
		its our ours she her his him hers been being get got gets getting make made let lets like
		want wanna need needs please pls thanks thank hey hello yes yeah okay now still yet ever
		here one ones other another something anything nothing everything someone anyone my mine
		me we us i'm im i've ive i'd id i'll ill dont doesnt didnt cant wont isnt arent wasnt
		whats hows wheres thats theres it's lol know think going gonna off way back since ago`) {
		m[w] = true
	}
	return m
}()

// missingWordsByAgent lists the agents that have missing words, in the report's vertical
// order, each with its words written out: "parcel (3 turns), courier (2 turns)".
func (r *Report) missingWordsByAgent() []namedWords {
	var out []namedWords
	for _, id := range r.verticalOrder() {
		ws := r.MissingWords[id]
		if len(ws) == 0 {
			continue
		}
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = fmt.Sprintf("%s (%d)", w.Word, w.Turns)
		}
		out = append(out, namedWords{ID: id, Words: strings.Join(parts, ", ")})
	}
	return out
}

type namedWords struct {
	ID, Words string
}
