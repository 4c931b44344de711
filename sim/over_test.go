package sim

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
)

// TestOverIsReplaysPeakRatio checks that Over says of each run what
// Replay's figures say, for limits on both sides of each run's peak ratio
// and at it, over scenarios that stop a run early and scenarios that
// replay it whole, on both of the engine's paths, and with runs that do
// not start at 0. Under -short it tries only the limits at each run's peak
// ratio and just under it, where Over's answer turns, on three workers.
func TestOverIsReplaysPeakRatio(t *testing.T) {
	spec := func(s string) kit.Factory {
		sp, err := kit.ParseSpec(s)
		require.NoError(t, err)
		return sp.Factory()
	}
	scenarios := []struct {
		name string
		s    Scenario
	}{
		{"outage", Scenario{Clients: 3000, AcceptRate: 150}},
		{"outage, 100ms windows", Scenario{Clients: 3000, AcceptRate: 150, Window: 100 * time.Millisecond}},
		{"outage, 10s windows", Scenario{Clients: 3000, AcceptRate: 150, Window: 10 * time.Second}},
		{"long outage", Scenario{Kind: LongOutage, Clients: 2000, AcceptRate: 40}},
		{"token bucket", Scenario{Clients: 3000, AcceptRate: 150, Server: TokenBucket, Burst: 300}},
		{"periodic", Scenario{Kind: Periodic, Clients: 2000, AcceptRate: 60, Period: time.Minute}},
		{"storm", Scenario{Kind: Storm, Clients: 2000, Window: 20 * time.Millisecond, Retries: 8}},
	}
	policies := []struct {
		name string
		f    kit.Factory
	}{
		{"none", spec("none:base=1s,cap=30s")},
		{"full", spec("full:base=2s,cap=30s")},
		{"decorrelated", spec("decorrelated:base=1s,cap=20s")},
		{"equal, general path", general(spec("equal:base=1s,cap=30s"))},
	}
	const seed, from, to = 11, 2, 7
	for _, sc := range scenarios {
		for _, p := range policies {
			t.Run(sc.name+"/"+p.name, func(t *testing.T) {
				res, err := Replay(context.Background(), p.f, sc.s, Config{Runs: to, Seed: seed})
				require.NoError(t, err)
				limits := []float64{-1, 0, 0.6, math.Inf(1)}
				workerCounts := []int{1, 3}
				if testing.Short() {
					limits, workerCounts = nil, []int{3}
				}
				for _, r := range res.Runs[from:] {
					limits = append(limits, r.PeakRatio, math.Nextafter(r.PeakRatio, math.Inf(-1)))
					if !testing.Short() {
						limits = append(limits, r.PeakRatio/2)
					}
				}
				for _, limit := range limits {
					want := make([]bool, to-from)
					for i, r := range res.Runs[from:] {
						want[i] = r.PeakRatio > limit
					}
					for _, workers := range workerCounts {
						got, err := Over(context.Background(), p.f, sc.s, Config{Seed: seed, Workers: workers}, limit, from, to)
						require.NoError(t, err)
						assert.Equal(t, want, got, "limit %v, %d workers", limit, workers)
					}
				}
			})
		}
	}
}

// TestOverStopsAtTheLimit checks that a run over the limit costs only the
// seconds until it is. The devices of a fleet without jitter start within
// the default 10ms and retry first 2s later, all in one second, which puts
// each run over the limit: a device is asked its first delay, and its
// second at most, when that retry is refused, before the run stops at the
// end of that second. A run within the limit asks as often as Replay.
func TestOverStopsAtTheLimit(t *testing.T) {
	s := Scenario{Clients: 2000, AcceptRate: 100}
	var calls atomic.Int64
	f := func(kit.Device) kit.Policy {
		n := 0
		return policyFunc(func() (time.Duration, error) {
			calls.Add(1)
			n++
			return min(time.Duration(1<<min(n, 10))*time.Second, 30*time.Second), nil
		})
	}
	_, err := Replay(context.Background(), f, s, Config{Runs: 3, Seed: 5})
	require.NoError(t, err)
	whole := calls.Swap(0)

	over, err := Over(context.Background(), f, s, Config{Seed: 5}, 0.6, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true, true}, over)
	const runs = 3
	assert.LessOrEqual(t, calls.Swap(0), int64(2*s.Clients*runs), "calls of the policies when every run is over the limit, against %d in the whole replay", whole)
	assert.Greater(t, whole, int64(2*s.Clients*runs), "calls of the whole replay")

	within, err := Over(context.Background(), f, s, Config{Seed: 5}, math.Inf(1), 0, 3)
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, false}, within)
	assert.Equal(t, whole, calls.Load(), "calls when no run is over the limit")
}

// TestOverRefuses checks what Over refuses, and that its errors are
// Replay's.
func TestOverRefuses(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full}.Factory()
	for _, c := range []struct {
		name     string
		s        Scenario
		limit    float64
		from, to int
		want     string
	}{
		{"negative first run", Scenario{}, 0.6, -1, 3, "first run -1 is negative"},
		{"no runs", Scenario{}, 0.6, 4, 4, "runs from 4 up to 4 are none"},
		{"too many runs", Scenario{}, 0.6, 0, maxRuns + 1, "run 1000000 is past the last of 1,000,000"},
		{"NaN limit", Scenario{}, math.NaN(), 0, 3, "limit of the peak ratio is NaN"},
		{"server model", Scenario{Kind: Overload}, 0.6, 0, 3, "Over replays the fleet kinds, and overload is a server model: replay it with Replay"},
		{"scenario out of range", Scenario{AcceptRate: -5}, 0.6, 0, 3, "accept rate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Over(context.Background(), full, c.s, Config{}, c.limit, c.from, c.to)
			var ce *kit.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.ErrorContains(t, err, c.want)
		})
	}

	t.Run("policy defect", func(t *testing.T) {
		f := func(d kit.Device) kit.Policy {
			return policyFunc(func() (time.Duration, error) { return -time.Second, nil })
		}
		_, err := Over(context.Background(), f, Scenario{Clients: 100, AcceptRate: 10}, Config{Seed: 3}, 1e9, 1, 3)
		var de *DeviceError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, 1, de.Run, "the lowest-numbered run replayed")
		assert.Equal(t, StopBadDelay, de.Cause)
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Over(ctx, full, Scenario{Clients: 100, AcceptRate: 10}, Config{}, 0.6, 5, 8)
		require.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "stopped after 0 of 3 runs")
	})

	// The runs before from are not Over's: it holds none of their figures,
	// so a late run costs what an early one does.
	t.Run("late runs", func(t *testing.T) {
		s := Scenario{Clients: 10, AcceptRate: 10, MemoryLimit: 3 << 20}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		over, err := Over(context.Background(), full, s, Config{}, 0.6, maxRuns-1, maxRuns)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		assert.Len(t, over, 1)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(s.MemoryLimit), "bytes allocated")
	})
}

// TestOverCount checks that the count overCount returns is the fewest
// whose ratio, computed as a Run's PeakRatio is, is over the limit.
func TestOverCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		budget := rapid.Float64Range(1e-3, 1e7).Draw(t, "budget")
		limit := rapid.Float64Range(-1, 1e3).Draw(t, "limit")
		if rapid.Bool().Draw(t, "on a count") {
			limit = float64(rapid.Int64Range(0, 1e6).Draw(t, "count")) / budget
		}
		c := overCount(limit, budget)
		require.Greater(t, float64(c)/budget, limit, "ratio of %d", c)
		if c > 0 {
			require.LessOrEqual(t, float64(c-1)/budget, limit, "ratio of %d", c-1)
		}
	})
	for _, c := range []struct {
		limit, budget float64
	}{{math.Inf(1), 50}, {1e300, 50}, {0.6, 0}} {
		assert.Equal(t, int64(math.MaxInt64), overCount(c.limit, c.budget), fmt.Sprint(c))
	}
}
