package gate_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// jittered returns a policy of the caller's, seeded per device, whose n-th
// delay (from 0) is delay(rng, window) for the window 100ms·2ⁿ capped at
// 10s.
func jittered(delay func(rng *rand.Rand, window time.Duration) time.Duration) kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 1))
		w := 100 * time.Millisecond
		return kittest.PolicyFunc(func() (time.Duration, error) {
			v := delay(rng, w)
			w = min(2*w, 10*time.Second)
			return v, nil
		})
	}
}

// TestFirstFixPasses gates six failing policies, applies the first change
// the gate suggests for each, and gates the changed policy: it passes.
func TestFirstFixPasses(t *testing.T) {
	long := "decorrelated:base=15s,cap=5m"
	tests := []struct {
		name string
		p    gate.Policy
	}{
		{"a spec that storms", gate.SpecPolicy(spec(t, "full"))},
		{"no jitter", gate.SpecPolicy(spec(t, "none:base=1s,cap=30s"))},
		{"seeded from the clock", gate.SpecPolicy(spec(t, long+",seed=clock"))},
		{"one constant seed", gate.SpecPolicy(spec(t, long+",seed=constant"))},
		{"jitter lost at the cap", gate.GoPolicy("capped after jitter", jittered(func(rng *rand.Rand, w time.Duration) time.Duration {
			if w >= 10*time.Second {
				return 10 * time.Second
			}
			return time.Duration(rng.Float64() * float64(w))
		}))},
		{"±1% jitter", gate.GoPolicy("one percent", jittered(func(rng *rand.Rand, w time.Duration) time.Duration {
			return time.Duration(float64(w) * (0.99 + 0.02*rng.Float64()))
		}))},
	}
	cfg := gate.Config{Checks: properties.Config{Cap: 5 * time.Minute}, Replay: sim.Config{Runs: 5}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := gate.Run(context.Background(), tt.p, cfg)
			require.NoError(t, err)
			require.Equal(t, verdict.Fail, rep.Verdict)
			require.NotEmpty(t, rep.Fixes, "a failing policy gets a fix")
			require.NotEmpty(t, rep.Advice)
			fix := rep.Fixes[0]
			if tt.p.Spec != nil {
				assert.Contains(t, strings.ToLower(rep.Advice[0]), strings.ToLower(fix.Change), "the first advice is the first fix")
			} else {
				// A policy of the user's own: what to change in its code
				// first, then the built-in that does it, measured.
				require.GreaterOrEqual(t, len(rep.Advice), 2, "%q", rep.Advice)
				assert.Equal(t, rep.Checks[slices.IndexFunc(rep.Checks, func(c properties.Result) bool { return c.Status == verdict.Fail })].Remedy, rep.Advice[0])
				assert.Contains(t, rep.Advice[1], "The built-in "+fix.Spec+" does that and passes")
			}
			t.Log(rep.Advice)

			changed := tt.p
			switch {
			case fix.Spec != "":
				changed = gate.SpecPolicy(spec(t, fix.Spec))
			default:
				changed.Factory = gate.Scale(tt.p.Factory, fix.Scale)
			}
			again, err := gate.Run(context.Background(), changed, cfg)
			require.NoError(t, err)
			assert.Equal(t, verdict.Pass, again.Verdict, "%s", fix.Change)
			assert.Empty(t, again.Fixes, "a passing policy needs no fix")
			assert.InDelta(t, fix.PeakRatio.Median, again.Replay.Summary[sim.PeakRatio].Median, 1e-9, "the fix's figures are the changed policy's")
		})
	}
}

// TestFixOfALockstepSpec gates decorrelated jitter under a multiplier of
// 1, whose every delay is its base: the checks fail it, while a replay of
// first attempts spread over a minute passes. Raising its base keeps it in
// lockstep, so every change the gate suggests is one that passes when
// gated, checks included.
func TestFixOfALockstepSpec(t *testing.T) {
	cfg := gate.Config{
		Checks:   properties.Config{Cap: 10 * time.Second},
		Scenario: sim.Scenario{Clients: 1000, AcceptRate: 100, StartSpread: time.Minute},
		Replay:   sim.Config{Runs: 5},
	}
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "decorrelated:base=1s,cap=10s,multiplier=1")), cfg)
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, rep.Verdict)
	require.NotEmpty(t, rep.Fixes)
	for _, fix := range rep.Fixes {
		require.NotEmpty(t, fix.Spec, "%s", fix.Change)
		again, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, fix.Spec)), cfg)
		require.NoError(t, err)
		assert.Equal(t, verdict.Pass, again.Verdict, "%s", fix.Change)
	}
}

// TestScaleFix slows down a policy of the caller's that passes every check
// but storms: the fix multiplies its own delays.
func TestScaleFix(t *testing.T) {
	full := jittered(func(rng *rand.Rand, w time.Duration) time.Duration { return time.Duration(rng.Float64() * float64(w)) })
	rep, err := gate.Run(context.Background(), gate.GoPolicy("full jitter of my own", full), gate.Config{Replay: sim.Config{Runs: 5}})
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, rep.Verdict)
	var scaled *float64
	for _, f := range rep.Fixes {
		if f.Scale > 0 {
			scaled = &f.Scale
		}
	}
	require.NotNil(t, scaled, "one of the fixes slows the policy down")
	again, err := gate.Run(context.Background(), gate.GoPolicy("slowed", gate.Scale(full, *scaled)), gate.Config{Replay: sim.Config{Runs: 5}})
	require.NoError(t, err)
	assert.Equal(t, verdict.Pass, again.Verdict)
}

func TestNoFixWhenTurnedOff(t *testing.T) {
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "full")), gate.Config{Steps: gate.Checks | gate.Replay, Replay: sim.Config{Runs: 3}})
	require.NoError(t, err)
	assert.Equal(t, verdict.Fail, rep.Verdict)
	assert.Empty(t, rep.Fixes)
	assert.True(t, rep.FixesNotSearched)
	last := rep.Advice[len(rep.Advice)-1]
	assert.Contains(t, last, "the search for a change was not run", "without a search, the replay's advice is a lower bound")
	assert.NotContains(t, last, "no change was found", "no search claims no finding")
}

// TestFixWithinTheGatesRuns searches with no more runs than the gate's
// own: a gate of three runs that fits in its memory limit, where five runs
// would not, fails with its findings rather than with an error.
func TestFixWithinTheGatesRuns(t *testing.T) {
	s := spec(t, "full:base=100ms,cap=1s")
	cfg := gate.Config{Steps: gate.Replay | gate.Fix, Replay: sim.Config{Runs: sim.MinRunsToPass},
		Scenario: sim.Scenario{Clients: 1000, Window: 10 * time.Millisecond, MemoryLimit: 50 << 20}}
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(s), cfg)
	require.NoError(t, err)
	assert.Equal(t, verdict.Fail, rep.Verdict)
	assert.NotEmpty(t, rep.Advice)
}

// TestUndominated keeps, of fixes sorted by when they serve the fleet, those
// that each lower the peak ratio: a later fix with no lower a peak is worse
// on both counts. Fixes without a replay's figures, and a slowed policy of
// the user's own, are all kept.
func TestUndominated(t *testing.T) {
	fix := func(name string, ratio, served float64) reports.Fix {
		return reports.Fix{Change: name, Spec: "full:base=" + name, PeakRatio: sim.Estimate{Median: ratio}, AllServed: sim.Estimate{Median: served}}
	}
	names := func(fs []reports.Fix) (out []string) {
		for _, f := range fs {
			out = append(out, f.Change)
		}
		return out
	}
	got := gate.Undominated([]reports.Fix{fix("a", 0.5, 45), fix("b", 0.3, 60), fix("c", 0.55, 498), fix("d", 0.2, 500)})
	assert.Equal(t, []string{"a", "b", "d"}, names(got))
	unreplayed := []reports.Fix{{Change: "x", Spec: "full"}, {Change: "y", Spec: "equal"}}
	assert.Equal(t, []string{"x", "y"}, names(gate.Undominated(unreplayed)))
	slower := reports.Fix{Change: "slower", Scale: 3, PeakRatio: sim.Estimate{Median: 0.58}, AllServed: sim.Estimate{Median: 90}}
	assert.Equal(t, []string{"a", "slower"}, names(gate.Undominated([]reports.Fix{fix("a", 0.5, 45), slower})),
		"slowing the policy's own delays keeps its code")
}

// TestFixHoldsOnOtherSeeds gates no jitter, then replays each fix it
// offers on seeds it was not found on: the peak is a count of retries, and
// a fix found at the threshold's last retry failed one seed in two.
func TestFixHoldsOnOtherSeeds(t *testing.T) {
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "none:base=1s,cap=30s")), gate.Config{Steps: gate.Replay | gate.Fix})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Fixes)
	for _, f := range rep.Fixes {
		for _, seed := range []uint64{2, 3, 5, 7} {
			again, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, f.Spec)), gate.Config{Steps: gate.Replay, Seed: seed})
			require.NoError(t, err)
			assert.NotEqual(t, verdict.Fail, again.Verdict, "%s at seed %d: peak ratio %v", f.Spec, seed, again.Replay.Summary[sim.PeakRatio])
		}
	}
}

// TestClear holds a fix to more than the threshold's last retry: at 50
// accepted a window, a peak interval reaching 0.6 of it is 30 retries, and
// 31 on another seed fails.
func TestClear(t *testing.T) {
	res := func(high float64) sim.Result {
		return sim.Result{Scenario: sim.Scenario{AcceptRate: 50, Threshold: 0.6},
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: high - 0.02, Low: high - 0.04, High: high}}}
	}
	assert.False(t, gate.Clear(res(0.6)), "at the threshold")
	assert.True(t, gate.Clear(res(0.58)), "one retry under it")
	assert.True(t, gate.Clear(sim.Result{Scenario: sim.Scenario{Kind: sim.Storm}}), "a budget of one retry a window has no margin to give")
}

// TestFirstServerFixPasses gates the overload defaults with full jitter
// and no budget, which never recover, takes the first change the gate
// suggests, and gates the changed scenario again on seeds 1 to 10 (1 to 3
// under -short): each passes. The comparison, which judges nothing, is
// left out.
func TestFirstServerFixPasses(t *testing.T) {
	p := gate.SpecPolicy(spec(t, "full:base=100ms,cap=10s"))
	cfg := gate.Config{Steps: gate.Checks | gate.Replay | gate.Fix, Replay: sim.Config{Runs: 5}, Scenario: sim.Scenario{Kind: sim.Overload}}
	rep, err := gate.Run(context.Background(), p, cfg)
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, rep.Verdict)
	require.NotEmpty(t, rep.Fixes)
	fix := rep.Fixes[0]
	require.NotNil(t, fix.Scenario)
	assert.Equal(t, sim.SideBudget, fix.Side, "a budget the fleet shares changes the least")
	assert.Equal(t, "--budget grpc --budget-scope fleet", fix.Server)
	for i, f := range rep.Fixes[1:] {
		assert.LessOrEqual(t, sim.SideRank(rep.Fixes[i].Side), sim.SideRank(f.Side), "ranked by side")
	}
	seeds := uint64(10)
	if testing.Short() {
		seeds = 3
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		again := cfg
		again.Steps = gate.Checks | gate.Replay
		again.Seed, again.Scenario = seed, *fix.Scenario
		res, err := gate.Run(context.Background(), p, again)
		require.NoError(t, err)
		assert.Equal(t, verdict.Pass, res.Verdict, "seed %d: %s", seed, res.Replay.Detail)
	}
}
