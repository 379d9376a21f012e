//go:build !purego

package encoder

import "golang.org/x/sys/cpu"

// useAVX and useAVX512 say whether addRows may use the vector kernels; tests turn them off to
// compare.
var (
	useAVX    = cpu.X86.HasAVX
	useAVX512 = cpu.X86.HasAVX512F
)

// addRowsAVX is addRowsGo for len(y) a multiple of 64, eight floats at a time: each product
// rounded, then added (VMULPS, VADDPS; no fused multiply-add), so it gives addRowsGo's bits.
//
//go:noescape
func addRowsAVX(y, coefs []float32, offs []int, w []float32)

// addRowsAVX512 is addRowsAVX for len(y) a multiple of 128, sixteen floats at a time.
//
//go:noescape
func addRowsAVX512(y, coefs []float32, offs []int, w []float32)

// addRows adds coefs[r] times the row of w starting at offs[r] to y, for each r in turn:
// the widest kernel the machine has takes what it can of y, the next the rest.
//
//go:norace
func addRows(y, coefs []float32, offs []int, w []float32) {
	offs = offs[:len(coefs)]
	for _, off := range offs {
		_ = w[off : off+len(y)] // the kernels read within w
	}
	done := 0
	if useAVX512 {
		if done = len(y) &^ 127; done > 0 {
			addRowsAVX512(y[:done], coefs, offs, w)
		}
	}
	if useAVX {
		if n := done + (len(y)-done)&^63; n > done {
			addRowsAVX(y[done:n], coefs, offs, w[done:])
			done = n
		}
	}
	if done < len(y) {
		addRowsGo(y[done:], coefs, offs, w[done:])
	}
}
