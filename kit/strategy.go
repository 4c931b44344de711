package kit

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// A Strategy is one of the four ways to turn a backoff window into a delay.
type Strategy string

// The four strategies: no jitter, and the three common ways to jitter.
const (
	None         Strategy = "none"
	Full         Strategy = "full"
	Equal        Strategy = "equal"
	Decorrelated Strategy = "decorrelated"
)

// Strategies returns the four strategies, the weakest first.
func Strategies() []Strategy {
	return []Strategy{None, Full, Equal, Decorrelated}
}

// A Seed says where each device's generator takes its seed from.
type Seed string

// The seed sources. Only SeedDevice de-synchronises a fleet; the other two
// exist so that reports can show what the common mistakes do.
const (
	// SeedDevice seeds from a stable hash of the device id (the default).
	SeedDevice Seed = "device"
	// SeedClock seeds from the second the device booted.
	SeedClock Seed = "clock"
	// SeedConstant gives every device the same seed.
	SeedConstant Seed = "constant"
)

// A ResetRule says when a policy's attempt counter goes back to 0, so that
// its next delay is its first delay again.
type ResetRule string

// The reset rules.
const (
	// ResetNever lets the attempt counter only grow (the default): the
	// policy ignores every outcome.
	ResetNever ResetRule = "never"
	// ResetOnSuccess starts the policy over when it observes a [Success],
	// as cenkalti/backoff's Reset is called after a success and as most
	// MQTT clients reset their reconnect backoff after a connect: the
	// delays that follow a failure after it are those of a fresh policy of
	// the same device, from its first.
	ResetOnSuccess ResetRule = "on-success"
)

// Defaults for the fields of a [Spec] left zero.
const (
	DefaultBase       = 100 * time.Millisecond
	DefaultCap        = 10 * time.Second
	DefaultMultiplier = 2.0
	// DecorrelatedMultiplier is decorrelated jitter's default growth factor:
	// each delay is drawn from [base, 3·previous].
	DecorrelatedMultiplier = 3.0
)

// A Spec describes a built-in policy: a strategy, its backoff parameters,
// its seed source and when it starts over. Zero fields take the defaults
// above; the zero Seed is [SeedDevice] and the zero Reset is [ResetNever].
// Its text form is parsed by [ParseSpec] and written by [Spec.String].
type Spec struct {
	Strategy   Strategy
	Base       time.Duration
	Cap        time.Duration
	Multiplier float64
	Seed       Seed
	Reset      ResetRule
}

// withDefaults returns s with its zero fields set to their defaults.
func (s Spec) withDefaults() Spec {
	if s.Base == 0 {
		s.Base = DefaultBase
	}
	if s.Cap == 0 {
		s.Cap = max(DefaultCap, s.Base)
	}
	if s.Multiplier == 0 {
		s.Multiplier = DefaultMultiplier
		if s.Strategy == Decorrelated {
			s.Multiplier = DecorrelatedMultiplier
		}
	}
	if s.Seed == "" {
		s.Seed = SeedDevice
	}
	if s.Reset == "" {
		s.Reset = ResetNever
	}
	return s
}

// Validate reports the first field of s, after defaults, that is out of range.
func (s Spec) Validate() error {
	s = s.withDefaults()
	switch {
	case s.Strategy != None && s.Strategy != Full && s.Strategy != Equal && s.Strategy != Decorrelated:
		return fmt.Errorf("unknown strategy %q (want none, full, equal or decorrelated)", string(s.Strategy))
	case s.Base < 0:
		return fmt.Errorf("base %v is negative", s.Base)
	case s.Cap < s.Base:
		return fmt.Errorf("cap %v is below base %v", s.Cap, s.Base)
	case !(s.Multiplier >= 1) || s.Multiplier > 1e6:
		return fmt.Errorf("multiplier %v is not in [1, 1e6]", s.Multiplier)
	case s.Seed != SeedDevice && s.Seed != SeedClock && s.Seed != SeedConstant:
		return fmt.Errorf("unknown seed %q (want device, clock or constant)", string(s.Seed))
	case s.Reset != ResetNever && s.Reset != ResetOnSuccess:
		return fmt.Errorf("unknown reset %q (want never or on-success)", string(s.Reset))
	}
	return nil
}

// Window returns min(cap, base·multiplierⁿ), the backoff window of the n-th
// retry counting from 0, after defaults. Decorrelated jitter has no window
// of its own; for it Window bounds the delays the same way.
func (s Spec) Window(n int) time.Duration {
	s = s.withDefaults()
	w := float64(s.Base)
	for range n {
		w *= s.Multiplier
		if w >= float64(s.Cap) {
			return s.Cap
		}
	}
	return min(time.Duration(w), s.Cap)
}

// Factory returns the factory of the policy s describes. It panics if s is
// not valid; [ParseSpec] returns only valid specs.
//
// Its policies are [Observer]s. Under [ResetNever] they ignore what they
// observe. Under [ResetOnSuccess] a [Success] puts the policy back as the
// factory made it: its window back to the base, the previous delay of
// decorrelated jitter back to the base, and its generator re-seeded from
// the device, as [Seed] says. The delays after a reset are therefore the
// delays of a fresh policy of the same device, from its first, and a
// policy stays a function of its device and the outcomes it observed. A
// device reset many times draws the same first delays each time; devices
// still draw apart from each other as their seeds do.
func (s Spec) Factory() Factory {
	if err := s.Validate(); err != nil {
		panic("kit: " + err.Error())
	}
	p := &params{spec: s.withDefaults()}
	p.base, p.cap, p.mult = float64(p.spec.Base), float64(p.spec.Cap), p.spec.Multiplier
	return p.policy
}

// policy makes the policy of device d. Factory returns it as a method
// value, so that the factory of every Spec runs this one function: sim
// recognises it by that, asks one of its policies for the spec
// (BuiltinSpec), and replays the strategy's arithmetic on compact
// per-device state instead of calling a policy per attempt.
func (p *params) policy(d Device) Policy {
	h := seedOf(p.spec.Seed, d)
	return &strategyPolicy{params: p, rng: newSource(h), seed: h, window: p.base, prev: p.base}
}

// params holds what every device of one spec shares.
type params struct {
	spec            Spec
	base, cap, mult float64 // nanoseconds, nanoseconds, factor
}

// strategyPolicy is one device's state under a built-in strategy.
type strategyPolicy struct {
	*params
	rng    rand.PCG
	seed   uint64  // the device's seed, which a reset seeds rng from again
	window float64 // the current window in nanoseconds, before the cap
	prev   float64 // the previous delay in nanoseconds (decorrelated)
}

// BuiltinSpec returns the spec, after defaults, that made the policy. It is
// not part of any exported interface: sim asks a policy of a Spec's factory
// for it, and must draw exactly what Next draws (see sim's builtin.go).
func (p *strategyPolicy) BuiltinSpec() Spec { return p.spec }

// Observe starts the policy over on a Success under [ResetOnSuccess], and
// ignores every other outcome.
func (p *strategyPolicy) Observe(o Outcome) {
	if o == Success && p.spec.Reset == ResetOnSuccess {
		p.rng, p.window, p.prev = newSource(p.seed), p.base, p.base
	}
}

func (p *strategyPolicy) Next() (time.Duration, error) {
	w := min(p.window, p.cap)
	if p.window < p.cap {
		p.window *= p.mult
	}
	var d float64
	switch p.spec.Strategy {
	case None:
		d = w
	case Full:
		d = p.uniform(0, w)
	case Equal:
		d = w/2 + p.uniform(0, w/2)
	case Decorrelated:
		d = min(p.cap, p.uniform(p.base, p.prev*p.mult))
		p.prev = d
	}
	return time.Duration(d), nil
}

// uniform returns a draw from [lo, hi).
func (p *strategyPolicy) uniform(lo, hi float64) float64 {
	u := float64(p.rng.Uint64()>>11) / (1 << 53)
	return lo + u*(hi-lo)
}
