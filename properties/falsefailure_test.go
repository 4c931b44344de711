package properties

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

var falseRuns = flag.Int("falseruns", 40, "runs per policy of TestFalseFailures")

// TestFalseFailures runs the suite on every policy that must pass, over
// many populations drawn from different seeds, and asserts two things:
// no run fails, and each figure stays so far from its threshold that a
// failure is rarer than 1 run in 10,000. For the spread figures (a CV), the
// distance is measured in standard deviations of the figure over the runs,
// and the normal tail beyond the threshold must be below 10⁻⁵ per figure
// (there are 8 checks, so the run's false-failure rate stays below 10⁻⁴).
// Conformance's p-value is uniform on [0, 1] for a conforming policy, so its
// rate is KSAlpha per attempt by construction; the test checks that the
// p-values are not piled near zero (the KS approximation is calibrated).
func TestFalseFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("many seeds: skipped under -short")
	}
	policies := []struct {
		name  string
		f     kit.Factory
		claim *kit.Spec
		warn  map[string]bool
	}{
		{"full", spec(t, "full"), &kit.Spec{Strategy: kit.Full}, nil},
		{"equal", spec(t, "equal"), &kit.Spec{Strategy: kit.Equal}, nil},
		{"decorrelated", spec(t, "decorrelated"), &kit.Spec{Strategy: kit.Decorrelated}, nil},
		{"full rounded to ms", roundedMS(spec(t, "full")), &kit.Spec{Strategy: kit.Full}, nil},
		{"equal rounded to ms", roundedMS(spec(t, "equal")), &kit.Spec{Strategy: kit.Equal}, nil},
		{"decorrelated rounded to ms", roundedMS(spec(t, "decorrelated")), &kit.Spec{Strategy: kit.Decorrelated}, nil},
		{"full from one shared generator", sharedGenerator(), nil, map[string]bool{NameReproducibility: true}},
	}
	seeds := rand.New(rand.NewPCG(2026, 11))
	for _, p := range policies {
		t.Run(p.name, func(t *testing.T) {
			figures := map[string][]float64{}
			lowP := 0
			for range *falseRuns {
				seed := seeds.Uint64()
				r := newRunner(context.Background(), p.f, Config{Seed: seed, Claim: p.claim})
				out := r.outcome(nil)
				r.cancel()
				figures["arrivals"] = append(figures["arrivals"], r.arrivals().ratio)
				for _, r := range out.Results {
					want := verdict.Pass
					if p.warn[r.Name] {
						want = verdict.Warn
					}
					assert.Equal(t, want, r.Status, "seed %d: %s: %s", seed, r.Name, r.Detail)
					figures[r.Name] = append(figures[r.Name], r.Figure)
					if r.Name == NameConformance && p.claim != nil && r.Figure < 0.01 {
						lowP++
					}
				}
			}
			for _, name := range []string{NameSpread, NameFrozenClock, NameCapPhase} {
				mean, sd := stat.MeanStdDev(figures[name], nil)
				z := (mean - DefaultThresholds().MinCV) / sd
				tail := distuv.UnitNormal.CDF(-z)
				t.Logf("%-13s CV mean %.4f sd %.4f min %.4f: threshold %.2f is %.1f sd below, normal tail %.2g",
					name, mean, sd, minOf(figures[name]), DefaultThresholds().MinCV, z, tail)
				assert.LessOrEqual(t, tail, 1e-5, "%s: the normal tail beyond the threshold, %.1f sd from the mean figure: a false failure every %.0f runs", name, z, 1/tail)
			}
			t.Logf("clusters      identical pairs: max %.0f over %d runs", maxOf(figures[NameClusters]), *falseRuns)
			mean, sd := stat.MeanStdDev(figures["arrivals"], nil)
			z := (DefaultThresholds().ArrivalRatio - mean) / sd
			t.Logf("arrivals      busiest-window ratio mean %.2f sd %.2f max %.2f: threshold %g is %.1f sd above, normal tail %.2g",
				mean, sd, maxOf(figures["arrivals"]), DefaultThresholds().ArrivalRatio, z, distuv.UnitNormal.CDF(-z))
			tail := distuv.UnitNormal.CDF(-z)
			assert.LessOrEqual(t, tail, 1e-5, "arrivals: the normal tail beyond the threshold, %.1f sd from the mean ratio: a false failure every %.0f runs", z, 1/tail)
			if p.claim != nil {
				// min of Attempts uniform p-values: P(min < 0.01) = 1 − 0.99³.
				want := float64(*falseRuns) * (1 - math.Pow(0.99, DefaultAttempts))
				t.Logf("conformance   %d of %d runs with p < 0.01 (expected %.1f); min p %.3g", lowP, *falseRuns, want, minOf(figures[NameConformance]))
				assert.LessOrEqual(t, float64(lowP), want+4*math.Sqrt(want)+3, "conformance: runs with p < 0.01, about %.1f expected; more means the KS p-value is miscalibrated", want)
			}
		})
	}
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
