package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// TestValidate refuses absurd scenarios with the reason, or with the
// memory the run would need, word for word.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Scenario
		want string
	}{
		{"negative clients", Scenario{Clients: -1}, "sim: clients -1 is negative"},
		{"ten billion clients", Scenario{Clients: 1e10}, "sim: clients 10000000000 is more than a replay holds (4294967295)"},
		{"a billion clients", Scenario{Clients: 1e9},
			"sim: 20 runs of 1,000,000,000 clients over 1h0m0s in 1s windows would need about 50.2 GiB, above the memory limit of 4.0 GiB: one run needs 50.2 GiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit"},
		{"negative accept rate", Scenario{AcceptRate: -5}, "sim: accept rate -5 per second is not a positive number"},
		{"NaN accept rate", Scenario{AcceptRate: math.NaN()}, "sim: accept rate NaN per second is not a positive number"},
		{"infinite accept rate", Scenario{AcceptRate: math.Inf(1)}, "sim: accept rate +Inf per second is not a positive number"},
		{"horizon of years", Scenario{Horizon: 3 * 365 * 24 * time.Hour}, "sim: horizon 26280h0m0s is beyond the longest replay, 744h0m0s (31 days)"},
		{"nanosecond windows over a month", Scenario{Window: time.Nanosecond, Horizon: maxHorizon},
			"sim: 1ns windows over 744h0m0s make 2,678,400,000,000,000 windows, more than 10,000,000: use wider windows or a shorter horizon"},
		{"unknown kind", Scenario{Kind: "flood"}, `sim: unknown scenario "flood" (want outage, long-outage, storm, periodic, periodic-aligned, overload, reconnect or contention)`},
		{"unknown server", Scenario{Server: "queue"}, `sim: unknown server "queue" (want per-second, token-bucket or retry-after)`},
		{"negative down", Scenario{Down: -time.Second}, "sim: down -1s is negative"},
		{"negative threshold", Scenario{Threshold: -0.5}, "sim: threshold -0.5 is not a positive number"},
		{"burst under one", Scenario{Server: TokenBucket, Burst: 0.5}, "sim: burst 0.5 is not a number of at least 1"},
		{"negative retries", Scenario{Kind: Storm, Retries: -3}, "sim: retries -3 is negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := kit.Spec{Strategy: kit.Full}.Factory()
			assert.EqualError(t, c.s.Validate(f, Config{}), c.want, "Validate()")
			_, rerr := Replay(context.Background(), f, c.s, Config{})
			assert.EqualError(t, rerr, c.want, "Replay()")
		})
	}
	assert.NoError(t, (Scenario{}).Validate(nil, Config{}), "the default scenario")
	big := Scenario{Clients: 1e9, MemoryLimit: 1 << 40}
	assert.NoError(t, big.Validate(nil, Config{}), "a billion clients within a 1 TiB limit")
}

// TestReplayWorkers checks that the figures do not depend on the number of
// runs replayed at once.
func TestReplayWorkers(t *testing.T) {
	f := outagePolicy(kit.Full)
	var first Result
	for i, w := range []int{1, 2, 7} {
		r, err := Replay(context.Background(), f, Scenario{}, Config{Runs: 9, Seed: 42, Workers: w})
		require.NoError(t, err)
		r.Config.Workers = 0
		if i == 0 {
			first = r
			continue
		}
		assert.Equal(t, first, r, "Replay with %d workers, against Replay with 1", w)
	}
}

// TestRunSeed checks that any run replays alone from its seed.
func TestRunSeed(t *testing.T) {
	f := outagePolicy(kit.Equal)
	all, err := Replay(context.Background(), f, Scenario{}, Config{Runs: 4, Seed: 9})
	require.NoError(t, err)
	for _, run := range all.Runs {
		one, err := Replay(context.Background(), f, Scenario{}, Config{Runs: 1, Seed: run.Seed})
		require.NoError(t, err)
		assert.Equal(t, run, one.Runs[0], "run with seed %d replayed alone", run.Seed)
	}
	a, b := all.Runs[0], all.Runs[1]
	assert.False(t, a.Attempts == b.Attempts && a.AllServed == b.AllServed, "runs 0 and 1 have the same figures (%d attempts, %v); want different fleets", a.Attempts, a.AllServed)
}

// TestPeriodic shows why a timer needs a per-device offset: 3,000 devices
// sync every minute against a server that accepts 200 a second. Aligned,
// the whole fleet fires in the same window at each period, so the timer
// load is at least N over the budget, 15, and the rejected firings' re-sends
// crowd the server. Offset by a hash of the id, each second of the period
// holds a binomial count of firings, N/60 = 50 on average with a standard
// deviation of 7; the largest of the 60 seconds is about 50 + 2.4·7 ≈ 67,
// a third of the budget, and reaching the 0.6 threshold (120) would take
// 10 standard deviations. No firing is rejected, so all are served, none
// is re-sent, and the retry policy, never used, is not judged.
func TestPeriodic(t *testing.T) {
	f := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	base := Scenario{Clients: 3000, AcceptRate: 200, Period: time.Minute}
	aligned, offset := base, base
	aligned.Kind, offset.Kind = PeriodicAligned, Periodic
	ra, err := Replay(context.Background(), f, aligned, Config{Runs: 5})
	require.NoError(t, err)
	ro, err := Replay(context.Background(), f, offset, Config{Runs: 5})
	require.NoError(t, err)
	for _, run := range ra.Runs {
		assert.GreaterOrEqual(t, run.PeakFirings, 3000, "aligned timers, run seed %d: peak firings in one window; want at least the fleet", run.Seed)
		assert.GreaterOrEqual(t, run.TimerLoadRatio, 15.0, "aligned timers, run seed %d: timer load; want at least the fleet over the budget", run.Seed)
	}
	assert.Equal(t, verdict.Fail, ra.Status(), "aligned timers: %s", ra.Detail())
	for _, run := range ro.Runs {
		assert.LessOrEqual(t, run.TimerLoadRatio, 0.6, "offset timers, run seed %d: timer load", run.Seed)
		assert.Zero(t, run.PeakRetryArrivals, "offset timers, run seed %d: peak re-sends; want none, no firing rejected", run.Seed)
	}
	assert.Equal(t, verdict.Inconclusive, ro.Status(), "offset timers: %s", ro.Detail())
	assert.Equal(t, float64(5*3000), ro.Summary[Served].Median, "offset timers: firings served; want all of 5 periods × 3000")
	t.Logf("aligned: %s", ra.Detail())
	t.Logf("offset:  %s", ro.Detail())
}

// TestRetryAfter shows a constant Retry-After hint putting a jittered fleet
// back in lockstep: with full jitter the first retries spread over 100ms,
// so a 10ms window holds a fraction of the fleet; obeying a 1s hint, every
// device retries exactly 1s after its first attempt, and all 400 first
// attempts lie within the 10ms start spread, so one window holds all 400.
func TestRetryAfter(t *testing.T) {
	f := outagePolicy(kit.Full)
	s := Scenario{Window: 10 * time.Millisecond}
	perSecond, err := Replay(context.Background(), f, s, Config{Runs: 5})
	require.NoError(t, err)
	s.Server = RetryAfter
	hinted, err := Replay(context.Background(), f, s, Config{Runs: 5})
	require.NoError(t, err)
	for _, run := range hinted.Runs {
		assert.Equal(t, 400, run.PeakRetryArrivals, "Retry-After 1s, run seed %d: peak retries in one 10ms window; want the whole fleet", run.Seed)
	}
	got := perSecond.Summary[PeakRetryArrivals]
	assert.Less(t, got.High, float64(400/3), "full jitter without the hint: peak %v retries in one 10ms window; want under a third of the fleet", got)
}

// TestLongOutage: after a minute down every device is at its 10s cap, and
// stays there for the hour. Without jitter the fleet then retries in
// unison, the whole fleet in one window every 10s; with full jitter a
// device retries every 5s on average, so a 1s window holds about a fifth
// of the fleet, 400 (a Poisson count whose largest of 3,600 windows stays
// within 400 + 4·√400 = 480), well under a third. The first minute is left
// out: its first second holds the usual burst of quick retries.
func TestLongOutage(t *testing.T) {
	s := Scenario{Kind: LongOutage, Clients: 2000, AcceptRate: 100}
	atCap := func(r Result) int {
		peak := 0
		for _, run := range r.Runs {
			peak = max(peak, maxOf(run.RetryArrivals[60:]))
		}
		return peak
	}
	none, err := Replay(context.Background(), outagePolicy(kit.None), s, Config{Runs: 3})
	require.NoError(t, err)
	full, err := Replay(context.Background(), outagePolicy(kit.Full), s, Config{Runs: 3})
	require.NoError(t, err)
	assert.Equal(t, 2000, atCap(none), "no jitter at the cap: peak retries in one window; want the whole fleet")
	assert.LessOrEqual(t, atCap(full), 2000/3, "full jitter at the cap: peak retries in one window; want about a fifth of the fleet, under a third")
	assert.Equal(t, float64(2000), none.Summary[Served].Median, "no jitter: served; want all after the outage")
	assert.Contains(t, none.Detail(), "2,000 of 2,000 served", "no jitter: Detail()")
}

// FuzzScenario feeds arbitrary scenarios to Validate and, when they are
// valid and small enough to replay quickly, to Replay: neither may panic,
// Validate's errors carry the package's prefix, and a valid scenario must
// replay without error.
func FuzzScenario(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(400), 50.0, 0.0, int64(2e9), int64(1e9), int64(1e7), int64(0), int64(0), int64(0), int64(0), 0.6, int64(0))
	f.Add(uint8(2), uint8(0), int64(100), 1e-9, 0.0, int64(0), int64(1), int64(0), int64(60e9), int64(0), int64(1000), int64(0), 1e9, int64(0))
	f.Add(uint8(3), uint8(1), int64(50), 0.5, 3.0, int64(1), int64(3e8), int64(5e9), int64(0), int64(0), int64(0), int64(7e9), 0.01, int64(3))
	f.Add(uint8(4), uint8(2), int64(-1), math.NaN(), -1.0, int64(-5), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), -1.0, int64(-1))
	f.Fuzz(func(t *testing.T, kind, server uint8, clients int64, rate, burst float64, down, window, spread, horizon, retryAfter, retries, period int64, threshold float64, maxAttempts int64) {
		s := Scenario{
			Kind: fleetKinds[int(kind)%len(fleetKinds)], Server: Servers()[int(server)%len(Servers())],
			Clients: int(clients), AcceptRate: rate, Burst: burst,
			Down: time.Duration(down), Window: time.Duration(window), StartSpread: time.Duration(spread),
			Horizon: time.Duration(horizon), RetryAfter: time.Duration(retryAfter), Retries: int(retries),
			Period: time.Duration(period), Threshold: threshold, MaxAttempts: int(maxAttempts),
		}
		if err := s.Validate(nil, Config{}); err != nil {
			require.Regexp(t, `^sim: `, err.Error(), "Validate(%+v)", s)
			return
		}
		d := s.WithDefaults()
		small := d.Clients <= 200 && d.Horizon <= 10*time.Minute && d.Horizon/d.Window <= 100_000 &&
			d.Retries <= 1000 && d.MaxAttempts <= 1000 && d.Horizon/max(d.Period, 1) <= 100 &&
			d.Horizon/max(d.RetryAfter, 1) <= 10_000
		if !small {
			return
		}
		policy := kit.Spec{Strategy: kit.Full, Base: time.Millisecond, Cap: time.Second}.Factory()
		_, err := Replay(context.Background(), policy, s, Config{Runs: 2, Resamples: 50})
		require.NoError(t, err, "Replay(%+v) of a valid scenario", s)
	})
}
