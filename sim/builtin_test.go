package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
)

// general hides f from the engine's recognition of kit.Spec's factories,
// so that a replay calls its policies through their interface.
func general(f kit.Factory) kit.Factory {
	return func(d kit.Device) kit.Policy { return f(d) }
}

// drawSpec draws a valid kit.Spec over its whole range: every strategy,
// seed source and reset rule, bases from a nanosecond to a minute, caps from the base to
// a day (and sometimes the zero default), multipliers from 1 to 1e6.
func drawSpec(t *rapid.T) kit.Spec {
	base := time.Duration(rapid.SampledFrom([]int64{1, 1e3, 1e6, 1e8, 1e9, 6e10}).Draw(t, "base"))
	s := kit.Spec{
		Strategy: rapid.SampledFrom(kit.Strategies()).Draw(t, "strategy"),
		Base:     base,
		Cap:      base * time.Duration(rapid.SampledFrom([]int64{1, 3, 100, 1e4}).Draw(t, "capTimesBase")),
		Seed:     rapid.SampledFrom([]kit.Seed{"", kit.SeedDevice, kit.SeedClock, kit.SeedConstant}).Draw(t, "seed"),
	}
	s.Cap = min(s.Cap, 24*time.Hour)
	if rapid.Bool().Draw(t, "defaultCap") && s.Base <= kit.DefaultCap {
		s.Cap = 0
	}
	switch rapid.IntRange(0, 3).Draw(t, "multiplierKind") {
	case 1:
		s.Multiplier = rapid.Float64Range(1, 4).Draw(t, "multiplier")
	case 2:
		s.Multiplier = rapid.SampledFrom([]float64{1, 1.5, 2, 3, 1e6}).Draw(t, "multiplier")
	}
	s.Reset = rapid.SampledFrom([]kit.ResetRule{"", kit.ResetNever, kit.ResetOnSuccess}).Draw(t, "reset")
	return s
}

// TestBuiltinRecognised checks which factories the engine replays on
// compact state: those kit.Spec makes, whatever the spec, and no other,
// wrapped specs and traces included; nor a spec whose cap a delay
// converted from float64 cannot reach safely.
func TestBuiltinRecognised(t *testing.T) {
	for _, st := range kit.Strategies() {
		spec := kit.Spec{Strategy: st, Base: time.Second, Cap: time.Minute, Seed: kit.SeedClock}
		got, ok := builtinSpec(spec.Factory())
		if assert.True(t, ok, "builtinSpec(%s.Factory())", spec) {
			assert.Equal(t, spec.String(), got.String(), "the spec recognised")
		}
	}
	f := kit.Spec{Strategy: kit.Full}.Factory()
	_, ok := builtinSpec(general(f))
	assert.False(t, ok, "a wrapped spec's factory is the caller's own")
	tr, err := kit.ReadTrace(strings.NewReader("device,attempt,delay_s\na,1,0.5\n"))
	require.NoError(t, err)
	_, ok = builtinSpec(tr.Factory())
	assert.False(t, ok, "a trace's factory")
	_, ok = builtinSpec(kit.Spec{Strategy: kit.None, Cap: math.MaxInt64}.Factory())
	assert.False(t, ok, "a cap of MaxInt64, 2⁶³ as a float64")
}

// TestBuiltinMatchesPolicies checks that the compact state draws exactly
// the delays of the policies kit.Spec makes, device by device: the same
// generator, seeded the same way, and the same arithmetic.
func TestBuiltinMatchesPolicies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := drawSpec(t)
		f := spec.Factory()
		got, ok := builtinSpec(f)
		if !ok {
			t.Fatalf("builtinSpec(%s.Factory()) not recognised", spec)
		}
		b := newBuiltin(got)
		d := kit.Device{
			ID:   rapid.StringN(0, 30, -1).Draw(t, "id"),
			Boot: epoch.Add(time.Duration(rapid.Int64Range(-1e6, 1e6).Draw(t, "bootS")) * time.Second),
		}
		// As engine.builtinPolicy seeds it.
		h := map[kit.Seed]uint64{kit.SeedClock: uint64(d.Boot.Unix()), kit.SeedConstant: 1, kit.SeedDevice: hashID([]byte(d.ID))}[b.seed]
		var st devState
		b.init(&st, h)
		want, err := kit.Delays(f(d), 60)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := time.Duration(b.next(&st)); got != w {
				t.Fatalf("%s: device %q: delays[%d] = %v (%d ns) from the compact state; want %v (%d ns) from the policy", spec, d.ID, i, got, int64(got), w, int64(w))
			}
		}
	})
}

// TestSerialHashes checks the hashes of serial ids, taken in order, from
// anywhere, each twice, and across the carries of their digits, against
// kit.HashID.
func TestSerialHashes(t *testing.T) {
	h := serialHashes{prefix: devicePrefix(7)}
	for _, i := range []int{0, 1, 2, 3, 9, 10, 11, 99, 100, 5, 6, 9_999_998, 9_999_999, 10_000_000, 10_000_001, 123} {
		id := serialID(h.prefix, i)
		if got, want := h.hash(i), kit.HashID(id); got != want {
			t.Errorf("hash(%d) = %#x; want kit.HashID(%q) = %#x", i, got, id, want)
		}
	}
	for i := range 2000 {
		id := serialID(h.prefix, i)
		if got, want := h.hash(i), kit.HashID(id); got != want {
			t.Fatalf("in order: hash(%d) = %#x; want kit.HashID(%q) = %#x", i, got, id, want)
		}
		// A device's id hashed again, as its seed and its timer's offset
		// both are, hashes the same.
		if got, want := h.hash(i), kit.HashID(id); got != want {
			t.Fatalf("again: hash(%d) = %#x; want kit.HashID(%q) = %#x", i, got, id, want)
		}
	}
}

// TestBuiltinReplayMatchesGeneral replays drawn scenarios of every kind and
// server under drawn specs twice, once on the engine's compact state and
// once through the policies' interface (the factory wrapped so that it is
// not recognised), and requires identical results: every figure of every
// run, the histograms and the summary.
func TestBuiltinReplayMatchesGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := drawSpec(t)
		s := Scenario{
			Kind:        rapid.SampledFrom(fleetKinds).Draw(t, "kind"),
			Server:      rapid.SampledFrom(Servers()).Draw(t, "server"),
			Clients:     rapid.SampledFrom([]int{1, 7, 300, 2500}).Draw(t, "clients"),
			Down:        time.Duration(rapid.SampledFrom([]int64{0, 1, 5e8, 2e9, 3e9, 25e8}).Draw(t, "down")),
			StartSpread: time.Duration(rapid.SampledFrom([]int64{0, 1, 1e7, 2e9}).Draw(t, "startSpread")),
			Window:      rapid.SampledFrom([]time.Duration{0, 20 * time.Millisecond, time.Second, 2500 * time.Millisecond}).Draw(t, "window"),
			Horizon:     rapid.SampledFrom([]time.Duration{0, 30 * time.Second, 10 * time.Minute}).Draw(t, "horizon"),
			Period:      rapid.SampledFrom([]time.Duration{0, 10 * time.Second}).Draw(t, "period"),
			MaxAttempts: rapid.SampledFrom([]int{0, 1, 3, 40}).Draw(t, "maxAttempts"),
		}
		if s.MaxAttempts == 0 && s.Clients > 7 {
			// The default, 10,000 attempts a device, only for the smallest
			// fleets, so that a case takes at most seconds under -race.
			s.MaxAttempts = 40
		}
		s.AcceptRate = float64(max(s.Clients, 10)) / rapid.SampledFrom([]float64{1, 8, 100}).Draw(t, "clientsPerAccepted")
		if rapid.Bool().Draw(t, "ids") {
			s.IDs = traceIDs(s.Clients)
		}
		cfg := Config{Runs: rapid.IntRange(1, 3).Draw(t, "runs"), Seed: rapid.Uint64().Draw(t, "seed"), Workers: 1}
		f := spec.Factory()
		fast, ferr := Replay(context.Background(), f, s, cfg)
		slow, serr := Replay(context.Background(), general(f), s, cfg)
		require.Equal(t, fmt.Sprint(serr), fmt.Sprint(ferr), "Replay(%s, %+v): the error on compact state against the policies'", spec, s)
		for i := range min(len(fast.Runs), len(slow.Runs)) {
			require.Equal(t, slow.Runs[i], fast.Runs[i], "Replay(%s, %+v): run %d on compact state against the policies'", spec, s, i)
		}
		require.Equal(t, slow, fast, "Replay(%s, %+v): the result on compact state against the policies'", spec, s)
	})
}
