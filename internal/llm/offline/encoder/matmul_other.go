//go:build !amd64 || purego

package encoder

// useAVX and useAVX512 are false where there is no AVX kernel.
var useAVX, useAVX512 = false, false

// addRows adds coefs[r] times the row of w starting at offs[r] to y, for each r in turn.
func addRows(y, coefs []float32, offs []int, w []float32) { addRowsGo(y, coefs, offs, w) }
