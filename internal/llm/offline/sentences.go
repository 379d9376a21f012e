package offline

import (
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/encoder"
)

// sentenceModel is the sentence encoder (see package encoder). Loaded once, by New, and
// shared.
var sentenceModel = sync.OnceValue(func() *encoder.Model {
	m, err := encoder.Load()
	if err != nil {
		panic(err) // the model is embedded in the build: its own test fails first
	}
	return m
})

// A message that no word routes goes to the candidate one of whose texts its sentence vector
// comes closest to, when that closeness (cosine) reaches sentenceFloor and leads the
// runner-up by sentenceMargin. Chosen on the development sets (evals/fresh, fresh2,
// dev/vocab) and the tuned sets; the blind sets (evals/fresh3, fresh4) were not consulted.
const (
	sentenceFloor  = 0.50
	sentenceMargin = 0.03
)

// agentSentences keeps the vectors of agents' texts already encoded, as encoding one costs
// milliseconds and the same descriptions and examples come back with every tool set built
// from the same definitions. Users' messages are never kept: they are encoded once per turn
// (see planner.sentenceSims). It starts over when full.
var agentSentences = struct {
	sync.Mutex
	m map[string][]float32
}{m: map[string][]float32{}}

const agentSentencesSize = 4096

// agentSentence returns the sentence vector of an agent's text, nil when it has none.
func agentSentence(text string) []float32 {
	agentSentences.Lock()
	v, ok := agentSentences.m[text]
	agentSentences.Unlock()
	if ok {
		return v
	}
	v = sentenceModel().Embed(text)
	agentSentences.Lock()
	if len(agentSentences.m) >= agentSentencesSize {
		clear(agentSentences.m)
	}
	agentSentences.m[text] = v
	agentSentences.Unlock()
	return v
}

// sentenceSims returns, per candidate, the cosine of text's sentence vector and that of the
// closest of the candidate's texts; nil when text has no vector. Each text is encoded once
// per turn.
func (p *planner) sentenceSims(text string) []float64 {
	if sims, ok := p.sims[text]; ok {
		return sims
	}
	var sims []float64
	if q := sentenceModel().Embed(text); q != nil {
		sims = p.ix.sentenceSims(q)
	}
	if p.sims == nil {
		p.sims = map[string][]float64{}
	}
	p.sims[text] = sims
	return sims
}

// sentenceSims returns, per document, the cosine of q and the closest of the document's
// texts.
func (ix *index) sentenceSims(q []float32) []float64 {
	sims := make([]float64, len(ix.texts))
	for d, vs := range ix.sentences() {
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

// sentences returns the sentence vectors of each document's texts, encoding them the first
// time; concurrent turns wait for that one encoding rather than each doing it.
func (ix *index) sentences() [][][]float32 {
	ix.sentOnce.Do(func() {
		ix.sents = make([][][]float32, len(ix.texts))
		for d, ts := range ix.texts {
			for _, t := range ts {
				if v := agentSentence(t); v != nil {
					ix.sents[d] = append(ix.sents[d], v)
				}
			}
		}
	})
	return ix.sents
}

// A question about the world that uses a word of an agent's trade is still a request to that
// agent ("why is the refund taking so long"), unless its sentence comes less than asideFar
// close to everything the agents say: "how does mobile data actually travel through the air"
// asks the phone company nothing. Chosen on the development sets, where 0.55 to 0.65 route
// alike; a unit test's real request ("why is the refund taking so long") turns into an aside
// at 0.7, so the lower end keeps a margin for requests.
const asideFar = 0.55

// tradeWordNearby returns the test isAside makes of a question's words: a word of some
// agent's trade, in a message whose sentence is not far from every agent. The sentence is
// read only when a trade word is found, and once.
func (p *planner) tradeWordNearby(text string) func(stem string) bool {
	var far *bool
	return func(stem string) bool {
		if !p.ix.tradeWord(stem) {
			return false
		}
		if far == nil {
			f := false
			if p.sentences {
				if sims := p.sentenceSims(text); sims != nil {
					_, s1, _ := best(sims)
					f = s1 < asideFar
				}
			}
			far = &f
		}
		return !*far
	}
}
