package properties

import (
	"context"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// mostlyLockstep gives 97% of the devices, chosen by a hash of the id, the
// capped exponential window plus at most 1ms of jitter, and the other 3%
// full jitter: the minority spreads the fleet's CV above MinCV while the
// majority retries within a millisecond.
func mostlyLockstep() kit.Factory {
	return func(d kit.Device) kit.Policy {
		h := kit.HashID(d.ID)
		rng := rand.New(rand.NewPCG(h, 3))
		spread := h%100 < 3
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			w := window(n)
			n++
			if spread {
				return time.Duration(rng.Float64() * float64(w))
			}
			return min(testCap, w+time.Duration(rng.Float64()*float64(time.Millisecond)))
		})
	}
}

// clampedAfterJitter jitters within [base, base·2ⁿ] for retry n ≥ 1 and then clamps to the
// cap, as a library that applies its maximum after the jitter does: the
// window keeps doubling past the cap, so nearly every device waits exactly
// the cap.
func clampedAfterJitter() kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 4))
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			n++
			hi := float64(testBase) * float64(uint64(1)<<min(n, 62))
			v := float64(testBase) + rng.Float64()*(hi-float64(testBase))
			return time.Duration(min(v, float64(testCap)))
		})
	}
}

// tenPercent jitters the window by ±10%, the least jitter in common use.
func tenPercent(rng *rand.Rand, n int) time.Duration {
	return time.Duration(float64(window(n)) * (1 + 0.2*(rng.Float64()-0.5)))
}

var concentrationRuns = flag.Int("concentrationruns", 20, "runs per policy of TestConcentrationFalseFailures")

// TestConcentrationFails holds the two fleets the spread figure misses to
// the concentration rule: most devices retrying within a millisecond while
// a few spread the CV, and most devices clamped at the cap.
func TestConcentrationFails(t *testing.T) {
	tests := []struct {
		name   string
		f      kit.Factory
		cfg    Config
		fail   map[string]Cause // the checks that fail, with their cause
		pass   []string
		prefix map[string]string // the start of each failure's detail
	}{
		{"97% in lockstep", mostlyLockstep(), Config{Cap: testCap},
			map[string]Cause{NameSpread: SmallJitter, NameClusters: SmallJitter, NameCapPhase: SmallJitter},
			[]string{NameBounds, NameReproducibility},
			map[string]string{
				NameSpread:   "delay 3 of 974 of 1000 devices lies within 1.024ms of 400ms, in one window of 3.99ms (1% of the delay), CV 0.0974; want spread: fewer than 112 in one window",
				NameClusters: "the retries after delay 1 of 973 of 1000 devices land within 499.9µs of 100.5ms",
				NameCapPhase: "delay 4 of 974 of 1000 devices lies within 2.465ms of 798.5ms",
			}},
		{"clamped after the jitter, 12 delays", clampedAfterJitter(), Config{CapAttempts: 12},
			map[string]Cause{NameCapPhase: JitterLostAtCap},
			[]string{NameSpread, NameClusters, NameBounds},
			map[string]string{NameCapPhase: "delay 12 of 975 of 1000 devices is exactly 10s, the largest delay of any device there, CV 0.0852: a clamp holds them together; want spread at the later delays: fewer than 744 at one clamp"}},
		{"clamped after the jitter, 14 delays", clampedAfterJitter(), Config{CapAttempts: 14, Cap: testCap},
			map[string]Cause{NameCapPhase: JitterLostAtCap},
			[]string{NameSpread, NameClusters, NameBounds},
			map[string]string{NameCapPhase: "delay 14 of 994 of 1000 devices is exactly 10s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			logOutcome(t, out)
			byName := map[string]Result{}
			for _, r := range out.Results {
				byName[r.Name] = r
			}
			for name, cause := range tt.fail {
				r := byName[name]
				assert.Equal(t, verdict.Fail, r.Status, "%s: %s", name, r.Detail)
				assert.Equal(t, cause, r.Cause, "%s: cause", name)
				assert.Equal(t, unitFleet, r.Unit, "%s: unit", name)
				assert.Greater(t, r.Figure, 0.9, "%s: the share of the fleet in one window", name)
				assert.True(t, strings.HasPrefix(r.Detail, tt.prefix[name]), "%s: detail %q; want it to start %q", name, r.Detail, tt.prefix[name])
			}
			for _, name := range tt.pass {
				assert.Equal(t, verdict.Pass, byName[name].Status, "%s: %s", name, byName[name].Detail)
			}
		})
	}
}

// TestConcentrationMessage pins, word for word, what a failing test prints
// for a fleet clamped at the cap.
func TestConcentrationMessage(t *testing.T) {
	out := mustRun(t, context.Background(), clampedAfterJitter(), Config{CapAttempts: 12, IDs: serials(1000)})
	rec := &kittest.Recorder{TB: t}
	for _, r := range out.Results {
		if r.Name == NameCapPhase {
			report(rec, r, true, false)
		}
	}
	want := `cap-phase: delay 12 of 976 of 1000 devices is exactly 10s, the largest delay of any device there, CV 0.0952: a clamp holds them together; want spread at the later delays: fewer than 744 at one clamp (independent devices clamped with probability 0.667, the most decorrelated jitter's clamp holds, reach 744 with probability below 1e-07)
	"dev-100000": [182.5ms 348.1ms 184.7ms 416.2ms 1.169s 6.283s 3.311s 7.294s 10s 10s ... 2 more]
	"dev-100001": [114.8ms 130.9ms 279.9ms 451.5ms 418ms 4.616s 8.572s 10s 10s 10s ... 2 more]
	"dev-100002": [153ms 148.7ms 628.9ms 209.3ms 1.037s 6.082s 10s 10s 10s 10s ... 2 more]
	"dev-100003": [158.1ms 183.1ms 654.1ms 1.205s 3.135s 5.421s 542.5ms 10s 10s 10s ... 2 more]
	"dev-100004": [154.6ms 106.1ms 791.2ms 862.6ms 1.747s 4.734s 10s 10s 10s 10s ... 2 more]
	"dev-100005": [114.9ms 116.1ms 790.5ms 281.6ms 408.9ms 4.908s 4.673s 10s 10s 10s ... 2 more]
	"dev-100006": [173.3ms 371.2ms 221.7ms 578.4ms 2.312s 2.183s 10s 2.053s 10s 10s ... 2 more]
	"dev-100007": [188.7ms 309.2ms 606.8ms 1.006s 1.936s 1.85s 8.12s 10s 10s 10s ... 2 more]
	"dev-100008": [148.5ms 128.3ms 420ms 1.324s 1.839s 6.098s 2.758s 9.481s 10s 8.775s ... 2 more]
	"dev-100009": [120.6ms 340.7ms 108.4ms 602.3ms 1.674s 3.374s 10s 7.469s 10s 10s ... 2 more]
	... and 966 more devices with the same delay 12 (10s)
	replay: Config.Seed = 1
	what to change: Apply the jitter after the cap: cap the window, then draw the delay within it, so that devices at the cap still spread.
`
	assert.Equal(t, []string{want}, rec.Errors, "what report reports")
}

// TestConcentrationDecorrelatedClamp holds decorrelated jitter, which
// clamps its draws at the cap, below ClampShare: over the cap phase its
// share at the cap settles near 0.31 with base/cap = 0.01 and near 0.51
// with base/cap = 1/8.
func TestConcentrationDecorrelatedClamp(t *testing.T) {
	for _, text := range []string{"decorrelated", "decorrelated:base=15s,cap=2m", "decorrelated:base=1s,cap=300s"} {
		out := mustRun(t, context.Background(), spec(t, text), Config{})
		r := resultNamed(t, out, NameCapPhase)
		require.Equal(t, NameCapPhase, r.Name)
		assert.Equal(t, verdict.Pass, r.Status, "%s: %s", text, r.Detail)
		assert.Contains(t, r.Detail, "most at the largest delay", "%s: the clamp is what comes nearest to failing", text)
		t.Logf("%s: %s", text, r.Detail)
	}
}

// TestConcentrationFalseFailures runs the concentration rule on the
// policies that must pass over many populations drawn from different
// seeds: no run may fail it. Under the reference of ConcentrationWidth a
// failure is rarer than ConcentrationAlpha per attempt; each policy puts
// less in every window than the reference, so the busiest window of every
// run must stay below its critical count. The largest ratio of the two is
// logged, with the busiest window it came from.
func TestConcentrationFalseFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("many seeds: skipped under -short")
	}
	policies := []struct {
		name string
		f    kit.Factory
	}{
		{"full", spec(t, "full")},
		{"equal", spec(t, "equal")},
		{"decorrelated", spec(t, "decorrelated")},
		{"decorrelated base 15s cap 2m", spec(t, "decorrelated:base=15s,cap=2m")},
		{"±10% jitter", jittered(perDevice, tenPercent)},
		{"full rounded to ms", roundedMS(spec(t, "full"))},
	}
	seeds := rand.New(rand.NewPCG(2026, 12))
	for _, p := range policies {
		t.Run(p.name, func(t *testing.T) {
			failures := 0
			worst := map[string]crowd{}
			for range *concentrationRuns {
				seed := seeds.Uint64()
				r := newRunner(context.Background(), p.f, Config{Seed: seed})
				crowds := map[string]crowd{
					NameSpread:   r.busiest(r.clean, 0, r.cfg.Attempts),
					NameCapPhase: r.busiest(r.clean, r.cfg.Attempts, r.cfg.CapAttempts),
					NameClusters: r.busiestArrival(),
				}
				r.cancel()
				for name, c := range crowds {
					if c.fails() {
						failures++
						t.Errorf("seed %d: %s: %d of %d devices %s at attempt %d; want fewer than %d", seed, name, c.count, c.n, c.where(), c.attempt, c.critical)
					}
					if c.closeness() > worst[name].closeness() {
						worst[name] = c
					}
				}
			}
			for _, name := range []string{NameSpread, NameClusters, NameCapPhase} {
				c := worst[name]
				t.Logf("%-10s worst of %d runs: %d of %d devices %s (clamp %v), %.2f of the critical %d", name, *concentrationRuns, c.count, c.n, c.where(), c.clamp, c.closeness(), c.critical)
			}
			t.Logf("%d failures in %d runs", failures, *concentrationRuns)
		})
	}
}

// TestCounterexampleShared pins what the last line of a counterexample
// says the other devices share.
func TestCounterexampleShared(t *testing.T) {
	devs := []DeviceDelays{
		{ID: "a", Delays: []time.Duration{time.Second, 2 * time.Second, 10 * time.Second}},
		{ID: "b", Delays: []time.Duration{time.Second, 3 * time.Second, 10 * time.Second}},
	}
	for _, tt := range []struct {
		ce   Counterexample
		want string
	}{
		{Counterexample{Devices: devs, Others: 998}, "\t... and 998 more devices with the same delays\n"},
		{Counterexample{Attempt: 1, Devices: devs, Others: 998, SameSequence: true}, "\t... and 998 more devices with the same delays\n"},
		{Counterexample{Attempt: 3, Devices: devs, Others: 998}, "\t... and 998 more devices with the same delay 3 (10s)\n"},
		{Counterexample{Attempt: 2, Devices: devs, Others: 5, Window: 20 * time.Millisecond}, "\t... and 5 more devices with delay 2 in the same 20ms window\n"},
	} {
		got := tt.ce.String()
		assert.True(t, strings.HasSuffix(got, tt.want), "String() = %q; want it to end %q", got, tt.want)
	}
}

// TestConcentrationLargerFleetAndOtherSeed holds the fleet 97% in lockstep
// to spread at five times the population and at another seed.
func TestConcentrationLargerFleetAndOtherSeed(t *testing.T) {
	for _, cfg := range []Config{{Devices: 5000, Cap: testCap}, {Seed: 7, Cap: testCap}} {
		out := mustRun(t, context.Background(), mostlyLockstep(), cfg)
		r := resultNamed(t, out, NameSpread)
		require.Equal(t, NameSpread, r.Name)
		assert.Equal(t, verdict.Fail, r.Status, "devices %d, seed %d: %s", cfg.Devices, cfg.Seed, r.Detail)
		assert.Equal(t, unitFleet, r.Unit, "devices %d, seed %d: the figure is the share in one window", cfg.Devices, cfg.Seed)
		t.Log(r.Detail)
	}
}

func TestConcentrationThresholdsValidate(t *testing.T) {
	for _, tt := range []struct {
		th   Thresholds
		want string
	}{
		{Thresholds{ConcentrationWidth: 1}, "properties: ConcentrationWidth 1 is not between 0 and 1"},
		{Thresholds{ConcentrationWidth: -0.01}, "properties: ConcentrationWidth -0.01 is not between 0 and 1"},
		{Thresholds{ConcentrationWindow: -time.Second}, "properties: ConcentrationWindow -1s is negative"},
		{Thresholds{ConcentrationAlpha: 2}, "properties: ConcentrationAlpha 2 is not between 0 and 1"},
		{Thresholds{ClampShare: 1}, "properties: ClampShare 1 is not between 0 and 1"},
	} {
		err := Config{Thresholds: tt.th}.Validate()
		assert.EqualError(t, err, tt.want)
	}
}
