package lang

import (
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lexicon"
)

// Dictionary is the English word list (WordNet's), keyed by stem so that a word looks it up as
// [Stem] and [Normalise] leave it. Loaded on first use and shared by routing and answering:
// it is one of the model's larger tables.
var Dictionary = sync.OnceValue(func() *lexicon.Lexicon {
	lx, err := lexicon.New(func(w string) string { return Stem(Normalise(w)) })
	if err != nil {
		panic(err) // the list is embedded in the build: its own test fails first
	}
	return lx
})
