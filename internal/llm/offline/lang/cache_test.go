package lang

import "testing"

// A cache keeps each value until it holds its limit, then starts over; one made without
// NewCache has no limit and refuses to work rather than keep a single entry.
func TestCache(t *testing.T) {
	c := NewCache[int, int](2)
	builds := 0
	get := func(k int) int {
		return c.Get(k, func() int { builds++; return k * 10 })
	}
	for _, k := range []int{1, 2, 1, 2} {
		if got := get(k); got != k*10 {
			t.Fatalf("Get(%d) = %d, want %d", k, got, k*10)
		}
	}
	if builds != 2 {
		t.Errorf("two keys read twice each built %d values, want 2", builds)
	}
	get(3) // past the limit: starts over with 3 alone
	get(1)
	if builds != 4 {
		t.Errorf("after the cache started over, %d values built, want 4", builds)
	}

	defer func() {
		if recover() == nil {
			t.Error("Get on a zero Cache did not panic")
		}
	}()
	var zero Cache[int, int]
	zero.Get(1, func() int { return 1 })
}
