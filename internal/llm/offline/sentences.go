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

// sentenceCache keeps the vectors of texts already encoded, as encoding one costs
// milliseconds: the agents' descriptions and examples come back with every tool set built
// from the same definitions. It starts over when full.
var sentenceCache = struct {
	sync.Mutex
	m map[string][]float32
}{m: map[string][]float32{}}

const sentenceCacheSize = 4096

// sentence returns the sentence vector of text, nil when it has none.
func sentence(text string) []float32 {
	sentenceCache.Lock()
	v, ok := sentenceCache.m[text]
	sentenceCache.Unlock()
	if ok {
		return v
	}
	v = sentenceModel().Embed(text)
	sentenceCache.Lock()
	if len(sentenceCache.m) >= sentenceCacheSize {
		clear(sentenceCache.m)
	}
	sentenceCache.m[text] = v
	sentenceCache.Unlock()
	return v
}

// sentenceSims returns, per document, the cosine of text's sentence vector and that of the
// closest of the document's texts; all zero when text has none.
func (ix *index) sentenceSims(text string) []float64 {
	sims := make([]float64, len(ix.texts))
	q := sentence(text)
	if q == nil {
		return sims
	}
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
				if v := sentence(t); v != nil {
					ix.sents[d] = append(ix.sents[d], v)
				}
			}
		}
	})
	return ix.sents
}
