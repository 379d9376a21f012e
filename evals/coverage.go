package evals

import (
	"slices"
)

// pairKey names an ordered pair of sub-agents.
func pairKey(a, b string) string { return a + "->" + b }

// coverage counts, over every case of every dataset, consecutive turns where turn i expects
// exactly {a} and turn i+1 exactly {b}, for a != b, and lists the ordered pairs of distinct
// sub-agents that never occur.
func coverage(datasets []*Dataset, agents []string) Coverage {
	cov := Coverage{Counts: map[string]int{}, Missing: []string{}}
	for _, ds := range datasets {
		for _, c := range ds.Cases {
			for i := 1; i < len(c.Turns); i++ {
				prev, cur := c.Turns[i-1].Expect, c.Turns[i].Expect
				if len(prev) == 1 && len(cur) == 1 && prev[0] != cur[0] {
					cov.Counts[pairKey(prev[0], cur[0])]++
				}
			}
		}
	}
	for _, a := range agents {
		for _, b := range agents {
			if a == b {
				continue
			}
			cov.PairsRequired++
			if cov.Counts[pairKey(a, b)] > 0 {
				cov.PairsCovered++
			} else {
				cov.Missing = append(cov.Missing, pairKey(a, b))
			}
		}
	}
	slices.Sort(cov.Missing)
	return cov
}
