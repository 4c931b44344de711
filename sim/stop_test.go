package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestMedianRank pins the ranks of the distribution-free interval of a
// median, and checks each against the binomial distribution it comes
// from: the interval of rank k holds the median at level, that of rank
// k+1 does not.
func TestMedianRank(t *testing.T) {
	for _, c := range []struct {
		level float64
		n, k  int
	}{
		{0.95, 5, 0}, // the range of 5 holds the median with 1 − 2/32 = 93.75%
		{0.95, 6, 1}, // 1 − 2/64 = 96.9%
		{0.95, 12, 3},
		{0.95, 20, 6}, // [x₍₆₎, x₍₁₅₎]: the 15th, as IntervalOver says
		{0.99, 7, 0},
		{0.99, 8, 1},
		{0.5, 3, 1},
		{0.5, 1, 0},
	} {
		got := medianRank(c.level, c.n)
		assert.Equal(t, c.k, got, "medianRank(%v, %d)", c.level, c.n)
	}
	for n := 1; n <= 60; n++ {
		for _, level := range []float64{0.8, 0.9, 0.95, 0.99} {
			b := distuv.Binomial{N: float64(n), P: 0.5}
			cover := func(k int) float64 { return 1 - 2*b.CDF(float64(k-1)) }
			k := medianRank(level, n)
			if k > 0 {
				assert.GreaterOrEqual(t, cover(k), level, "the interval of rank %d of %d values at %v", k, n, level)
			}
			if k+1 <= n/2 {
				assert.Less(t, cover(k+1), level, "the interval of rank %d of %d values at %v", k+1, n, level)
			}
		}
	}
}

// TestStopLooks pins the batches of a replay of the default runs: the
// first is the fewest runs whose median has an interval at the level.
func TestStopLooks(t *testing.T) {
	for _, c := range []struct {
		level float64
		most  int
		want  []int
	}{
		{DefaultLevel, DefaultRuns, []int{6, 12, DefaultRuns}},
		{0.99, DefaultRuns, []int{8, 16, DefaultRuns}},
		{0.5, DefaultRuns, []int{MinRunsToPass, 6, 12, DefaultRuns}},
		{0.999999, DefaultRuns, []int{DefaultRuns}}, // 2⁻¹⁹·2 > 10⁻⁶: no interval before the last
		{DefaultLevel, 6, []int{6}},
	} {
		assert.Equal(t, c.want, stopLooks(c.level, c.most), "stopLooks(%v, %d)", c.level, c.most)
	}
}

// TestStopString pins the sentences of a Stop word for word.
func TestStopString(t *testing.T) {
	for _, c := range []struct {
		s    Stop
		want string
	}{
		{Stop{Runs: 6, MaxRuns: 20, Reason: StopClear},
			"stopped after 6 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, and by a retry or a device at least"},
		{Stop{Runs: 12, MaxRuns: 20, Reason: StopTight},
			"stopped after 12 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, or is narrower than 1% of it and a retry or a device away"},
		{Stop{Runs: 20, MaxRuns: 20, Reason: StopMaxRuns, Undecided: PeakRatio, Limit: 0.6},
			"all 20 runs: the interval of the peak ratio (retries / accept budget) was neither clear of its limit of 0.6 by 10% of it nor narrower than 1% of it"},
	} {
		assert.Equal(t, c.want, c.s.String())
	}
}
