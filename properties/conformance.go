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
	pit := newTransform(claim)
	worst := ksWorst{p: 2}
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
			if claim.Strategy == kit.None {
				if diff := v - w; diff > conformanceTolerance || diff < -conformanceTolerance {
					off = append(off, d)
				}
				continue
			}
			if t, ok := pit.transform(a, d, x, w, rng); ok {
				u = append(u, t)
			}
		}
		if claim.Strategy == kit.None {
			if len(off) > 0 {
				return r.offTheWindow(res, claim, a, off, w)
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
	return r.conformanceVerdict(res, claim, worst)
}

// ksWorst is the attempt whose delays conform least: its KS statistic d
// and p-value p, over n devices.
type ksWorst struct {
	p, d    float64
	attempt int
	n       int
}

// conformanceVerdict judges the conformance check of claim on the attempt
// whose delays conform least, or, for an unjittered claim whose delays
// all equal their windows, passes it.
func (r *runner) conformanceVerdict(res Result, claim kit.Spec, worst ksWorst) Result {
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

// offTheWindow fails res: the devices off are off the window w of an
// unjittered claim at attempt a.
func (r *runner) offTheWindow(res Result, claim kit.Spec, a int, off []device, w time.Duration) Result {
	res.Status = verdict.Fail
	res.Figure, res.Threshold, res.Unit, res.Want = float64(len(off)), 0, "devices off the window", "≤"
	res.Counterexample = &Counterexample{Attempt: a + 1, Devices: shown(off, a+1), Seed: r.seed, Replay: r.replay()}
	res.Detail = fmt.Sprintf("delay %d of %q = %s, and %d of %d devices off the window; want %s (claim %s)",
		a+1, res.Counterexample.Devices[0].ID, prose.FormatDuration(res.Counterexample.Devices[0].Delays[a]), len(off), len(r.clean), prose.FormatDuration(w), claim)
	return res
}

// A transform is the probability integral transform of a jittered claim:
// the claim's CDF, given a device's previous delay.
type transform struct {
	strategy        kit.Strategy
	base, cap, mult float64 // seconds, and the growth of decorrelated jitter
}

// newTransform returns the transform of claim, its defaults applied.
func newTransform(claim kit.Spec) transform {
	t := transform{strategy: claim.Strategy, base: claim.Window(0).Seconds(), cap: claim.Window(1 << 20).Seconds(), mult: claim.Multiplier}
	if t.mult == 0 {
		t.mult = kit.DefaultMultiplier
		if claim.Strategy == kit.Decorrelated {
			t.mult = kit.DecorrelatedMultiplier
		}
	}
	return t
}

// transform maps delay x, in seconds, of device d at attempt a, whose
// window is w, to [0, 1]: uniformly, when the delays conform. A point mass
// and the share of decorrelated jitter held at the cap are spread with
// draws of rng. It reports false for a strategy it does not know.
func (t transform) transform(a int, d device, x float64, w time.Duration, rng *rand.Rand) (float64, bool) {
	switch t.strategy {
	case kit.Full:
		return clamp01(x / w.Seconds()), true
	case kit.Equal:
		half := w.Seconds() / 2
		return clamp01((x - half) / half), true
	case kit.Decorrelated:
		prev := t.base
		if a > 0 {
			prev = d.delays[a-1].Seconds()
		}
		hi := prev * t.mult
		switch {
		case hi <= t.base:
			return rng.Float64(), true // a point mass: nothing to test
		case x >= t.cap && hi > t.cap:
			below := (t.cap - t.base) / (hi - t.base)
			return below + rng.Float64()*(1-below), true
		default:
			return clamp01((x - t.base) / (hi - t.base)), true
		}
	}
	return 0, false
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
