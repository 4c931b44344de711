package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestCV(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one value", []float64{3}, 0},
		{"all equal", []float64{2, 2, 2}, 0},
		{"all zero", []float64{0, 0}, 0},
		{"zero mean", []float64{-1, 1}, math.Inf(1)},
		{"1 and 3", []float64{1, 3}, math.Sqrt2 / 2},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, CV(tt.x), 1e-12, "%s: CV(%v)", tt.name, tt.x)
	}
}

// TestCVUniform checks the scale figures the checks are documented with:
// uniform(0, w) has CV 1/√3, uniform(w/2, w) has CV 1/(3√3).
func TestCVUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	full, equal := make([]float64, 100000), make([]float64, 100000)
	for i := range full {
		full[i] = rng.Float64()
		equal[i] = 0.5 + rng.Float64()/2
	}
	// The standard error of a CV over 10⁵ draws is below 0.002.
	assert.InDelta(t, 1/math.Sqrt(3), CV(full), 0.01, "CV of full jitter")
	assert.InDelta(t, 1/(3*math.Sqrt(3)), CV(equal), 0.01, "CV of equal jitter")
}

func TestCollisionProb(t *testing.T) {
	tests := []struct {
		x    []int
		want float64
	}{
		{nil, 1},
		{[]int{1}, 1},
		{[]int{1, 2, 3, 4}, 0},
		{[]int{1, 1, 1, 1}, 1},
		{[]int{1, 1, 2, 2}, 4.0 / 12},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, CollisionProb(tt.x), 1e-12, "CollisionProb(%v)", tt.x)
	}
	assert.Equal(t, float64(0+1+3+666), Pairs([]int{1, 2, 3, 37}), "Pairs")
}

func TestPoissonCritical(t *testing.T) {
	tests := []struct {
		alpha, lambda, want float64
	}{
		{1e-7, 0, 1},
		{0.5, 1e-9, 1},         // P(X ≥ 1) ≈ 1e-9 < 0.5
		{1e-7, 2.5e-3, 3},      // P(X ≥ 2) = 3.1e-6, P(X ≥ 3) = 2.6e-9
		{0.05, 10, 16},         // P(X ≥ 15) = 0.083, P(X ≥ 16) = 0.049
		{1e-7, 499500, 503180}, // about λ + 5.2√λ, the normal 10⁻⁷ point
	}
	for _, tt := range tests {
		got := PoissonCritical(tt.alpha, tt.lambda)
		assert.InEpsilon(t, tt.want, got, 1e-3, "PoissonCritical(%g, %g)", tt.alpha, tt.lambda)
		if tt.lambda > 0 {
			p := distuv.Poisson{Lambda: tt.lambda}
			assert.Less(t, p.Survival(got-1), tt.alpha, "P(X ≥ %v) at λ = %g", got, tt.lambda)
		}
	}
}

func TestKolmogorovQ(t *testing.T) {
	// Textbook critical values of the Kolmogorov distribution.
	for _, tt := range []struct{ lambda, want float64 }{{1.358, 0.05}, {1.628, 0.01}, {0.1, 1}} {
		assert.InDelta(t, tt.want, KolmogorovQ(tt.lambda), 0.001, "Q(%v)", tt.lambda)
	}
}

func TestKSUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	u := make([]float64, 1000)
	for i := range u {
		u[i] = rng.Float64()
	}
	d, p := KSUniform(u)
	assert.LessOrEqual(t, d, 0.06, "D of uniform draws")
	assert.GreaterOrEqual(t, p, 1e-3, "p of uniform draws")
	for i := range u {
		u[i] = 0.5 + u[i]/2 // equal jitter's draws against full jitter's claim
	}
	d, p = KSUniform(u)
	assert.InDelta(t, 0.5, d, 0.01, "D of draws on [0.5, 1)")
	assert.LessOrEqual(t, p, 1e-100, "p of draws on [0.5, 1); want p ≈ 0")
	d, p = KSUniform(nil)
	assert.Zero(t, d, "D of KSUniform(nil)")
	assert.Equal(t, 1.0, p, "p of KSUniform(nil)")
}

func TestMaxWindow(t *testing.T) {
	x := []float64{0, 0.1, 0.15, 0.2, 1, 1.01, 1.02, 1.03, 5}
	c, at := MaxWindow(0.05, x)
	assert.Equal(t, 4, c, "MaxWindow(0.05) count")
	assert.Equal(t, 1.0, at, "MaxWindow(0.05) start")
	c, _ = MaxWindow(10, x)
	assert.Equal(t, len(x), c, "MaxWindow(10) holds all")
	c, _ = MaxWindow(1, nil)
	assert.Zero(t, c, "MaxWindow(nil)")
}

func BenchmarkPoissonCriticalLargeMean(b *testing.B) {
	// The expectation for a fleet of 10⁵ devices in lockstep, with slack.
	for b.Loop() {
		PoissonCritical(1e-7, 10*5e9)
	}
}

func TestBinomialTail(t *testing.T) {
	tests := []struct {
		k, n int
		p    float64
		want float64
	}{
		{0, 10, 0.3, 1},
		{11, 10, 0.3, 0},
		{1, 10, 0, 0},
		{10, 10, 1, 1},
		{1, 3, 0.5, 0.875},                      // 1 − 0.5³
		{3, 3, 0.5, 0.125},                      // 0.5³
		{2, 4, 0.25, 1 - 0.31640625 - 0.421875}, // 1 − P(0) − P(1)
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, BinomialTail(tt.k, tt.n, tt.p), 1e-12, "BinomialTail(%d, %d, %g)", tt.k, tt.n, tt.p)
	}
	// Far into the tail, where 1 − CDF has no digits left: P(X = n) = pⁿ.
	assert.InEpsilon(t, math.Pow(0.1, 30), BinomialTail(30, 30, 0.1), 1e-9, "BinomialTail(30, 30, 0.1)")
}

func TestBinomialCritical(t *testing.T) {
	tests := []struct {
		alpha float64
		n     int
		p     float64
	}{
		{1e-7, 1000, 2.0 / 3},
		{1e-10, 999, 0.0577},
		{0.05, 20, 0.5},
		{1e-3, 100, 0.01},
	}
	for _, tt := range tests {
		k := BinomialCritical(tt.alpha, tt.n, tt.p)
		// The definition: k is the first count whose tail is below alpha.
		assert.Less(t, BinomialTail(k, tt.n, tt.p), tt.alpha, "P(X ≥ %d) for n %d, p %g", k, tt.n, tt.p)
		assert.GreaterOrEqual(t, BinomialTail(k-1, tt.n, tt.p), tt.alpha, "P(X ≥ %d) for n %d, p %g", k-1, tt.n, tt.p)
	}
	assert.Equal(t, 1, BinomialCritical(0.01, 100, 0), "p = 0")
	assert.Equal(t, 11, BinomialCritical(0.01, 10, 0.9), "no count rarer than alpha: n+1")
	assert.Equal(t, 744, BinomialCritical(1e-7, 1000, 2.0/3), "the clamp's critical count of 1000 devices, as Thresholds.ClampShare documents")
	assert.Panics(t, func() { BinomialCritical(0, 10, 0.5) }, "alpha 0")
	assert.Panics(t, func() { BinomialTail(1, 10, 1.5) }, "p 1.5")
}

func TestMaxRelWindow(t *testing.T) {
	tests := []struct {
		name         string
		frac, limit  float64
		x            []float64
		count, start int
	}{
		{"empty", 0.01, 1, nil, 0, 0},
		{"one", 0.01, 1, []float64{5}, 1, 0},
		{"1% of 100 holds 100 to 101", 0.01, 1, []float64{1, 100, 100.5, 101, 101.5}, 3, 1},
		{"the limit narrows a wide window", 0.5, 1, []float64{100, 100.5, 101, 101.5}, 3, 0},
		{"equal values", 0.01, 1, []float64{1, 2, 2, 2, 3}, 3, 1},
		{"zero holds only zeros", 0.01, 1, []float64{0, 0, 1e-9}, 2, 0},
		{"the first busiest window", 0.1, 10, []float64{1, 1.05, 10, 10.5}, 2, 0},
		{"below zero", 0.1, 1, []float64{-1, -1, 0}, 2, 0},
	}
	for _, tt := range tests {
		count, start := MaxRelWindow(tt.frac, tt.limit, tt.x)
		assert.Equal(t, tt.count, count, "%s: count", tt.name)
		assert.Equal(t, tt.start, start, "%s: start", tt.name)
	}
	assert.Panics(t, func() { MaxRelWindow(-1, 1, nil) }, "negative fraction")
}
