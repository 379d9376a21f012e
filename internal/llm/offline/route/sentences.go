package route

import (
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/encoder"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// sentenceModel is the sentence encoder (see package encoder). Loaded once, by Load, and
// shared.
var sentenceModel = sync.OnceValue(func() *encoder.Model {
	m, err := encoder.Load()
	if err != nil {
		panic(err) // the model is embedded in the build: its own test fails first
	}
	return m
})

// sentenceFloor, sentenceMargin, sentenceLowFloor, offTopicMargin: see language.txt, which says where each was chosen.
var (
	sentenceFloor    = lang.Number("sentenceFloor")
	sentenceMargin   = lang.Number("sentenceMargin")
	sentenceLowFloor = lang.Number("sentenceLowFloor")
	offTopicMargin   = lang.Number("offTopicMargin")
)

// agentSentences keeps the vectors of agents' texts already encoded, as encoding one costs
// milliseconds and the same descriptions and examples come back with every tool set built
// from the same definitions. Users' messages are not kept here: they are encoded once per
// planner, or through Settings.Encode. It starts over when full.
var agentSentences = lang.NewCache[string, []float32](4096)

// Sentence returns the sentence vector of text, encoding it (milliseconds); nil when it has
// none.
func Sentence(text string) []float32 { return sentenceModel().Embed(text) }

// agentSentence returns the sentence vector of an agent's text, nil when it has none.
func agentSentence(text string) []float32 {
	return agentSentences.Get(text, func() []float32 { return sentenceModel().Embed(text) })
}

// sentenceSims returns, per candidate, the cosine of text's sentence vector and that of the
// closest of the candidate's texts and their phrases (see sentenceTexts); nil when text has no
// vector. Each text is encoded once per turn.
func (p *planner) sentenceSims(text string) []float64 {
	if sims, ok := p.sims[text]; ok {
		return sims
	}
	var sims []float64
	if q := p.sentenceVector(text); q != nil {
		sims = closestPerDoc(q, p.ix.sentences())
	}
	if p.sims == nil {
		p.sims = map[string][]float64{}
	}
	p.sims[text] = sims
	return sims
}

// sentenceVector returns text's sentence vector, encoding it once per turn.
func (p *planner) sentenceVector(text string) []float32 {
	if v, ok := p.vecs[text]; ok {
		return v
	}
	v := p.encodeSentence(text)
	if p.vecs == nil {
		p.vecs = map[string][]float32{}
	}
	p.vecs[text] = v
	return v
}

// encodeSentence returns the sentence vector of a user's text: through Settings.Encode, which
// may have it already, when set.
func (p *planner) encodeSentence(text string) []float32 {
	if p.encode != nil {
		return p.encode(text)
	}
	return sentenceModel().Embed(text)
}

// wholeSims returns text's sentenceSims over the documents' whole texts alone: whether a
// question is about the world or for an agent is told against what an agent says of itself,
// not against a phrase of it ("flight information such as delays" is near every question
// about flying).
func (p *planner) wholeSims(text string) []float64 {
	q := p.sentenceVector(text)
	if q == nil {
		return nil
	}
	sents := p.ix.sentences()
	whole := make([][][]float32, len(sents))
	for d, vs := range sents {
		whole[d] = vs[:p.ix.wholeN[d]]
	}
	return closestPerDoc(q, whole)
}

// sentences returns the sentence vectors of each document's texts, then of its phrases,
// encoding them the first time; concurrent turns wait for that one encoding rather than each
// doing it.
func (ix *Index) sentences() [][][]float32 {
	ix.sentOnce.Do(func() {
		ix.sents = make([][][]float32, len(ix.readings))
		ix.wholeN = make([]int, len(ix.readings))
		for d, ts := range ix.readings {
			for i, t := range ts {
				if v := agentSentence(t); v != nil {
					ix.sents[d] = append(ix.sents[d], v)
					if i < len(ix.texts[d]) {
						ix.wholeN[d]++
					}
				}
			}
		}
	})
	return ix.sents
}

var asideFar = lang.Number("asideFar") // see language.txt

// tradeWordNearby returns the test isAside makes of a question's words: a word of some
// agent's trade, in a message whose sentence is not far from every agent. The sentence is
// read only when a trade word is found, and once.
func (p *planner) tradeWordNearby(text string) func(stem string) bool {
	far := sync.OnceValue(func() bool {
		sims := p.sentenceSims(text)
		if sims == nil {
			return false
		}
		_, s1, _ := lang.Best(sims)
		return s1 < asideFar
	})
	return func(stem string) bool { return p.ix.tradeWord(stem) && !far() }
}

// sentenceTexts returns the texts of a source the sentence encoder reads: its texts, each
// phrase of its description, and what its tools do. A description packs a dozen subjects into
// one sentence, whose vector is near none of the questions about one of them, while examples
// are single questions: read whole, an agent described without examples ("vaccination and
// booster shots with due dates, vet appointments and check-ups") loses every sentence contest
// to one with them ("when is my next trip"). Each phrase, read alone, is one subject.
func sentenceTexts(src Source) []string {
	out := slices.Clone(src.Texts)
	if len(src.Texts) > 1 {
		out = append(out, phrases(src.Texts[1])...)
	}
	return append(out, src.Tools...)
}

// phrases cuts a description into its phrases: at sentence ends, colons, semicolons,
// brackets and commas. A piece of fewer than minPhraseWords words ("dogs", "cats") joins the
// next, as a list's items say little one by one.
func phrases(text string) []string {
	var out []string
	carry := ""
	for _, piece := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".;:(),", r) }) {
		words := strings.Fields(carry + " " + piece)
		piece = strings.Join(words, " ")
		if len(words) < minPhraseWords {
			carry = piece
			continue
		}
		carry = ""
		out = append(out, piece)
	}
	if carry != "" && len(out) > 0 {
		out[len(out)-1] += " " + carry
	}
	if len(out) < 2 {
		return nil // one phrase is the description itself
	}
	return out
}

var minPhraseWords = int(lang.Number("minPhraseWords")) // see language.txt
