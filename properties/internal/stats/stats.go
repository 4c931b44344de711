// Package stats holds the numeric helpers of the property checks: the
// coefficient of variation, the collision expectations that chance gives,
// the binomial and Poisson tails that bound what chance puts in one window,
// and a one-sample Kolmogorov–Smirnov test against the uniform distribution.
//
// Like gonum's stat package, the functions take slices and return scalars,
// scalars before data, with their special cases documented.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// CV returns the coefficient of variation of x: its sample standard
// deviation over the absolute value of its mean. It returns 0 when x has
// fewer than two values or all its values are equal (including all zero),
// and +Inf when the mean is zero but the values differ.
func CV(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	mean, sd := stat.MeanStdDev(x, nil)
	switch {
	case sd == 0 || math.IsNaN(sd):
		return 0
	case mean == 0:
		return math.Inf(1)
	}
	return sd / math.Abs(mean)
}

// CollisionProb returns the unbiased estimate, from the values x, of the
// probability that two distinct draws from their distribution are equal:
// Σ c(c−1) / (n(n−1)) over the counts c of each distinct value, n = len(x).
// It returns 1 when x has fewer than two values.
func CollisionProb[V comparable](x []V) float64 {
	n := len(x)
	if n < 2 {
		return 1
	}
	counts := make(map[V]int, n)
	for _, v := range x {
		counts[v]++
	}
	var pairs float64
	for _, c := range counts {
		pairs += float64(c) * float64(c-1)
	}
	return pairs / (float64(n) * float64(n-1))
}

// Pairs returns the number of unordered pairs among groups of the given
// sizes: Σ c(c−1)/2.
func Pairs(sizes []int) float64 {
	var p float64
	for _, c := range sizes {
		p += float64(c) * float64(c-1) / 2
	}
	return p
}

// PoissonCritical returns the smallest count k ≥ 1 such that a Poisson
// variable of mean lambda reaches k or more with probability below alpha:
// the fewest events that chance alone explains with probability under
// alpha. lambda = 0 gives 1. It panics if alpha is not in (0, 1) or lambda
// is negative or NaN.
func PoissonCritical(alpha, lambda float64) float64 {
	if !(alpha > 0 && alpha < 1) {
		panic("stats: alpha not in (0, 1)")
	}
	if !(lambda >= 0) {
		panic("stats: negative or NaN Poisson mean")
	}
	if lambda == 0 {
		return 1
	}
	p := distuv.Poisson{Lambda: lambda}
	// Survival(k) is P(X > k), so P(X ≥ k) = Survival(k−1), which falls as
	// k grows: search for the first k where it is below alpha.
	atLeast := func(k float64) float64 { return p.Survival(k - 1) }
	if atLeast(1) < alpha {
		return 1
	}
	lo, hi := 1.0, math.Ceil(lambda+10*math.Sqrt(lambda)+50)
	for atLeast(hi) >= alpha {
		lo, hi = hi, 2*hi
	}
	// Invariant: P(X ≥ lo) ≥ alpha > P(X ≥ hi).
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if atLeast(mid) < alpha {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// KSUniform returns the one-sample Kolmogorov–Smirnov statistic D of u
// against the uniform distribution on [0, 1], and its asymptotic p-value.
// u is sorted in place. An empty u gives D = 0 and p = 1.
//
// The p-value is Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) with
// λ = (√n + 0.12 + 0.11/√n)·D, Stephens' correction of the asymptotic
// distribution for a finite n.
func KSUniform(u []float64) (d, p float64) {
	n := len(u)
	if n == 0 {
		return 0, 1
	}
	slices.Sort(u)
	unif := distuv.Uniform{Min: 0, Max: 1}
	for i, x := range u {
		f := unif.CDF(x)
		d = math.Max(d, math.Max(float64(i+1)/float64(n)-f, f-float64(i)/float64(n)))
	}
	rn := math.Sqrt(float64(n))
	return d, KolmogorovQ((rn + 0.12 + 0.11/rn) * d)
}

// KolmogorovQ returns the survival function of the Kolmogorov
// distribution, Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²), clamped to [0, 1].
// Q(λ) is 1 for λ ≤ 0.
func KolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	for k := 1; k <= 100; k++ {
		term := math.Exp(-2 * float64(k*k) * lambda * lambda)
		if k%2 == 0 {
			sum -= term
		} else {
			sum += term
		}
		if term < 1e-16*sum {
			break
		}
	}
	return math.Min(1, math.Max(0, 2*sum))
}

// MaxWindow returns the largest number of the sorted values x that lie in
// one half-open window [a, a+width), and the start a of the first such
// window. It returns 0 and 0 for an empty x. It panics if width is negative.
func MaxWindow(width float64, x []float64) (count int, at float64) {
	if width < 0 {
		panic("stats: negative window")
	}
	j := 0
	for i := range x {
		for x[i]-x[j] >= width && j < i {
			j++
		}
		if c := i - j + 1; c > count {
			count, at = c, x[j]
		}
	}
	return count, at
}

// BinomialTail returns P(X ≥ k) for X binomial with n trials of probability
// p: the regularized incomplete beta function I_p(k, n−k+1), accurate far
// into the tail, where 1 − CDF is not. It returns 1 for k ≤ 0 and 0 for
// k > n. It panics if n is negative or p is not in [0, 1].
func BinomialTail(k, n int, p float64) float64 {
	if n < 0 {
		panic("stats: negative number of trials")
	}
	if !(p >= 0 && p <= 1) {
		panic("stats: probability not in [0, 1]")
	}
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	case p == 0:
		return 0
	case p == 1:
		return 1
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// BinomialCritical returns the smallest count k ≥ 1 such that a binomial
// variable of n trials of probability p reaches k or more with probability
// below alpha: the fewest successes that chance alone explains with
// probability under alpha. It returns n+1 when no count is that rare (p
// close to 1, or n small), and 1 when p is 0. It panics if alpha is not in
// (0, 1), n is negative or p is not in [0, 1].
func BinomialCritical(alpha float64, n int, p float64) int {
	if !(alpha > 0 && alpha < 1) {
		panic("stats: alpha not in (0, 1)")
	}
	if BinomialTail(1, n, p) < alpha {
		return 1
	}
	if BinomialTail(n, n, p) >= alpha {
		return n + 1
	}
	// Invariant: P(X ≥ lo) ≥ alpha > P(X ≥ hi).
	lo, hi := 1, n
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if BinomialTail(mid, n, p) < alpha {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// MaxRelWindow returns the largest number of the sorted values x that lie
// in one window [v, v+w(v)], where v is one of the values and its width
// w(v) = min(frac·v, limit) grows with v up to limit (a value below zero
// has a window of width 0), and the index of the first value of the first
// such window. It returns 0 and 0 for an empty x. It panics if frac or
// limit is negative or NaN.
func MaxRelWindow(frac, limit float64, x []float64) (count, start int) {
	if !(frac >= 0) || !(limit >= 0) {
		panic("stats: negative window")
	}
	// The end v+w(v) never falls as v grows, so the window's last value
	// only moves on.
	j := 0
	for i := range x {
		end := x[i] + math.Min(frac*math.Max(x[i], 0), limit)
		if j < i {
			j = i
		}
		for j+1 < len(x) && x[j+1] <= end {
			j++
		}
		if c := j - i + 1; c > count {
			count, start = c, i
		}
	}
	return count, start
}
