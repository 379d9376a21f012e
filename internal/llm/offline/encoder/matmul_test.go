package encoder

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The vector kernel gives the plain loop's bits, not just close values: a sentence vector a
// hair off could move a closeness across a threshold, and the routes with it.
func TestAddMatMulKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ n, rows, cols int }{
		{1, 3, 64}, {3, 17, 512}, {5, 40, 768 + 5}, {2, 9, 7}, {4, 33, 1536},
	} {
		w := matrix{rows: shape.rows, cols: shape.cols, w: make([]float32, shape.rows*shape.cols)}
		for i := range w.w {
			w.w[i] = float32(rng.NormFloat64())
		}
		x := make([]float32, shape.n*shape.rows)
		for i := range x {
			if rng.IntN(3) > 0 { // a third stay zero, as after a ReLU
				x[i] = float32(rng.NormFloat64())
			}
		}
		bias := make([]float32, shape.cols)
		for i := range bias {
			bias[i] = float32(rng.NormFloat64())
		}
		want := plainMatMul(x, shape.n, w, bias)
		for _, k := range kernels() {
			got := make([]float32, shape.n*shape.cols)
			k.use(func() { addMatMul(got, x, shape.n, w, bias) })
			if i := firstBitDiff(got, want); i >= 0 {
				t.Errorf("%s %v: output %d is %v, the plain loop gives %v", k.name, shape, i, got[i], want[i])
			}
		}
	}
}

// Embed gives the same bits whichever kernels the machine has.
func TestEmbedSameOnEveryKernel(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"where is my parcel", "the courier never showed up with my stuff", "🙂 thanks!!"}
	want := make([][]float32, len(texts))
	kernel{"plain Go loop", false, false}.use(func() {
		for i, s := range texts {
			want[i] = m.Embed(s)
		}
	})
	for _, k := range kernels() {
		k.use(func() {
			for i, s := range texts {
				if j := firstBitDiff(m.Embed(s), want[i]); j >= 0 {
					t.Errorf("%s: Embed(%q)[%d] differs from the plain loop's", k.name, s, j)
				}
			}
		})
	}
}

// kernel is a choice of the vector kernels addRows may use.
type kernel struct {
	name        string
	avx, avx512 bool
}

// kernels returns the choices this machine can run, the plain loop among them.
func kernels() []kernel {
	ks := []kernel{{"plain Go loop", false, false}}
	if useAVX {
		ks = append(ks, kernel{"AVX", true, false})
	}
	if useAVX && useAVX512 {
		ks = append(ks, kernel{"AVX-512", true, true})
	}
	return ks
}

// use runs f with addRows restricted to k's kernels. Not for parallel tests.
func (k kernel) use(f func()) {
	avx, avx512 := useAVX, useAVX512
	useAVX, useAVX512 = k.avx, k.avx512
	defer func() { useAVX, useAVX512 = avx, avx512 }()
	f()
}

// plainMatMul is addMatMul as the textbook loop: the bias, then each row's product in row
// order, rows whose input is zero left out.
func plainMatMul(x []float32, n int, w matrix, bias []float32) []float32 {
	y := make([]float32, n*w.cols)
	for p := range n {
		for j := range w.cols {
			s := bias[j]
			for i := range w.rows {
				if a := x[p*w.rows+i]; a != 0 {
					s += float32(a * w.w[i*w.cols+j])
				}
			}
			y[p*w.cols+j] = s
		}
	}
	return y
}

// firstBitDiff returns the first index where a and b differ in their bits, -1 if none.
func firstBitDiff(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}
