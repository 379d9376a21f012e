package encoder

// rowBlock is how many rows of a weight matrix addMatMul hands the kernel at once for one
// position: the position's outputs are loaded and stored once per block rather than once per
// row, and the block's rows (a few tens of kilobytes) stay in cache for the next position.
const rowBlock = 8

// addMatMul adds x (n rows of w.rows) times w, plus bias, to y (n rows of w.cols). Each
// output is the bias, then each row's product added in row order, rows whose input is zero
// left out: the order the plain loop adds them in, so that every kernel gives the same bits.
//
//go:norace
func addMatMul(y, x []float32, n int, w matrix, bias []float32) {
	for p := range n {
		yr := y[p*w.cols : (p+1)*w.cols]
		for i, b := range bias {
			yr[i] += b
		}
	}
	var coefs [rowBlock]float32
	var offs [rowBlock]int
	for i0 := 0; i0 < w.rows; i0 += rowBlock {
		i1 := min(i0+rowBlock, w.rows)
		for p := range n {
			k := 0
			for i := i0; i < i1; i++ {
				if a := x[p*w.rows+i]; a != 0 {
					coefs[k], offs[k] = a, i*w.cols
					k++
				}
			}
			if k > 0 {
				addRows(y[p*w.cols:(p+1)*w.cols], coefs[:k], offs[:k], w.w)
			}
		}
	}
}

// addRowsGo adds coefs[r] times the row of w starting at offs[r] to y, for each r in turn.
// The conversion keeps each product rounded on its own, as the vector kernel rounds it: a
// fused multiply-add would give other bits.
//
//go:norace
func addRowsGo(y, coefs []float32, offs []int, w []float32) {
	for r, a := range coefs {
		row := w[offs[r] : offs[r]+len(y)]
		for j, v := range row {
			y[j] += float32(a * v)
		}
	}
}
