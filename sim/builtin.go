package sim

import (
	"math/bits"
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
	reset           bool    // a device starts over on a success (kit.ResetOnSuccess)
	base, cap, mult float64 // nanoseconds, nanoseconds, factor, as kit's params
	dev             []devState
}

// devState is one device's policy: kit's strategyPolicy without its
// pointer to the shared parameters. Its generator is math/rand/v2's PCG,
// written out (seed, step and output) so that a draw inlines.
type devState struct {
	hi, lo uint64 // the PCG's state, as rand.PCG holds it
	// x is the window in nanoseconds, before the cap; under decorrelated
	// jitter, which has no use for the window, the previous delay.
	x float64
}

func newBuiltin(s kit.Spec) *builtin {
	b := &builtin{seed: s.Seed, reset: s.Reset == kit.ResetOnSuccess, base: float64(s.Base), cap: float64(s.Cap), mult: s.Multiplier}
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

// init sets st to the policy the spec's factory makes for a device whose
// generator kit seeds with h (see engine.builtinPolicy): rand.NewPCG(h,
// splitmix64(h)).
func (b *builtin) init(st *devState, h uint64) {
	st.hi, st.lo = h, splitmix64(h)
	st.x = b.base
}

// FNV-1a, 64 bits, as kit.HashID.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashID is kit.HashID of a byte slice.
func hashID(id []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range id {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// serialHashes returns kit.HashID of the ids of a serial range (serialID)
// one after the other, without writing or hashing each id whole: the ids
// of ten devices in a row differ only in their last digit, so the hash of
// the rest is kept.
type serialHashes struct {
	prefix string
	next   int    // the device whose id id holds, if valid
	valid  bool   // id holds device next's id, and head its hash but the last byte
	id     []byte //
	head   uint64
	last   uint64 // the hash of device next−1's id, if valid
}

// hash returns kit.HashID(serialID(prefix, i)).
func (s *serialHashes) hash(i int) uint64 {
	if s.valid && i == s.next-1 {
		return s.last
	}
	if !s.valid || i != s.next {
		s.id = appendID(s.id[:0], s.prefix, i)
		s.head = hashID(s.id[:len(s.id)-1])
		s.next, s.valid = i, true
	}
	last := &s.id[len(s.id)-1]
	h := (s.head ^ uint64(*last)) * fnvPrime
	s.next, s.last = s.next+1, h
	if *last < '9' {
		*last++
	} else {
		s.valid = false
	}
	return h
}

// next returns the device's next delay in nanoseconds, as kit's
// strategyPolicy.Next does, with the same expressions (uniform(lo, hi) is
// lo + u*(hi-lo)), so that they round alike. Delays are at most the cap,
// which builtinSpec makes sure a time.Duration holds.
//
// builtinSecond inlines the same code; change both together.
func (b *builtin) next(st *devState) int64 {
	x := st.x
	w := min(x, b.cap)
	if b.strategy == stratNone {
		if x < b.cap {
			st.x = x * b.mult
		}
		return int64(w)
	}
	u := st.unit()
	var d float64
	switch b.strategy {
	case stratFull:
		d = between(u, 0, w)
	case stratEqual:
		d = w/2 + between(u, 0, w/2)
	default:
		// Decorrelated: x is the previous delay; the window, which
		// it does not use, is not kept.
		d = min(b.cap, between(u, b.base, x*b.mult))
		st.x = d
		return int64(d)
	}
	if x < b.cap {
		st.x = x * b.mult
	}
	return int64(d)
}

// between returns the draw from [lo, hi) that kit's strategyPolicy.uniform
// makes of u.
func between(u, lo, hi float64) float64 { return lo + u*(hi-lo) }

// unit returns a uniform draw from [0, 1), as strategyPolicy.uniform makes
// it of rand.PCG's Uint64: the generator's step and its DXSM output, as
// math/rand/v2 computes them.
func (st *devState) unit() float64 {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	hi, lo := bits.Mul64(st.lo, mulLo)
	hi += st.hi*mulLo + st.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	st.lo, st.hi = lo, hi
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return float64(hi>>11) / (1 << 53)
}

// readAheadBlock is how many arrivals builtinSecond reads the state of
// before it processes them.
const readAheadBlock = 32

// builtinSecond processes the arrivals of one second in which the per-second
// server is down all second or up all second, under a Spec's policies and
// windows of whole seconds, as bucket's two inline cases do through
// arrive, serve and retry: the same steps on the same events in the same
// order, with the policy's arithmetic inlined and the second's counts
// kept at hand, few enough to stay in registers. An arrival is served
// when serveAll, or when serveSome and it is no later than last.
func (e *engine) builtinSecond(start, end int64, chunks [][]uint64, serveAll, serveSome bool, last uint64) {
	b, att, states, cal := e.bi, e.att, e.bi.dev, e.cal
	strategy, base, limit, mult := b.strategy, b.base, b.cap, b.mult
	maxAttempts := uint32(e.s.MaxAttempts) // at most a billion
	horizon := e.horizon
	success, lastServed := e.success, e.last
	// Every arrival of the second falls in one window; those of devices
	// that had not arrived before (firsts) are not retries.
	var attempts, firsts, limited, pending int
	var ahead uint64
	for _, ch := range chunks {
		for i, ev := range ch {
			if i%readAheadBlock == 0 {
				// The devices of a second arrive in no order of theirs,
				// so each read of their state misses the cache; read
				// one after the other, a block's misses overlap, where
				// between the steps of each arrival they would not.
				for _, ev := range ch[i:min(len(ch), i+readAheadBlock)] {
					ahead += uint64(att[uint32(ev)]) ^ states[uint32(ev)].lo
				}
			}
			t, dev := start+int64(ev>>32), uint32(ev)
			a0 := att[dev]
			if a0 == 0 {
				firsts++
			}
			a := a0 + 1
			if serveAll || serveSome && ev <= last {
				att[dev] = a
				attempts++
				success = append(success, t)
				lastServed = max(lastServed, t)
				continue
			}
			st := &states[dev]
			for a < maxAttempts {
				// b.next(st), inlined.
				x := st.x
				w := min(x, limit)
				var d int64
				if strategy == stratNone {
					if x < limit {
						st.x = x * mult
					}
					d = int64(w)
				} else {
					u := st.unit()
					var f float64
					switch strategy {
					case stratFull:
						f = between(u, 0, w)
					case stratEqual:
						f = w/2 + between(u, 0, w/2)
					default:
						f = min(limit, between(u, base, x*mult))
						st.x = f
					}
					if x < limit && strategy != stratDecorrelated {
						st.x = x * mult
					}
					d = int64(f)
				}
				if d >= horizon-t {
					pending++
					break
				}
				if t += d; t >= end {
					if sec := t / nsPerSec; !cal.tryAdd(sec, uint64(t-sec*nsPerSec)<<32|uint64(dev)) {
						cal.add(t, dev)
					}
					break
				}
				a++ // rejected within the second
			}
			if a >= maxAttempts {
				limited++
			}
			attempts += int(a - a0)
			att[dev] = a
		}
	}
	served := len(success) - len(e.success)
	e.readAhead += ahead
	e.success, e.last, e.served = success, lastServed, e.served+served
	e.attempts += int64(attempts)
	w := start / e.win
	e.hist[w] += int64(attempts)
	e.rhist[w] += int64(attempts - firsts)
	e.secRetries += int64(attempts - firsts)
	e.limited += limited
	e.gaveUp += limited
	e.pending += pending
}
