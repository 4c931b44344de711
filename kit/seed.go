package kit

import (
	"hash/fnv"
	"math/rand/v2"
)

// constantSeed is the seed every device shares under [SeedConstant].
const constantSeed = 1

// newSource returns the generator of device d under seed source s.
func newSource(s Seed, d Device) rand.PCG {
	var h uint64
	switch s {
	case SeedClock:
		h = uint64(d.Boot.Unix())
	case SeedConstant:
		h = constantSeed
	default:
		h = HashID(d.ID)
	}
	return *rand.NewPCG(h, splitmix64(h))
}

// HashID returns the 64-bit FNV-1a hash of id, the stable per-device value
// that seeds each device's generator under [SeedDevice]. Use it, or a hash
// like it, for any per-device offset: unlike a language's built-in string
// hash it is not salted per process.
func HashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// splitmix64 is the output function of SplitMix64: it spreads the bits of x
// so that the two words of the PCG state differ.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
