package encoder

import (
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces are the vocabulary's first ids (unknown, start, end and spares): never the
// pieces of a segmentation, except the unknown one for a character no piece covers.
const reservedPieces = 6

// tokenizer splits text into SentencePiece pieces by the highest total score (Viterbi over
// the unigram scores), as the model's reference tokenizer in TensorFlow.js does, ties and
// all: its ids must be the ones the model was trained on.
type tokenizer struct {
	root    *trieNode
	lengths []int // per id, the piece's length in UTF-16 units, as the reference counts it
}

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	id       int
	score    float32
}

func newTokenizer(pieces []string, scores []float32) *tokenizer {
	t := &tokenizer{root: &trieNode{children: map[rune]*trieNode{}}, lengths: make([]int, len(pieces))}
	for id, p := range pieces {
		t.lengths[id] = len(utf16.Encode([]rune(p)))
		if id < reservedPieces {
			continue
		}
		node := t.root
		for _, r := range p {
			next := node.children[r]
			if next == nil {
				next = &trieNode{children: map[rune]*trieNode{}}
				node.children[r] = next
			}
			node = next
		}
		node.end, node.id, node.score = true, id, scores[id]
	}
	return t
}

// match is a piece that starts at some position.
type match struct {
	id     int
	length int // in runes
	score  float32
}

// prefixes returns the pieces that begin s, shortest first; a character no piece begins with
// is the unknown piece.
func (t *tokenizer) prefixes(s []rune) []match {
	var out []match
	node := t.root
	for i, r := range s {
		if node = node.children[r]; node == nil {
			break
		}
		if node.end {
			out = append(out, match{id: node.id, length: i + 1, score: node.score})
		}
	}
	if len(out) == 0 {
		out = append(out, match{id: 0, length: 1})
	}
	return out
}

// encode returns the piece ids of text.
func (t *tokenizer) encode(text string) []int {
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	symbols := []rune("▁" + strings.ReplaceAll(text, " ", "▁"))
	n := len(symbols)
	// ending[e] lists the pieces that end at e, in order of their starts (they are found
	// start by start), as the reference visits them.
	ending := make([][]match, n+1)
	for i := range n {
		for _, m := range t.prefixes(symbols[i:]) {
			ending[i+m.length] = append(ending[i+m.length], m)
		}
	}
	best := make([]float32, n+1)
	words := make([]int, n+1)
	for end := range n + 1 {
		// A later candidate wins a tie, and 0 means unset, as in the reference.
		for _, m := range ending[end] {
			score := m.score + best[end-m.length]
			if best[end] == 0 || score >= best[end] {
				best[end], words[end] = score, m.id
			}
		}
	}
	var ids []int
	for i := n; i > 0; i -= t.lengths[words[i]] {
		ids = append(ids, words[i])
	}
	// Runs of unknown characters become one unknown piece; the ids were collected backwards.
	ids = slices.CompactFunc(ids, func(a, b int) bool { return a == 0 && b == 0 })
	slices.Reverse(ids)
	return ids
}
