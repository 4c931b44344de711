package properties

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties/internal/stats"
)

// NameConformance is the name of the check that the delays follow the
// distribution of the claimed strategy (Kolmogorov–Smirnov); it runs when
// Config.Claim names one.
const NameConformance = "conformance"

var _ = register(check{
	name:     NameConformance,
	why:      "A policy that does not follow the strategy it claims makes every capacity estimate built on that strategy wrong.",
	position: 80,
	applies:  func(cfg Config) bool { return cfg.Claim != nil },
	run:      (*runner).conformance,
	cause:    (*runner).conformanceCause,
})

// conformanceTolerance is how far a delay of the none strategy may be from
// its window: delays stored in whole milliseconds still conform.
const conformanceTolerance = time.Millisecond

// conformance tests, at each early attempt, that the delays follow the
// distribution of the claimed strategy: each delay is mapped through the
// claim's CDF given the device's previous delay (the probability integral
// transform), which makes conforming delays uniform on [0, 1), and the
// mapped values are held to the uniform distribution by a one-sample
// Kolmogorov–Smirnov test.
func (r *runner) conformance() Result {
	res := Result{Name: NameConformance, Threshold: r.cfg.Thresholds.KSAlpha, Unit: "p", Want: "≥"}
	claim := *r.cfg.Claim
	if err := claim.Validate(); err != nil {
		res.Status = verdict.Fail
		res.Detail = fmt.Sprintf("claimed spec %s: %v", claim, err)
		return res
	}
	// Spec.Window applies the defaults; the rest of the claim is read from
	// its text form, which writes them out.
	claim, err := kit.ParseSpec(claim.String())
	if err != nil {
		res.Status = verdict.Fail
		res.Detail = fmt.Sprintf("claimed spec %s: %v", claim, err)
		return res
	}
	rng := rand.New(rand.NewPCG(r.seed, 0x6b73))
	// Delays stored in whole units (ms, µs) are spread back over their
	// unit before the test, or the steps of their CDF alone would move the
	// KS statistic by a unit over the window.
	g := granularity(r.clean, r.cfg.Attempts).Seconds()
	base, cap := claim.Window(0).Seconds(), claim.Window(1<<20).Seconds()
	mult := claim.Multiplier
	if mult == 0 {
		mult = kit.DefaultMultiplier
		if claim.Strategy == kit.Decorrelated {
			mult = kit.DecorrelatedMultiplier
		}
	}
	worst := struct {
		p, d    float64
		attempt int
		n       int
	}{p: 2}
	for a := range r.cfg.Attempts {
		w := claim.Window(a)
		var u []float64
		var off []device
		for _, d := range r.clean {
			if a >= len(d.delays) {
				continue
			}
			v := d.delays[a]
			x := v.Seconds()
			if g > 0 {
				x += (rng.Float64() - 0.5) * g
			}
			switch claim.Strategy {
			case kit.None:
				if diff := v - w; diff > conformanceTolerance || diff < -conformanceTolerance {
					off = append(off, d)
				}
				continue
			case kit.Full:
				u = append(u, clamp01(x/w.Seconds()))
			case kit.Equal:
				half := w.Seconds() / 2
				u = append(u, clamp01((x-half)/half))
			case kit.Decorrelated:
				prev := base
				if a > 0 {
					prev = d.delays[a-1].Seconds()
				}
				hi := prev * mult
				switch {
				case hi <= base:
					u = append(u, rng.Float64()) // a point mass: nothing to test
				case x >= cap && hi > cap:
					below := (cap - base) / (hi - base)
					u = append(u, below+rng.Float64()*(1-below))
				default:
					u = append(u, clamp01((x-base)/(hi-base)))
				}
			}
		}
		if claim.Strategy == kit.None {
			if len(off) > 0 {
				res.Status = verdict.Fail
				res.Figure, res.Threshold, res.Unit, res.Want = float64(len(off)), 0, "devices off the window", "≤"
				res.Counterexample = &Counterexample{Attempt: a + 1, Devices: shown(off, a+1), Seed: r.seed, Replay: r.replay()}
				res.Detail = fmt.Sprintf("delay %d of %q = %s, and %d of %d devices off the window; want %s (claim %s)",
					a+1, res.Counterexample.Devices[0].ID, prose.FormatDuration(res.Counterexample.Devices[0].Delays[a]), len(off), len(r.clean), prose.FormatDuration(w), claim)
				return res
			}
			continue
		}
		if len(u) < r.cfg.Thresholds.MinDevices {
			continue
		}
		d, p := stats.KSUniform(u)
		if p < worst.p {
			worst.p, worst.d, worst.attempt, worst.n = p, d, a, len(u)
		}
	}
	if claim.Strategy == kit.None {
		// The figure of an unjittered claim is the devices off its window,
		// not a p-value.
		res.Status = verdict.Pass
		res.Figure, res.Threshold, res.Unit, res.Want = 0, 0, "devices off the window", "≤"
		res.Detail = fmt.Sprintf("the first %d delays of %d devices equal the windows of %s to within %s", r.cfg.Attempts, len(r.clean), claim, conformanceTolerance)
		return res
	}
	if worst.p > 1 {
		return r.notEnough(NameConformance, len(r.clean), "answered without a fault")
	}
	res.Figure = worst.p
	text := fmt.Sprintf("delay %d of %d devices against %s: KS D = %.3g, p = %.3g; want p ≥ %g", worst.attempt+1, worst.n, claim, worst.d, worst.p, r.cfg.Thresholds.KSAlpha)
	if worst.p < r.cfg.Thresholds.KSAlpha {
		res.Status = verdict.Fail
		res.Detail = text
		res.Counterexample = &Counterexample{Attempt: worst.attempt + 1, Seed: r.seed, Replay: r.replay()}
		return res
	}
	res.Status = verdict.Pass
	res.Detail = "lowest p-value " + text
	return res
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Min(1, math.Max(0, x))
}

// granularity returns the largest of 1s, 100ms, 10ms, 1ms, 100µs, 10µs
// and 1µs that divides every one of the first attempts delays of devs, or 0
// when none does (or every delay is zero).
func granularity(devs []device, attempts int) time.Duration {
	for g := time.Second; g >= time.Microsecond; g /= 10 {
		all, nonzero := true, false
		for _, d := range devs {
			for _, v := range d.delays[:min(attempts, len(d.delays))] {
				if v%g != 0 {
					all = false
					break
				}
				nonzero = nonzero || v != 0
			}
			if !all {
				break
			}
		}
		if all && nonzero {
			return g
		}
	}
	return 0
}

// conformanceCause is the root cause of delays that do not follow the
// claimed strategy. Devices in lockstep draw one value where the strategy
// draws a thousand: the seeding is wrong then, not the strategy.
func (r *runner) conformanceCause(*Result) Cause {
	if r.fleet().lockstep {
		return r.sharedCause()
	}
	return WrongStrategy
}
