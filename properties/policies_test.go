package properties

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// The test policies below each have one bug class the checks exist to
// catch, or none. Their windows are those of kit's defaults: base 100ms,
// doubling, cap 10s.

const (
	testBase = 100 * time.Millisecond
	testCap  = 10 * time.Second
)

// window returns the backoff window of retry n, counting from 0.
func window(n int) time.Duration {
	w := testBase
	for range n {
		if w *= 2; w >= testCap {
			return testCap
		}
	}
	return w
}

// jittered returns the factory whose device draws delay(rng, n) for retry n
// from a generator seeded with seed(device).
func jittered(seed func(kit.Device) uint64, delay func(rng *rand.Rand, n int) time.Duration) kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(seed(d), 0x7465737420))
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			v := delay(rng, n)
			n++
			return v
		})
	}
}

func perDevice(d kit.Device) uint64 { return kit.HashID(d.ID) }

func fullJitter(rng *rand.Rand, n int) time.Duration {
	return time.Duration(rng.Float64() * float64(window(n)))
}

// byteSum seeds from the sum of the id's bytes: ids that are anagrams of
// each other, such as dev-000017 and dev-000071, draw the same delays.
func byteSum(d kit.Device) uint64 {
	var s uint64
	for _, b := range []byte(d.ID) {
		s += uint64(b)
	}
	return s
}

// prefix seeds from the first eight bytes of the id.
func prefix(d kit.Device) uint64 { return kit.HashID(d.ID[:min(8, len(d.ID))]) }

// lastChar seeds from the last character of the id.
func lastChar(d kit.Device) uint64 { return uint64(d.ID[len(d.ID)-1]) }

// onePercent jitters the window by ±1%.
func onePercent(rng *rand.Rand, n int) time.Duration {
	return time.Duration(float64(window(n)) * (1 + 0.02*(rng.Float64()-0.5)))
}

// vanishingAtCap jitters the window fully until it reaches the cap, then
// waits exactly the cap, as a cap applied after the jitter does.
func vanishingAtCap(rng *rand.Rand, n int) time.Duration {
	if w := time.Duration(float64(testBase) * math.Pow(2, float64(n))); w >= testCap {
		return testCap
	}
	return fullJitter(rng, n)
}

// negligibleJitter adds U(0, 100ms) to 100ms·2ⁿ, uncapped, and gives up
// after nine delays.
func negligibleJitter() kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 1))
		var ds []time.Duration
		for n := range 9 {
			ds = append(ds, testBase<<n+time.Duration(rng.Float64()*float64(testBase)))
		}
		return kit.FromSlice(ds)
	}
}

// roundedMS rounds the delays of f to whole milliseconds, as devices that
// store them so do.
func roundedMS(f kit.Factory) kit.Factory {
	return func(d kit.Device) kit.Policy {
		p := f(d)
		return kittest.PolicyFunc(func() (time.Duration, error) {
			v, err := p.Next()
			return v.Round(time.Millisecond), err
		})
	}
}

// sharedGenerator draws full jitter for every device from one generator,
// properly seeded once: the fleet spreads, but no device can be replayed
// from its id.
func sharedGenerator() kit.Factory {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(42, 54))
	return func(kit.Device) kit.Policy {
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			v := fullJitter(rng, n)
			n++
			return v
		})
	}
}

// nowSeeded re-seeds from the wall clock's nanoseconds on every call, as
// go-retryablehttp's LinearJitterBackoff does.
func nowSeeded() kit.Factory {
	return func(kit.Device) kit.Policy {
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
			v := fullJitter(rng, n)
			n++
			return v
		})
	}
}

// realignedRetries jitters the first delay and then waits whatever brings
// the device to a fixed instant, 2s after the failure: every sequence is
// different, but every second retry lands together.
func realignedRetries() kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 2))
		first := time.Duration(rng.Float64() * float64(time.Second))
		return kit.FromSlice([]time.Duration{first, 2*time.Second - first, time.Duration((1 + rng.Float64()) * float64(2*time.Second))})
	}
}

// faulty returns the full-jitter factory whose device bad, at attempt, does
// what fault does instead of answering.
func faulty(bad string, attempt int, fault func() (time.Duration, error)) kit.Factory {
	full := jittered(perDevice, fullJitter)
	return func(d kit.Device) kit.Policy {
		p := full(d)
		if d.ID != bad {
			return p
		}
		n := 0
		return kittest.PolicyFunc(func() (time.Duration, error) {
			if n++; n == attempt {
				return fault()
			}
			return p.Next()
		})
	}
}

// overCap adds a second to every delay of full jitter: at the cap, delays
// exceed it.
func overCap() kit.Factory {
	full := jittered(perDevice, fullJitter)
	return func(d kit.Device) kit.Policy {
		p := full(d)
		return kittest.PolicyFunc(func() (time.Duration, error) {
			v, err := p.Next()
			return v + time.Second, err
		})
	}
}

// errReset is a source failure, as an external program that stopped
// answering gives.
var errReset = errors.New("read |0: connection reset by peer")

// unixSecondsSeeded seeds each device once from the wall clock's second
// when its policy is made, as a device seeding at boot from time.Now does.
func unixSecondsSeeded() kit.Factory {
	return func(kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(uint64(time.Now().Unix()), 0))
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			v := fullJitter(rng, n)
			n++
			return v
		})
	}
}
