// Package lexicon is the English dictionary of the offline model: whether a word is one. It
// is the word list of WordNet 3.0 (Princeton University, see LICENSE-WordNet): every
// single-word lemma and the irregular forms WordNet lists, made by ./gen from Debian's
// wordnet-base and embedded, so it needs no file or network at run time.
//
// It knows English, not agents: nothing in it was chosen for switchboard's demo.
package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
)

//go:generate go run ./gen -wordnet /usr/share/wordnet -out words.txt.gz

//go:embed words.txt.gz
var data []byte

// Lexicon answers lookups by key: the form a caller normalises words to (a stem, say), so
// that it can look up the words of its own text as it has them.
type Lexicon struct {
	keys map[string]struct{}
}

// New reads the embedded list, indexing each word by key(word). It takes a few
// milliseconds; build one and share it.
func New(key func(word string) string) (*Lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	lx := &Lexicon{keys: make(map[string]struct{}, 1<<17)}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if w := sc.Text(); w != "" && !strings.HasPrefix(w, "#") {
			lx.keys[key(w)] = struct{}{}
		}
	}
	return lx, sc.Err()
}

// Known reports whether some English word has this key.
func (lx *Lexicon) Known(key string) bool {
	_, ok := lx.keys[key]
	return ok
}
