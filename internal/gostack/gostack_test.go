package gostack

import "testing"

// The room must stay on the stack: on the heap it would cost an allocation and grow nothing.
func TestGrowAllocatesNothing(t *testing.T) {
	for name, grow := range map[string]func(int) byte{"To8K": To8K, "To16K": To16K, "To32K": To32K} {
		for _, seed := range []int{0, 1, -1, 1 << 40} {
			if allocs := testing.AllocsPerRun(10, func() { grow(seed) }); allocs != 0 {
				t.Errorf("%s(%d) allocated %v times, want 0", name, seed, allocs)
			}
		}
	}
}

// BenchmarkDeepCall runs a call that reaches 24 KiB of stack on a fresh goroutine, with and
// without growing its stack first.
func BenchmarkDeepCall(b *testing.B) {
	for _, bc := range []struct {
		name  string
		first func(int) byte
	}{{"fresh", func(int) byte { return 0 }}, {"To32K", To32K}} {
		b.Run(bc.name, func(b *testing.B) {
			done := make(chan byte)
			for i := range b.N {
				go func() { done <- bc.first(i) + deep(48) }()
				<-done
			}
		})
	}
}

// deep recurses n frames of about 512 bytes each.
//
//go:noinline
func deep(n int) byte {
	var pad [480]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[(n+1)%len(pad)]
}
