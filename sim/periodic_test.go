package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// busyTimers is a periodic fleet whose busiest seconds are over the
// budget: 3,600 devices a minute, offset by the hash of their ids, put 60
// firings in each second on average with a standard deviation of 7.7, and
// the busiest of the 60 seconds about 60 + 2.4·7.7 ≈ 78 of the 65 the
// server accepts. Some firings are rejected in every run.
var busyTimers = Scenario{Kind: Periodic, Clients: 3600, AcceptRate: 65, Period: time.Minute}

// TestPeriodicJudgesTheRetries replays three policies on the same timers:
// the firings are the same in each (the offsets are the hash of the ids,
// the same fleets in the same runs), so the timer load is the same run by
// run, while the re-sends of the rejected firings are each policy's own.
// Without jitter, every firing rejected in one second comes back in the
// next together, so its peak of re-sends is the highest.
func TestPeriodicJudgesTheRetries(t *testing.T) {
	specs := []string{"full:base=30s,cap=30s", "decorrelated:base=15s,cap=5m", "none:base=1s,cap=1s"}
	results := make([]Result, len(specs))
	for i, text := range specs {
		spec, err := kit.ParseSpec(text)
		require.NoError(t, err)
		results[i], err = Replay(context.Background(), spec.Factory(), busyTimers, Config{Runs: 5, Seed: 1})
		require.NoError(t, err)
		require.Positive(t, results[i].Summary[PeakRetryArrivals].Median, "%s: peak re-sends; want some firings rejected", text)
	}
	for i := 1; i < len(specs); i++ {
		for k, run := range results[i].Runs {
			first := results[0].Runs[k]
			assert.Equal(t, first.PeakFirings, run.PeakFirings, "run %d (seed %d): peak firings of %s against %s's", k, run.Seed, specs[i], specs[0])
			assert.Equal(t, first.TimerLoadRatio, run.TimerLoadRatio, "run %d (seed %d): timer load of %s against %s's", k, run.Seed, specs[i], specs[0])
		}
		assert.Equal(t, results[0].Summary[TimerLoadRatio], results[i].Summary[TimerLoadRatio], "timer load of %s against %s's", specs[i], specs[0])
	}
	for i := range specs {
		for j := i + 1; j < len(specs); j++ {
			assert.NotEqual(t, results[i].Summary[PeakRetryArrivals].Median, results[j].Summary[PeakRetryArrivals].Median,
				"median peak re-sends of %s and %s; want each policy's own", specs[i], specs[j])
		}
	}
	none := results[2].Summary[PeakRetryArrivals].Median
	for _, r := range results[:2] {
		assert.Greater(t, none, r.Summary[PeakRetryArrivals].Median, "median peak re-sends without jitter against a jittered policy's")
	}
	for i, r := range results {
		t.Logf("%s: %s", specs[i], r.Detail())
	}
}

// TestOffsetFromPolicy takes the timers' offsets from the policy's first
// delay (OffsetPolicy): 3,000 devices whose policy waits a fixed second
// all fire in the same window, a timer load of the whole fleet over the
// budget, 15, which fails however the re-sends spread; a policy whose first
// delay is uniform over the minute spreads them as the hash does (at most
// about 67 a second, a third of the budget; see TestPeriodic). With the
// scenario's own offsets the same fixed policy has the hash's timer load.
func TestOffsetFromPolicy(t *testing.T) {
	s := Scenario{Kind: Periodic, Clients: 3000, AcceptRate: 200, Period: time.Minute, TimerOffset: OffsetPolicy}
	fixed := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory()
	spread := kit.Spec{Strategy: kit.Full, Base: time.Minute, Cap: time.Minute}.Factory()

	rf, err := Replay(context.Background(), fixed, s, Config{Runs: 5})
	require.NoError(t, err)
	for _, run := range rf.Runs {
		assert.Equal(t, 3000, run.PeakFirings, "fixed 1s offsets, run seed %d: peak firings; want the whole fleet in one window", run.Seed)
	}
	assert.Equal(t, verdict.Fail, rf.Status(), "fixed 1s offsets: %s", rf.Detail())
	assert.Equal(t, "the policy's timer offsets put up to 3,000 firings in one 1s window, a timer load of 15.00 over the 0.6 threshold",
		OffsetsCrowd(rf.Scenario, rf.Summary))

	rs, err := Replay(context.Background(), spread, s, Config{Runs: 5})
	require.NoError(t, err)
	for _, run := range rs.Runs {
		assert.LessOrEqual(t, run.TimerLoadRatio, 0.6, "offsets uniform over the minute, run seed %d: timer load", run.Seed)
	}
	assert.Empty(t, OffsetsCrowd(rs.Scenario, rs.Summary), "offsets uniform over the minute")
	assert.NotEqual(t, verdict.Fail, rs.Status(), "offsets uniform over the minute: %s", rs.Detail())

	s.TimerOffset = OffsetScenario
	hashed, err := Replay(context.Background(), fixed, s, Config{Runs: 5})
	require.NoError(t, err)
	hashedFull, err := Replay(context.Background(), spread, s, Config{Runs: 5})
	require.NoError(t, err)
	assert.Equal(t, hashedFull.Summary[TimerLoadRatio], hashed.Summary[TimerLoadRatio], "the scenario's offsets: timer load of two policies")
	assert.LessOrEqual(t, hashed.Summary[TimerLoadRatio].High, 0.6, "the scenario's offsets: timer load")
}

// TestOffsetFromPolicyFails names the device and attempt 1 when the policy
// cannot give its first delay, the offset, and fires a policy that stops
// at once on the period's boundary.
func TestOffsetFromPolicyFails(t *testing.T) {
	s := Scenario{Kind: Periodic, Clients: 50, AcceptRate: 200, Period: time.Minute, TimerOffset: OffsetPolicy}
	panics := func(kit.Device) kit.Policy {
		return kit.FromFunc(func(int) time.Duration { panic("no offset") })
	}
	_, err := Replay(context.Background(), panics, s, Config{Runs: 3})
	var de *DeviceError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, 1, de.Attempt, "the attempt whose delay failed: %v", err)
	assert.Equal(t, StopPanic, de.Cause, "%v", err)
	assert.Equal(t, deviceID(0, 0), de.Device, "%v", err)

	stops := func(kit.Device) kit.Policy { return kit.FromSlice(nil) }
	r, err := Replay(context.Background(), stops, s, Config{Runs: 3})
	require.NoError(t, err)
	for _, run := range r.Runs {
		assert.Equal(t, 50, run.PeakFirings, "a policy that stops at once, run seed %d: peak firings; want every device on the boundary", run.Seed)
	}
}

// TestGaveUpAtMostTheFleet holds, on drawn scenarios of every kind and
// drawn policies (one that stops, one that never waits and reaches
// MaxAttempts), that the devices counted as gave up, attempt-limited or
// pending are devices: never more than the fleet, however many firings a
// device misses; in an outage each device ends one way, served, gave up
// or pending.
func TestGaveUpAtMostTheFleet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Scenario{
			Kind:        rapid.SampledFrom(fleetKinds).Draw(t, "kind"),
			Server:      rapid.SampledFrom(Servers()).Draw(t, "server"),
			Clients:     rapid.IntRange(1, 200).Draw(t, "clients"),
			AcceptRate:  rapid.Float64Range(0.5, 100).Draw(t, "acceptRate"),
			Horizon:     rapid.SampledFrom([]time.Duration{30 * time.Second, 5 * time.Minute}).Draw(t, "horizon"),
			MaxAttempts: rapid.IntRange(0, 30).Draw(t, "maxAttempts"),
		}
		if s.Kind.Periodic() {
			s.Period = rapid.SampledFrom([]time.Duration{time.Second, 3 * time.Second, 20 * time.Second}).Draw(t, "period")
			s.TimerOffset = rapid.SampledFrom(Offsets()).Draw(t, "timerOffset")
		}
		if s.Kind == LongOutage {
			s.Down = 10 * time.Second
		}
		name, f := drawFactory(t)
		r, err := Replay(context.Background(), f, s, Config{Runs: 3, Seed: rapid.Uint64().Draw(t, "seed")})
		require.NoError(t, err, "Replay(%s, %+v)", name, s)
		for _, run := range r.Runs {
			require.LessOrEqual(t, run.GaveUp, s.Clients, "%s on %+v, run seed %d: gave up; want at most the fleet", name, s, run.Seed)
			require.LessOrEqual(t, run.AttemptLimited, run.GaveUp, "%s on %+v, run seed %d: attempt-limited of the gave up", name, s, run.Seed)
			require.LessOrEqual(t, run.Pending, s.Clients, "%s on %+v, run seed %d: pending; want at most the fleet", name, s, run.Seed)
			if s.Kind == Outage || s.Kind == LongOutage {
				require.Equal(t, s.Clients, run.Served+run.GaveUp+run.Pending, "%s on %+v, run seed %d: served + gave up + pending; want the fleet", name, s, run.Seed)
			}
			if s.Kind.Periodic() {
				require.LessOrEqual(t, run.GaveUp, run.FiringsMissed, "%s on %+v, run seed %d: devices that missed a firing against the firings missed", name, s, run.Seed)
			}
		}
		require.LessOrEqual(t, r.Summary[GaveUp].High, float64(s.Clients), "%s on %+v: gave up at the interval's high end", name, s)
	})
}

// TestWideWindowFails replays the default outage's storm of full jitter in
// 6m windows: the window's peak ratio is far under the threshold, the same
// runs' 1s peak is the 1s replay's, run by run, and the replay fails with
// the 1s figure instead of passing, or warns when Config.AllowWideWindow
// lets the window average. A policy whose 1s peak is within the
// threshold, in every run, passes in the wide window too.
func TestWideWindowFails(t *testing.T) {
	f := outagePolicy(kit.Full)
	narrow, err := Replay(context.Background(), f, defaultOutage, Config{Runs: 20, Seed: 1})
	require.NoError(t, err)
	_, ok := narrow.Summary[PeakRatio1s]
	assert.False(t, ok, "a 1s replay's summary holds %s; want it only for wider windows", PeakRatio1s)

	wide := defaultOutage
	wide.Window = 6 * time.Minute
	r, err := Replay(context.Background(), f, wide, Config{Runs: 20, Seed: 1})
	require.NoError(t, err)
	for i, run := range r.Runs {
		assert.Equal(t, narrow.Runs[i].PeakRetryArrivals, run.PeakRetryArrivals1s, "run %d (seed %d): 1s peak of the 6m replay against the 1s replay's peak", i, run.Seed)
		assert.Equal(t, narrow.Runs[i].PeakRatio, run.PeakRatio1s, "run %d (seed %d): 1s peak ratio of the 6m replay against the 1s replay's", i, run.Seed)
	}
	assert.LessOrEqual(t, r.Summary[PeakRatio].Median, 0.6, "6m window: peak ratio")
	assert.Equal(t, verdict.Fail, r.Status(), "6m window: %s", r.Detail())
	allowed := r
	allowed.Config.AllowWideWindow = true
	assert.Equal(t, verdict.Warn, allowed.Status(), "6m window, allowed to average: %s", allowed.Detail())
	assert.Equal(t, "a 6m window averages the storm away, which 1s windows show: at 1s the peak ratio is 31.9, over the 0.6 threshold, with up to 1,597 retries in one second",
		AveragedAway(r.Scenario, r.Summary))
	assert.Contains(t, r.Detail(), AveragedAway(r.Scenario, r.Summary), "the detail of the 6m replay")

	calm := kit.Spec{Strategy: kit.Full, Base: 30 * time.Second, Cap: 10 * time.Minute}.Factory()
	rc, err := Replay(context.Background(), calm, wide, Config{Runs: 20, Seed: 1})
	require.NoError(t, err)
	require.LessOrEqual(t, rc.Summary[PeakRatio1s].High, 0.6, "full:base=30s,cap=10m: 1s peak ratio")
	assert.Empty(t, AveragedAway(rc.Scenario, rc.Summary), "full:base=30s,cap=10m in 6m windows")
	assert.Equal(t, verdict.Pass, rc.Status(), "full:base=30s,cap=10m in 6m windows: %s", rc.Detail())
}

// TestTimerOffsetValidate refuses the policy's timer offsets outside the
// periodic kinds, and an unknown offset; the scenario's own is none there.
func TestTimerOffsetValidate(t *testing.T) {
	err := Scenario{TimerOffset: OffsetPolicy}.Validate(nil, Config{})
	var ce *kit.ConfigError
	require.True(t, errors.As(err, &ce), "Validate: %v; want a *kit.ConfigError", err)
	assert.EqualError(t, err, `sim: timer offset "policy" is for the periodic kinds, not outage`)
	assert.EqualError(t, Scenario{Kind: Periodic, TimerOffset: "boot"}.Validate(nil, Config{}), `sim: unknown timer offset "boot" (want scenario or policy)`)
	assert.EqualError(t, Scenario{TimerOffset: "boot"}.Validate(nil, Config{}), `sim: unknown timer offset "boot" (want scenario or policy)`)
	assert.NoError(t, Scenario{Kind: PeriodicAligned, TimerOffset: OffsetPolicy}.Validate(nil, Config{}))
	assert.NoError(t, Scenario{TimerOffset: OffsetScenario}.Validate(nil, Config{}), "the outage's own offset")
	assert.Empty(t, Scenario{TimerOffset: OffsetScenario}.WithDefaults().TimerOffset, "an outage's timer offset after defaults; want none, it fires no timers")
	assert.Equal(t, OffsetScenario, Scenario{Kind: Periodic}.WithDefaults().TimerOffset, "a periodic scenario's default timer offset")
}

// TestTimersOverloadFails replays 10,000 timers aligned on the minute
// against 500 accepted a second with a policy whose re-sends spread over
// 50s: the re-sends stay within the threshold, but the timers alone put
// the whole fleet into one second, 20 times what the server accepts, so at
// least 95% of those firings are rejected on their first try whatever the
// policy, and the replay fails with that figure: the 9,500 firings rejected
// there are a wave of re-sends far over the threshold of 0.6 budgets.
func TestTimersOverloadFails(t *testing.T) {
	s := Scenario{Kind: PeriodicAligned, Clients: 10000, AcceptRate: 500}
	spec := kit.Spec{Strategy: kit.Full, Base: 50 * time.Second, Cap: 50 * time.Second}
	r, err := Replay(context.Background(), spec.Factory(), s, Config{Runs: 5, Seed: 1})
	require.NoError(t, err)
	require.LessOrEqual(t, r.Summary[PeakRatio].Median, r.Scenario.Threshold, "the re-sends: %s", r.Detail())
	assert.Equal(t, verdict.Fail, r.Status(), "%s", r.Detail())
	want := "the timers alone put up to 10,000 firings in one 1s window against a budget of 500, a timer load of 20.00: the server rejects at least 95% of them on their first try, whatever the retry policy"
	assert.Equal(t, want, TimersOverload(r.Scenario, r.Summary))
	assert.Equal(t, want, OffsetsCrowd(r.Scenario, r.Summary))

	// Offset by the hash of their ids over the minute, the same timers
	// put about 167 firings in each second, within what it accepts.
	s.Kind = Periodic
	r, err = Replay(context.Background(), spec.Factory(), s, Config{Runs: 5, Seed: 1})
	require.NoError(t, err)
	assert.Empty(t, TimersOverload(r.Scenario, r.Summary), "hashed offsets: %s", r.Detail())
	assert.NotEqual(t, verdict.Fail, r.Status(), "hashed offsets: %s", r.Detail())

	// A hashed fleet whose busiest second is a few firings over what the
	// server accepts, by less than the threshold of its budget, leaves its
	// re-sends to the policy.
	r, err = Replay(context.Background(), spec.Factory(), busyTimers, Config{Runs: 5, Seed: 1})
	require.NoError(t, err)
	require.Greater(t, r.Summary[TimerLoadRatio].Median, 1.0, "busy timers: %s", r.Detail())
	assert.Empty(t, TimersOverload(r.Scenario, r.Summary), "busy timers: %s", r.Detail())
}
