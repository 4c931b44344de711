package sim

import (
	"math/rand/v2"
	"reflect"

	"github.com/jitterkit/jitterkit/kit"
)

// The policies of a kit.Spec's factory are the same arithmetic on a few
// numbers per device: a PCG generator, the current window (or, under
// decorrelated jitter, the previous delay). A replay of a million devices
// that calls each device's policy through its interface spends most of an
// attempt waiting for the policy's memory, scattered over the heap; so when
// the factory is a Spec's, the engine keeps those numbers itself, in one
// array indexed by device, and draws each delay inline. It draws exactly
// what the policy would: the same generator, seeded the same way
// (kit/seed.go), the same floating-point expressions in the same order
// (kit/strategy.go's Next); TestBuiltinMatchesPolicies holds the two
// together.

// specFactory is the code of every kit.Spec's factory: Spec.Factory
// returns a method value of one unexported method, so every factory it
// makes runs the same function, and no other factory does.
var specFactory = reflect.ValueOf(kit.Spec{Strategy: kit.None}.Factory()).Pointer()

// A builtinPolicy is a policy a Spec's factory made.
type builtinPolicy interface {
	kit.Policy
	BuiltinSpec() kit.Spec
}

// builtinSpec returns the spec whose factory f is, after defaults, and
// false when f is any other factory, or a spec whose largest delay a
// time.Duration cannot hold (its policies would fail, and the general path
// reports which device failed first).
func builtinSpec(f kit.Factory) (kit.Spec, bool) {
	if reflect.ValueOf(f).Pointer() != specFactory {
		return kit.Spec{}, false
	}
	p, ok := f(kit.Device{ID: "probe", Boot: epoch}).(builtinPolicy)
	if !ok {
		return kit.Spec{}, false
	}
	s := p.BuiltinSpec()
	if float64(s.Cap) >= 1<<63 {
		return kit.Spec{}, false
	}
	return s, true
}

// The strategies, as the engine switches on them.
const (
	stratNone = iota
	stratFull
	stratEqual
	stratDecorrelated
)

// A builtin holds the parameters of a Spec and the state of every device
// of a run under it.
type builtin struct {
	strategy        int
	seed            kit.Seed
	base, cap, mult float64 // nanoseconds, nanoseconds, factor, as kit's params
	dev             []devState
}

// devState is one device's policy: kit's strategyPolicy without its
// pointer to the shared parameters.
type devState struct {
	rng rand.PCG
	// x is the window in nanoseconds, before the cap; under decorrelated
	// jitter, which has no use for the window, the previous delay.
	x float64
}

func newBuiltin(s kit.Spec) *builtin {
	b := &builtin{seed: s.Seed, base: float64(s.Base), cap: float64(s.Cap), mult: s.Multiplier}
	switch s.Strategy {
	case kit.None:
		b.strategy = stratNone
	case kit.Full:
		b.strategy = stratFull
	case kit.Equal:
		b.strategy = stratEqual
	case kit.Decorrelated:
		b.strategy = stratDecorrelated
	default:
		panic("sim: unknown built-in strategy " + string(s.Strategy))
	}
	return b
}

// init sets st to the policy the spec's factory makes for the device whose
// id is id (or, when id is nil, idString), booted at boot (Unix seconds):
// kit's newSource, written out so that no id is allocated.
func (b *builtin) init(st *devState, id []byte, idString string, boot int64) {
	var h uint64
	switch b.seed {
	case kit.SeedClock:
		h = uint64(boot)
	case kit.SeedConstant:
		h = 1 // kit's constantSeed
	default:
		if id != nil {
			h = hashID(id)
		} else {
			h = kit.HashID(idString)
		}
	}
	st.rng.Seed(h, splitmix64(h))
	st.x = b.base
}

// hashID is kit.HashID of a byte slice: FNV-1a, 64 bits.
func hashID(id []byte) uint64 {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for _, c := range id {
		h ^= uint64(c)
		h *= prime64
	}
	return h
}

// next returns the device's next delay in nanoseconds, as kit's
// strategyPolicy.Next does. Delays are at most the cap, which builtinSpec
// makes sure a time.Duration holds.
func (b *builtin) next(st *devState) int64 {
	w := min(st.x, b.cap)
	var d float64
	switch b.strategy {
	case stratNone:
		if st.x < b.cap {
			st.x *= b.mult
		}
		d = w
	case stratFull:
		if st.x < b.cap {
			st.x *= b.mult
		}
		d = uniform(&st.rng, 0, w)
	case stratEqual:
		if st.x < b.cap {
			st.x *= b.mult
		}
		d = w/2 + uniform(&st.rng, 0, w/2)
	default:
		d = min(b.cap, uniform(&st.rng, b.base, st.x*b.mult))
		st.x = d
	}
	return int64(d)
}

// uniform returns a draw from [lo, hi), as kit's strategyPolicy.uniform.
func uniform(rng *rand.PCG, lo, hi float64) float64 {
	u := float64(rng.Uint64()>>11) / (1 << 53)
	return lo + u*(hi-lo)
}
