package kit

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestHashIDIsFNV1a(t *testing.T) {
	// Published FNV-1a 64-bit test vectors.
	tests := []struct {
		id   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, HashID(tt.id), "HashID(%q)", tt.id)
	}
}

func TestSplitmix64(t *testing.T) {
	// The first outputs of SplitMix64 seeded with 0 are splitmix64 of 0,
	// γ, 2γ, ... where γ is the golden-ratio increment.
	const gamma = 0x9e3779b97f4a7c15
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		assert.Equal(t, w, splitmix64(uint64(i)*gamma), "splitmix64(%d·γ)", i)
	}
}

// fnv1a is FNV-1a as its definition states it, independent of hash/fnv.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func TestSeedingIsAsDocumented(t *testing.T) {
	// doc.go: the generator of a device is PCG(h, splitmix64(h)), h the
	// FNV-1a hash of its id. Full jitter's n-th delay is then the n-th
	// 53-bit uniform draw of that generator times the window.
	spec := Spec{Strategy: Full, Base: time.Second, Cap: time.Hour}
	f := spec.Factory()
	for _, id := range append(deviceIDs(500), "", "a", "00:1B:44:11:3A:B7", "📟") {
		h := fnv1a(id)
		rng := rand.NewPCG(h, splitmix64(h))
		got, err := Delays(f(Device{ID: id}), 8)
		require.NoError(t, err)
		for n, d := range got {
			u := float64(rng.Uint64()>>11) / (1 << 53)
			want := time.Duration(u * float64(spec.Window(n)))
			require.Equal(t, want, d, "delays(%q)[%d]; want the delay from PCG(fnv1a, splitmix64(fnv1a))", id, n)
		}
	}
}

func TestSeedingGolden(t *testing.T) {
	// The first delays of two devices under each strategy, pinned so that a
	// change to the hash, the generator or a formula shows up here: the same
	// id must give the same delays in every release.
	var b strings.Builder
	for _, s := range Strategies() {
		spec := Spec{Strategy: s, Base: time.Second, Cap: 5 * time.Minute}
		for _, id := range []string{"dev-000001", "dev-000002"} {
			got, err := Delays(spec.Factory()(Device{ID: id}), 6)
			require.NoError(t, err)
			fmt.Fprintf(&b, "%s %s", spec, id)
			for _, d := range got {
				fmt.Fprintf(&b, " %d", d.Nanoseconds())
			}
			b.WriteString("\n")
		}
	}
	kittest.Golden(t, filepath.Join("testdata", "seeding.golden"), []byte(b.String()))
}

func TestSameIDSameSequence(t *testing.T) {
	boot := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	for _, s := range Strategies() {
		spec := Spec{Strategy: s, Base: time.Second, Cap: time.Minute}
		again, err := ParseSpec(spec.String())
		require.NoError(t, err)
		for _, id := range deviceIDs(100) {
			a, _ := Delays(spec.Factory()(Device{ID: id, Boot: boot}), 20)
			b, _ := Delays(again.Factory()(Device{ID: id, Boot: boot.Add(time.Hour)}), 20)
			assert.Equal(t, a, b, "%s: delays(%q) again; want the same sequence for the same id", spec, id)
		}
	}
}

func TestDifferentIDsDiffer(t *testing.T) {
	// Ids one character apart, as serial numbers are, draw different delays
	// at every one of the first attempts.
	pairs := [][2]string{
		{"dev-000001", "dev-000002"},
		{"dev-000010", "dev-000001"},
		{"a", "b"},
		{"", " "},
		{"dev-1", "dev-1 "},
		{"00:1B:44:11:3A:B7", "00:1B:44:11:3A:B8"},
		{"Dev-7", "dev-7"},
	}
	for _, s := range []Strategy{Full, Equal, Decorrelated} {
		f := Spec{Strategy: s, Base: time.Second, Cap: time.Minute}.Factory()
		for _, p := range pairs {
			a, _ := Delays(f(Device{ID: p[0]}), 5)
			b, _ := Delays(f(Device{ID: p[1]}), 5)
			for n := range a {
				assert.NotEqual(t, a[n], b[n], "%s: delays(%q)[%d] and delays(%q)[%d]; want different delays for different ids", s, p[0], n, p[1], n)
			}
		}
	}

	// Over 10,000 ids no two first delays coincide: the draws are 53-bit,
	// so a coincidence would mean two devices share a generator.
	f := Spec{Strategy: Full, Base: time.Hour, Cap: time.Hour}.Factory()
	seen := map[time.Duration]string{}
	for _, id := range deviceIDs(10_000) {
		d, _ := f(Device{ID: id}).Next()
		other, ok := seen[d]
		require.False(t, ok, "delays(%q)[0] = delays(%q)[0] = %v; want every device's own", id, other, d)
		seen[d] = id
	}
}

func TestSeedClockSharesTheBootSecond(t *testing.T) {
	f := Spec{Strategy: Full, Base: time.Second, Cap: time.Minute, Seed: SeedClock}.Factory()
	relay := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	want, _ := Delays(f(Device{ID: "dev-000000", Boot: relay}), 10)
	for i, id := range deviceIDs(200) {
		boot := relay.Add(time.Duration(i) * 4 * time.Millisecond) // all within the second
		got, _ := Delays(f(Device{ID: id, Boot: boot}), 10)
		assert.Equal(t, want, got, "seed=clock: delays(%q, boot %v); want the sequence of every device booted in that second", id, boot.Format(time.StampMilli))
	}
	later, _ := Delays(f(Device{ID: "dev-000000", Boot: relay.Add(time.Second)}), 10)
	assert.NotEqual(t, want, later, "seed=clock: a device booted a second later; want a different sequence")
}

func TestSeedConstantSharesEverything(t *testing.T) {
	for _, s := range []Strategy{Full, Equal, Decorrelated} {
		f := Spec{Strategy: s, Base: time.Second, Cap: time.Minute, Seed: SeedConstant}.Factory()
		want, _ := Delays(f(Device{ID: "dev-000000"}), 10)
		for i, id := range deviceIDs(200) {
			boot := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			got, _ := Delays(f(Device{ID: id, Boot: boot}), 10)
			assert.Equal(t, want, got, "%s seed=constant: delays(%q); want the sequence of every device", s, id)
		}
	}
}
