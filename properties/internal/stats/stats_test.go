package stats

import (
	"math"
	"math/rand/v2"
	"testing"

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
		if got := CV(tt.x); math.Abs(got-tt.want) > 1e-12 && got != tt.want {
			t.Errorf("%s: CV(%v) = %v; want %v", tt.name, tt.x, got, tt.want)
		}
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
	if got, want := CV(full), 1/math.Sqrt(3); math.Abs(got-want) > 0.01 {
		t.Errorf("CV of full jitter = %.4f; want %.4f", got, want)
	}
	if got, want := CV(equal), 1/(3*math.Sqrt(3)); math.Abs(got-want) > 0.01 {
		t.Errorf("CV of equal jitter = %.4f; want %.4f", got, want)
	}
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
		if got := CollisionProb(tt.x); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("CollisionProb(%v) = %v; want %v", tt.x, got, tt.want)
		}
	}
	if got := Pairs([]int{1, 2, 3, 37}); got != 0+1+3+666 {
		t.Errorf("Pairs = %v; want 670", got)
	}
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
		if math.Abs(got-tt.want) > tt.want*1e-3 {
			t.Errorf("PoissonCritical(%g, %g) = %v; want %v", tt.alpha, tt.lambda, got, tt.want)
		}
		if tt.lambda > 0 {
			p := distuv.Poisson{Lambda: tt.lambda}
			if tail := p.Survival(got - 1); tail >= tt.alpha {
				t.Errorf("P(X ≥ %v) = %g; want < %g", got, tail, tt.alpha)
			}
		}
	}
}

func TestKolmogorovQ(t *testing.T) {
	// Textbook critical values of the Kolmogorov distribution.
	for _, tt := range []struct{ lambda, want float64 }{{1.358, 0.05}, {1.628, 0.01}, {0.1, 1}} {
		if got := KolmogorovQ(tt.lambda); math.Abs(got-tt.want) > 0.001 {
			t.Errorf("Q(%v) = %.4f; want %.4f", tt.lambda, got, tt.want)
		}
	}
}

func TestKSUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	u := make([]float64, 1000)
	for i := range u {
		u[i] = rng.Float64()
	}
	if d, p := KSUniform(u); d > 0.06 || p < 1e-3 {
		t.Errorf("uniform draws: D = %.3f, p = %.3g; want a small D and a large p", d, p)
	}
	for i := range u {
		u[i] = 0.5 + u[i]/2 // equal jitter's draws against full jitter's claim
	}
	if d, p := KSUniform(u); math.Abs(d-0.5) > 0.01 || p > 1e-100 {
		t.Errorf("draws on [0.5, 1): D = %.3f, p = %.3g; want D = 0.5 and p ≈ 0", d, p)
	}
	if d, p := KSUniform(nil); d != 0 || p != 1 {
		t.Errorf("KSUniform(nil) = %v, %v; want 0, 1", d, p)
	}
}

func TestMaxWindow(t *testing.T) {
	x := []float64{0, 0.1, 0.15, 0.2, 1, 1.01, 1.02, 1.03, 5}
	if c, at := MaxWindow(0.05, x); c != 4 || at != 1 {
		t.Errorf("MaxWindow = %d at %v; want 4 at 1", c, at)
	}
	if c, _ := MaxWindow(10, x); c != len(x) {
		t.Errorf("MaxWindow(10) = %d; want all %d", c, len(x))
	}
	if c, _ := MaxWindow(1, nil); c != 0 {
		t.Errorf("MaxWindow(nil) = %d; want 0", c)
	}
}

func BenchmarkPoissonCriticalLargeMean(b *testing.B) {
	// The expectation for a fleet of 10⁵ devices in lockstep, with slack.
	for b.Loop() {
		PoissonCritical(1e-7, 10*5e9)
	}
}
