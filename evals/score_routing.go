package evals

import "slices"

// routingCorrect is the exact-set rule: the turn reached exactly the expected sub-agents, in
// any order. A turn expecting more sub-agents than the cap cannot reach them all; it is
// correct when it reached at least one and at most cap of them, and nothing unexpected.
func routingCorrect(expect, invoked []string, cap int) bool {
	if overCap(expect, cap) {
		return len(invoked) > 0 && len(invoked) <= cap && subset(invoked, expect)
	}
	return sameSet(expect, invoked)
}

func overCap(expect []string, cap int) bool { return cap > 0 && len(expect) > cap }

func sameSet(a, b []string) bool { return subset(a, b) && subset(b, a) }

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// uniq drops repeated ids, keeping the first of each; a sub-agent asked twice in one turn
// still counts once for routing.
func uniq(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// verticalCounts are one sub-agent's confusion counts over all turns.
type verticalCounts struct {
	tp, fp, fn int
}

// add counts one turn for sub-agent v. A turn over the cap does not count the expected
// sub-agents it left out as misses: leaving them out is what the cap asks for.
func (c *verticalCounts) add(v string, expect, invoked []string, cap int) {
	exp, inv := slices.Contains(expect, v), slices.Contains(invoked, v)
	switch {
	case exp && inv:
		c.tp++
	case inv:
		c.fp++
	case exp && !overCap(expect, cap):
		c.fn++
	}
}

// score turns counts into rates. Accuracy is tp/(tp+fp+fn): of the turns where v was
// expected or reached, the share where it was both. It charges each mistake to the
// sub-agents that made it (the one wrongly reached, the one wrongly left out), not to every
// sub-agent of a turn that went wrong elsewhere, so it points at the description to improve.
func (c verticalCounts) score() VerticalScore {
	involved := c.tp + c.fp + c.fn
	return VerticalScore{
		Turns:     involved,
		Precision: ratioOr(c.tp, c.tp+c.fp, 1),
		Recall:    ratioOr(c.tp, c.tp+c.fn, 1),
		Accuracy:  ratioOr(c.tp, involved, 0),
		TP:        c.tp, FP: c.fp, FN: c.fn,
	}
}

// ratioOr is n/d, or empty when d is zero: precision with no prediction is vacuously 1.
func ratioOr(n, d int, empty float64) float64 {
	if d == 0 {
		return empty
	}
	return float64(n) / float64(d)
}

// noneLabel stands for "no sub-agent" in the confusion matrix.
const noneLabel = "none"

// confusion counts expected (rows) against invoked (columns) sub-agents.
type confusion struct {
	labels []string
	index  map[string]int
	cells  [][]int
}

func newConfusion(agents []string) *confusion {
	c := &confusion{index: map[string]int{}}
	for _, a := range append(slices.Clone(agents), noneLabel) {
		c.label(a)
	}
	return c
}

func (c *confusion) label(l string) int {
	if i, ok := c.index[l]; ok {
		return i
	}
	c.index[l] = len(c.labels)
	c.labels = append(c.labels, l)
	for i := range c.cells {
		c.cells[i] = append(c.cells[i], 0)
	}
	c.cells = append(c.cells, make([]int, len(c.labels)))
	return c.index[l]
}

func (c *confusion) inc(expected, invoked string) {
	r, k := c.label(expected), c.label(invoked)
	c.cells[r][k]++
}

// add records one turn. Matched sub-agents land on the diagonal; each missed one is charged
// to every unexpected sub-agent reached instead (or to none); an unexpected one with nothing
// missed is charged to the none row. For a single-intent turn that is the usual matrix.
func (c *confusion) add(expect, invoked []string, cap int) {
	if len(expect) == 0 && len(invoked) == 0 {
		c.inc(noneLabel, noneLabel)
		return
	}
	missed, extra := minus(expect, invoked), minus(invoked, expect)
	if overCap(expect, cap) && len(invoked) > 0 && len(invoked) <= cap {
		missed = nil
	}
	for _, e := range expect {
		if slices.Contains(invoked, e) {
			c.inc(e, e)
		}
	}
	for _, m := range missed {
		if len(extra) == 0 {
			c.inc(m, noneLabel)
		}
		for _, x := range extra {
			c.inc(m, x)
		}
	}
	if len(missed) == 0 {
		for _, x := range extra {
			c.inc(noneLabel, x)
		}
	}
}

func (c *confusion) matrix() Confusion {
	return Confusion{Labels: slices.Clone(c.labels), Matrix: c.cells}
}
