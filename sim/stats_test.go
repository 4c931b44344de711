package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// TestBootstrapMedianHuge checks that the interval stays finite, and
// around the median, for figures as large as a float64 holds: the
// acceleration's cubes overflow there, and used to reach gonum's Quantile
// as NaN, which panics.
func TestBootstrapMedianHuge(t *testing.T) {
	for _, x := range [][]float64{
		{1.2e203, 1.2e203, 1.3e203, 1.1e203, 0},
		{1e300, 2e300, 3e300, 1.5e300, 1e307},
		{0, 1, math.MaxFloat64 / 4, math.MaxFloat64 / 4, math.MaxFloat64 / 8},
		{1e-300, 3e-300, 0, 5e-310, 1e-320},
	} {
		got := bootstrapMedian(0.95, 2000, rand.NewPCG(1, 2), x)
		for _, v := range []float64{got.Median, got.Low, got.High} {
			assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "bootstrapMedian(%v) = %+v; want finite", x, got)
		}
		assert.True(t, got.Low <= got.Median && got.Median <= got.High, "bootstrapMedian(%v) = %+v; want the median within", x, got)
	}
}

// sortedBootMedians draws resamples as bootstrapMedian does, and returns
// the median of each by sorting it: the plain computation the counts
// replace.
func sortedBootMedians(resamples int, src rand.Source, sorted []float64) []float64 {
	rng := rand.New(src)
	n := len(sorted)
	out := make([]float64, resamples)
	buf := make([]float64, n)
	for b := range out {
		for i := range buf {
			buf[i] = sorted[rng.IntN(n)]
		}
		slices.Sort(buf)
		out[b] = median(buf)
	}
	return out
}

// The median of a resample read off its counts is the median of the same
// draws sorted, bit for bit, on samples with ties and of both parities.
// The samples hold no negative zero: -0 and 0 are equal, and a sort may
// put either first.
func TestCountedMedian(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		x := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), n, n).Draw(t, "x")
		ties := rapid.Bool().Draw(t, "ties")
		for i := range x {
			if ties {
				x[i] = math.Round(x[i] / 2e5)
			}
			x[i] += 0 // no -0
		}
		slices.Sort(x)
		seed := rapid.Uint64().Draw(t, "seed")
		want := sortedBootMedians(50, rand.NewPCG(seed, 1), x)
		rng := rand.New(rand.NewPCG(seed, 1))
		counts := make([]int32, n)
		for b := range want {
			clear(counts)
			for range n {
				counts[rng.IntN(n)]++
			}
			got := countedMedian(x, counts)
			if math.Float64bits(got) != math.Float64bits(want[b]) {
				t.Fatalf("resample %d: counted median %v, sorted median %v", b, got, want[b])
			}
		}
	})
}

// BenchmarkBootstrapMedian times the summary of one figure over 200 runs,
// the most runs a replay makes by default, at the default 2,000 resamples.
func BenchmarkBootstrapMedian(b *testing.B) {
	x := make([]float64, 200)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for b.Loop() {
		bootstrapMedian(0.95, 2000, rand.NewPCG(3, 4), x)
	}
}
