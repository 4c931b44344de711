package properties

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// An idShape is one way real fleets name their devices.
type idShape int

// The shapes of device ids a population is drawn from.
const (
	shapeSerial     idShape = iota // dev-000017, dev-000018, ...
	shapeMAC                       // 02:1a:7f:00:00:11, one address after another
	shapeUUID                      // random version-4 UUIDs
	shapeLongPrefix                // eu-west-1/site-0042/rack-07/gateway-0001, ...
	shapeOneApart                  // ids of one length that differ in one character
	shapeShort                     // one to three characters
	numShapes
)

var shapeNames = [numShapes]string{"sequential serials", "MAC addresses", "UUIDs", "long shared prefixes", "ids one character apart", "very short ids"}

func (s idShape) String() string { return shapeNames[s] }

// shortAlphabet is what very short ids and one-apart ids are made of.
const shortAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// maxShort is how many distinct very short ids there are: 62 + 62² + 62³.
const maxShort = 62 + 62*62 + 62*62*62

// shapeIDs returns n distinct ids of one shape. start is where sequential
// shapes begin; seed draws the random parts. It panics if n exceeds what
// the shape can hold distinct (maxShort very short ids).
func shapeIDs(shape idShape, n, start int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0x6a6974746572))
	ids := make([]string, 0, n)
	switch shape {
	case shapeSerial:
		for i := range n {
			ids = append(ids, fmt.Sprintf("dev-%06d", start+i))
		}
	case shapeMAC:
		for i := range n {
			v := start + i
			ids = append(ids, fmt.Sprintf("02:1a:7f:%02x:%02x:%02x", v>>16&0xff, v>>8&0xff, v&0xff))
		}
	case shapeUUID:
		for range n {
			hi, lo := rng.Uint64(), rng.Uint64()
			hi = hi&^0xf000 | 0x4000     // version 4
			lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
			ids = append(ids, fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff))
		}
	case shapeLongPrefix:
		prefix := fmt.Sprintf("eu-west-1/site-%04d/rack-%02d/gateway-", start%10000, start%97)
		for i := range n {
			ids = append(ids, fmt.Sprintf("%s%04d", prefix, i))
		}
	case shapeOneApart:
		base := []byte("a7Kq2ZxP9mWc")
		seen := map[string]bool{string(base): true}
		ids = append(ids, string(base))
		for len(ids) < n {
			// Each id differs in one character from one drawn before it.
			b := []byte(ids[rng.IntN(len(ids))])
			b[rng.IntN(len(b))] = shortAlphabet[rng.IntN(len(shortAlphabet))]
			if !seen[string(b)] {
				seen[string(b)] = true
				ids = append(ids, string(b))
			}
		}
	case shapeShort:
		if n > maxShort {
			panic("properties: too many very short ids")
		}
		for i := range n {
			var b strings.Builder
			v := (start + i) % maxShort
			width := 1
			for lim := 62; v >= lim; lim *= 62 {
				v -= lim
				width++
			}
			for range width {
				b.WriteByte(shortAlphabet[v%62])
				v /= 62
			}
			ids = append(ids, b.String())
		}
	default:
		panic(fmt.Sprintf("properties: unknown id shape %d", shape))
	}
	return ids
}

// population returns n distinct device ids drawn from seed: an equal share
// of each shape, the remainder as serials.
func population(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 0x706f70))
	per := n / int(numShapes)
	seen := make(map[string]bool, n)
	ids := make([]string, 0, n)
	add := func(shape idShape, k int) {
		for _, id := range shapeIDs(shape, k, rng.IntN(100000), rng.Uint64()) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	for s := shapeMAC; s < numShapes; s++ {
		if s == shapeShort {
			add(s, min(per, maxShort))
			continue
		}
		add(s, per)
	}
	// Serials last, enough of them to make up n whatever collided.
	start := 100000 + rng.IntN(800000)
	for i := 0; len(ids) < n; i++ {
		id := fmt.Sprintf("dev-%06d", start+i)
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}
