package lang

import (
	"math"
	"strings"
	"sync"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/vectors"
)

// rareWordRank: see language.txt, which says where it was chosen.
var rareWordRank = Number("rareWordRank")

// WordVectors returns general English word vectors (GloVe's), keyed by stem. They are loaded
// once, on first use (route.Load asks for them when a model is made), and shared.
var WordVectors = sync.OnceValue(func() *vectors.Table {
	t, err := vectors.New(func(w string) string { return Stem(Normalise(w)) })
	if err != nil {
		panic(err) // the vectors are embedded in the build: their own test fails first
	}
	return t
})

// Meaning is the weighted mean of the words' vectors, rarer words weighing more, scaled to
// unit length; nil when no word has a vector.
func Meaning(stems []string) []float32 {
	tb := WordVectors()
	out := make([]float32, tb.Dims())
	found := false
	for _, s := range stems {
		v := tb.Lookup(s)
		if v == nil || IsNumberTerm(s) {
			continue
		}
		r := float64(tb.Rank(s))
		w := float32(r / (r + rareWordRank))
		for i, x := range v {
			out[i] += w * float32(x)
		}
		found = true
	}
	if !found {
		return nil
	}
	var n float64
	for _, x := range out {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i := range out {
		out[i] /= float32(n)
	}
	return out
}

// Dot returns the dot product of a and b (b at least as long as a): the cosine of two
// vectors of unit length, such as Meaning's.
func Dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// Best returns the index and score of the top document and the runner-up's score.
// Ties go to the earlier document, so the answer never depends on map order.
func Best(scores []float64) (top int, topScore, second float64) {
	top = -1
	for i, s := range scores {
		switch {
		case top < 0 || s > topScore:
			if top >= 0 {
				second = topScore
			}
			top, topScore = i, s
		case s > second:
			second = s
		}
	}
	return top, topScore, second
}

// IsNumberTerm reports whether a query term is a bare number, or the shape of one.
func IsNumberTerm(t string) bool {
	t = strings.TrimPrefix(t, ShapePrefix)
	return t != "" && strings.Trim(t, "0123456789") == ""
}
