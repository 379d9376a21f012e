package evals

import (
	"math"
	"slices"
	"time"
)

// summarizeLatency computes nearest-rank percentiles in milliseconds.
func summarizeLatency(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	ms := make([]float64, len(ds))
	var sum float64
	for i, d := range ds {
		ms[i] = millis(d)
		sum += ms[i]
	}
	slices.Sort(ms)
	return Latency{
		P50:  percentile(ms, 50),
		P95:  percentile(ms, 95),
		Max:  ms[len(ms)-1],
		Mean: round3(sum / float64(len(ms))),
	}
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func millis(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
