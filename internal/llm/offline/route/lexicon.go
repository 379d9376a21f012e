package route

import "github.com/switchboard-ai/switchboard/internal/llm/offline/lang"

// phraseExpansions map a run of stopwords that still carries meaning to terms.
var phraseExpansions = []struct {
	words []string
	terms []string
}{
	{[]string{"how", "much"}, []string{"price"}},
}

var phraseWeight = lang.Number("phraseWeight") // see language.txt

// Load reads what routing needs once per process: the English word list, word vectors and
// sentence encoder. A model calls it when it is made, rather than let the first turn wait
// about 45 ms for them.
func Load() {
	lang.Dictionary()
	lang.WordVectors()
	sentenceModel()
}

// PrepareAgents computes ahead of the first turn the sentence vectors of the agents' texts ix
// indexes, and those of the questions no agent answers (see offtopic.go).
func PrepareAgents(ix *Index) {
	ix.sentences()
	offTopicVectors()
}
