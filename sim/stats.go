package sim

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// An Estimate is the median of one figure over the runs, with a
// bias-corrected and accelerated (BCa) bootstrap confidence interval.
type Estimate struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// summarize estimates the median of every figure that applies to s over
// the runs. Each
// figure's bootstrap draws from its own generator, seeded from cfg.Seed and
// the figure's place, so the summary depends on nothing else.
func summarize(runs []Run, s Scenario, cfg Config) map[Figure]Estimate {
	out := make(map[Figure]Estimate, len(figureInfo))
	x := make([]float64, len(runs))
	for _, f := range figureInfo {
		if f.applies != nil && !f.applies(s) {
			continue
		}
		for j, r := range runs {
			x[j] = f.value(r, s)
		}
		out[f.f] = estimate(f.f, x, cfg)
	}
	return out
}

// estimate returns the median of x, the values of figure f over the runs,
// and its interval at cfg.Level, from a generator of its own seeded from
// cfg.Seed and f's place in figureInfo.
func estimate(f Figure, x []float64, cfg Config) Estimate {
	src := rand.NewPCG(cfg.Seed, splitmix64(uint64(f.lookup())+1))
	return bootstrapMedian(cfg.Level, cfg.Resamples, src, x)
}

// bootstrapMedian returns the median of x and its BCa bootstrap interval
// at the given level (Efron, 1987), from resamples drawn with src. The bias
// correction z₀ counts the resampled medians below the median, ties counted
// half; the acceleration comes from the jackknife medians. When every
// value is equal, or x holds fewer than two values, or resamples is 0, the
// interval is the median itself. When z₀ cannot be estimated (every
// resampled median on one side) the interval falls back to the resamples'
// range.
func bootstrapMedian(level float64, resamples int, src rand.Source, x []float64) Estimate {
	n := len(x)
	if n == 0 {
		return Estimate{}
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	m := median(sorted)
	if n < 2 || sorted[0] == sorted[n-1] || resamples == 0 {
		return Estimate{m, m, m}
	}
	// A resample draws n indexes into sorted; how often each is drawn
	// orders it, so its median is read off the counts in linear time,
	// the same value a sort of the drawn values would give.
	rng := rand.New(src)
	boot := make([]float64, resamples)
	counts := make([]int32, n)
	for b := range boot {
		clear(counts)
		for range n {
			counts[rng.IntN(n)]++
		}
		boot[b] = countedMedian(sorted, counts)
	}
	slices.Sort(boot)

	var below float64
	for _, v := range boot {
		switch {
		case v < m:
			below++
		case v == m:
			below += 0.5
		}
	}
	p := below / float64(resamples)
	if p <= 0 || p >= 1 {
		return Estimate{m, boot[0], boot[resamples-1]}
	}
	z0 := distuv.UnitNormal.Quantile(p)

	// Jackknife: the median of sorted without its i-th value.
	jack := make([]float64, n)
	for i := range jack {
		jack[i] = medianWithout(sorted, i)
	}
	a := acceleration(jack, 1)
	if math.IsNaN(a) || math.IsInf(a, 0) {
		// The cubes overflowed: the acceleration does not depend on
		// the scale of the values, so take them over the largest.
		var scale float64
		for _, j := range jack {
			scale = max(scale, math.Abs(j))
		}
		a = acceleration(jack, scale)
		if math.IsNaN(a) || math.IsInf(a, 0) {
			a = 0
		}
	}

	alpha := (1 - level) / 2
	adjusted := func(q float64) float64 {
		z := z0 + distuv.UnitNormal.Quantile(q)
		if !(1-a*z > 0) {
			return q
		}
		p := distuv.UnitNormal.CDF(z0 + z/(1-a*z))
		if math.IsNaN(p) {
			return q
		}
		return min(max(p, 0), 1)
	}
	lo := stat.Quantile(adjusted(alpha), stat.Empirical, boot, nil)
	hi := stat.Quantile(adjusted(1-alpha), stat.Empirical, boot, nil)
	return Estimate{m, lo, hi}
}

// acceleration returns the BCa acceleration of the jackknife values jack,
// each divided by scale: Σd³ / (6·(Σd²)^1.5), where d is each value's
// distance below their mean; 0 when every value is the same.
func acceleration(jack []float64, scale float64) float64 {
	var mean float64
	if scale == 1 {
		mean = stat.Mean(jack, nil)
	} else {
		for _, j := range jack {
			mean += j / scale / float64(len(jack))
		}
	}
	var num, den float64
	for _, j := range jack {
		d := mean - j/scale
		num += d * d * d
		den += d * d
	}
	if !(den > 0) {
		return 0
	}
	return num / (6 * math.Pow(den, 1.5))
}

// median returns the median of sorted: the middle value, or the mean of the
// two middle values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// countedMedian returns the median of the sample that holds sorted[j]
// counts[j] times, len(sorted) values in all, as median returns it of the
// sample sorted: its middle value, or the mean of its two middle values.
func countedMedian(sorted []float64, counts []int32) float64 {
	n := len(sorted)
	lo, hi := (n-1)/2, n/2 // the positions of the middle values
	seen := 0
	for j, c := range counts {
		seen += int(c)
		if seen <= lo {
			continue
		}
		a := sorted[j]
		if lo == hi {
			return a
		}
		if seen <= hi {
			// The upper middle value is the next one drawn.
			for j++; counts[j] == 0; j++ {
			}
		}
		return (a + sorted[j]) / 2
	}
	panic("sim: countedMedian: the counts do not add up to the sample's size")
}

// medianWithout returns the median of sorted without its i-th value.
func medianWithout(sorted []float64, i int) float64 {
	at := func(j int) float64 {
		if j < i {
			return sorted[j]
		}
		return sorted[j+1]
	}
	n := len(sorted) - 1
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}
