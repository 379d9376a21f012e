package route

import (
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/style"
)

// semanticFloor, semanticMargin: see language.txt, which says where each was chosen.
var (
	semanticFloor  = lang.Number("semanticFloor")
	semanticMargin = lang.Number("semanticMargin")
)

// meaningLead, singleWordFloor: see language.txt, which says where each was chosen.
var (
	meaningLead     = lang.Number("meaningLead")
	singleWordFloor = lang.Number("singleWordFloor")
)

// stemsOf returns the stems of query terms, in order.
func stemsOf(qs []qterm) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.stem
	}
	return out
}

// leader returns the document ahead of all others in sims by at least lead, or -1.
func leader(sims []float64, lead float64) int {
	top, s1, s2 := lang.Best(sims)
	if top < 0 || s1 <= 0 || s1-s2 < lead {
		return -1
	}
	return top
}

// similarities returns, per document, how close in meaning the query comes to its closest
// text; all zero when no query word has a vector.
func (ix *Index) similarities(stems []string) []float64 {
	q := lang.Meaning(stems)
	if q == nil {
		return make([]float64, len(ix.meanings))
	}
	return closestPerDoc(q, ix.meanings)
}

// closestPerDoc returns, per document, the largest dot product of unit vector q with one of
// the document's vectors (a cosine, as all are unit length); 0 for a document with none.
func closestPerDoc(q []float32, docs [][][]float32) []float64 {
	sims := make([]float64, len(docs))
	for d, vs := range docs {
		for _, v := range vs {
			var dot float32
			for i := range v {
				dot += v[i] * q[i]
			}
			sims[d] = max(sims[d], float64(dot))
		}
	}
	return sims
}

// byMeaningOnly returns the candidate closest in meaning to text and how close, or -1: the last
// resort for a message whose words chose none. Light nouns alone ("what's the status?") ask
// for nothing in particular.
//
// With sentences set it reads the whole sentence (see sentences.go), as word vectors cannot:
// "the courier never showed up with my stuff" is about a delivery though none of its words
// is. Word vectors still decide when the sentence leans the same way without clearing its
// own bar ("can my son see a pediatrician this week").
func (p *planner) byMeaningOnly(text string, conversing bool) (int, float64) {
	ws := lang.ScanWords(text)
	stems := stemsOf(substantive(queryTerms(ws)))
	if !p.sentences {
		return p.ix.closestInMeaning(stems)
	}
	if len(stems) == 0 {
		return -1, 0
	}
	sims := p.sentenceSims(text)
	if sims == nil {
		return -1, 0
	}
	top, s1, s2 := lang.Best(sims)
	// A message that reads at least as much like a question no agent answers, or like chat,
	// as like anything an agent says is answered directly ("I'm bored, talk to me"), unless
	// it speaks of someone's things ("my monthly statement looks wrong" is the user's affair)
	// or comes in a conversation, where it may ask on about the earlier subject ("can i drink
	// coffee before" after a blood test).
	off := p.offTopicSim(text)
	if off >= s1 && !namesAThingOf(ws) && !conversing {
		return -1, 0
	}
	// A question put to the business itself that no word reaches asks after its hours or
	// ways, not after the user's affairs (see serviceQuestions): the sentence nearest a
	// flight's departure time is no reason to send "what time do you close" there.
	if !conversing && asksOfService(plainWordsOf(ws)) && !namesAThingOf(ws) {
		return -1, 0
	}
	leads := top >= 0 && s1-s2 >= sentenceMargin
	if leads {
		top, s1 = p.wordsChoice(ws, text, sims, top, s1)
	}
	if leads && (s1 >= sentenceFloor || s1 >= sentenceLowFloor && s1-off >= offTopicMargin) {
		return top, s1
	}
	if c, s := p.ix.closestInMeaning(stems); c >= 0 && leader(sims, 0) == c {
		return c, s
	}
	// A message that reads as a request to a service ("anyone flogging a PS5 for under 400
	// quid atm") is one, though none of its words is an agent's: it goes to the agent its
	// sentence comes closest to, when that one leads.
	if leads && len(ws) >= minRequestWords && chatKind(text) == chatNone && style.Aside(p.sentenceVector(text)) < requestCeiling {
		return top, s1
	}
	return -1, 0
}

// serviceQuestions and offerAfterYou: see language.txt.
var (
	serviceQuestions = lang.PhraseList("serviceQuestions")
	offerAfterYou    = lang.List("offerAfterYou")
)

// asksOfService reports whether words, in their plain forms, put a question to the service
// itself ("are you open on sundays") rather than ask for something it has ("do you have
// gift cards").
func asksOfService(ws []string) bool {
	for i := range ws {
		for _, f := range serviceQuestions {
			if !hasPrefix(ws[i:], f) {
				continue
			}
			if j := i + len(f); j < len(ws) && !offerAfterYou[ws[j]] {
				return true
			}
		}
	}
	return false
}

// minRequestWords, requestCeiling: see language.txt, which says where each was chosen.
var (
	minRequestWords = int(lang.Number("minRequestWords"))
	requestCeiling  = lang.Number("requestCeiling")
)

// closestInMeaning returns the document whose texts come closest in meaning to the query, and
// its similarity, when it clears semanticFloor and leads the runner-up by semanticMargin; -1
// otherwise.
func (ix *Index) closestInMeaning(stems []string) (int, float64) {
	top, s1, s2 := lang.Best(ix.similarities(stems))
	if top < 0 || s1 < semanticFloor || s1-s2 < semanticMargin {
		return -1, 0
	}
	return top, s1
}

// namesAThingOf reports whether words name someone's thing: a possessive before a content
// word ("my statement", "your points").
func namesAThingOf(ws []lang.Word) bool {
	for i := 0; i+1 < len(ws); i++ {
		if possessives[ws[i].Lower] && !lang.IsStopword(ws[i+1].Lower) {
			return true
		}
	}
	return false
}

// sentenceLeader returns the candidate whose texts the whole sentence comes clearly closest to
// (by sentenceFloor and sentenceMargin), and how close, or -1: what a message of no content
// words can still mean ("where are my things").
func (p *planner) sentenceLeader(text string) (int, float64) {
	sims := p.sentenceSims(text)
	if sims == nil {
		return -1, 0
	}
	if top, s1, s2 := lang.Best(sims); top >= 0 && s1 >= sentenceFloor && s1-s2 >= sentenceMargin {
		return top, s1
	}
	return -1, 0
}

// wordsChoiceBand: see language.txt.
var wordsChoiceBand = lang.Number("wordsChoiceBand")

// wordsChoice returns the candidate a message's words (ws, of text) score highest on more than
// light nouns, with its sentence similarity, when sims puts it within wordsChoiceBand of the
// sentence's leader top (similarity s1): too weak to choose on their own, the words still tell
// two readings the sentence puts nearly level. Otherwise it returns top and s1.
func (p *planner) wordsChoice(ws []lang.Word, text string, sims []float64, top int, s1 float64) (int, float64) {
	qs := queryTerms(ws)
	w, best, _ := lang.Best(p.scores(text, qs))
	if w < 0 || w == top || best <= 0 || sims[w] < s1-wordsChoiceBand || p.ix.score(substantive(qs))[w] <= 0 {
		return top, s1
	}
	return w, sims[w]
}
