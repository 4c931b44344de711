package kit

import "math/rand/v2"

// constantSeed is the seed every device shares under [SeedConstant].
const constantSeed = 1

// seedOf returns the seed of device d under seed source s.
func seedOf(s Seed, d Device) uint64 {
	switch s {
	case SeedClock:
		return uint64(d.Boot.Unix())
	case SeedConstant:
		return constantSeed
	default:
		return HashID(d.ID)
	}
}

// newSource returns the generator of the device whose seed is h:
// PCG(h, splitmix64(h)).
func newSource(h uint64) rand.PCG { return *rand.NewPCG(h, splitmix64(h)) }

// HashID returns the 64-bit FNV-1a hash of id, the stable per-device value
// that seeds each device's generator under [SeedDevice]. Use it, or a hash
// like it, for any per-device offset: unlike a language's built-in string
// hash it is not salted per process.
func HashID(id string) uint64 {
	// FNV-1a, written out so that hashing a million ids allocates nothing.
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= prime64
	}
	return h
}

// splitmix64 is the output function of SplitMix64: it spreads the bits of x
// so that the two words of the PCG state differ.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
