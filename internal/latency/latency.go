// Package latency owns how the benchmarks and the fault tests summarise a set of
// measured durations: percentiles by nearest rank.
package latency

import (
	"slices"
	"time"
)

// Percentile is the p-th percentile of xs (0 < p <= 100) by nearest rank: the smallest
// value at least p percent of xs are at or below. It is 0 for no values.
func Percentile(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(p / 100 * float64(len(s)))
	if float64(rank) < p/100*float64(len(s)) {
		rank++
	}
	return s[min(max(rank-1, 0), len(s)-1)]
}
