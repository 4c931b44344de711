package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
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
