package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// reconnectCounts are the counts of a run that the hand-checked cases pin.
type reconnectCounts struct {
	Attempts, FirstAttempts, Served          int
	Accepted, AcceptedCold, Dropped, Refused int
	GaveUp, AtLimit                          int
	WarmAt, AllServed                        time.Duration
}

func reconnectCountsOf(r reconnectRun) reconnectCounts {
	return reconnectCounts{
		Attempts: r.Attempts, FirstAttempts: r.FirstAttempts, Served: r.Served,
		Accepted: r.Accepted, AcceptedCold: r.AcceptedCold, Dropped: r.Dropped, Refused: r.Refused,
		GaveUp: r.GaveUp, AtLimit: r.AtLimit, WarmAt: r.WarmAt, AllServed: r.AllServed,
	}
}

// replayReconnect replays one run of c with seed 1 on the engine.
func replayReconnect(t *testing.T, c reconnect, f kit.Factory) reconnectRun {
	t.Helper()
	e, err := newReconnectEngine(c, f)
	require.NoError(t, err)
	r, err := e.replay(0, 1)
	require.NoError(t, err)
	return r
}

// tinyBroker is one device sending its first connect at 0 over 10ms round
// trips (5ms each way) to a broker up from 0 with 100 units a second, 10
// a handshake, 1 a refusal, and sessions accepted cold dropped after
// 100ms; a warm-up of 1,000,000 units, so that it stays cold; the devices
// reset on a drop.
func tinyBroker(horizon time.Duration) reconnect {
	return reconnect{Devices: 1, RTT: 10 * time.Millisecond, CPU: 100, Handshake: 10, Refusal: 1,
		WarmUp: 1_000_000, ColdDrop: 100 * time.Millisecond, OnDrop: dropReset,
		MaxAttempts: maxReconnectAttempts, Horizon: horizon}
}

// TestReconnectHandChecked pins the model's semantics on small cases whose
// every event is worked out in the comments.
func TestReconnectHandChecked(t *testing.T) {
	wait := constantFactory
	for _, c := range []struct {
		name string
		c    reconnect
		f    kit.Factory
		want reconnectCounts
		// series, when set, checks the per-second series.
		series func(t *testing.T, s Series)
	}{{
		// Down for 1s, without a warm-up: warm from 1s. The connect sent
		// at 0 reaches the broker at 5ms, is refused at no cost and
		// learned of at 10ms; the next, sent 2s later at 2.010s, reaches
		// the warm broker at 2.015s, and the device learns it is served
		// at 2.020s.
		name: "served by a warm broker",
		c: func() reconnect {
			c := tinyBroker(3 * time.Second)
			c.Down, c.WarmUp = time.Second, 0
			return c
		}(),
		f: wait(2 * time.Second),
		want: reconnectCounts{Attempts: 2, FirstAttempts: 1, Served: 1, Accepted: 1, Refused: 1,
			WarmAt: time.Second, AllServed: ms(2020)},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []int{1, 0, 0}, s.FirstSent)
			assert.Equal(t, []int{0, 0, 1}, s.RetriesSent)
			assert.Equal(t, []int{1, 0, 0}, s.Failures)
			assert.Equal(t, []int{0, 0, 1}, s.Successes)
			assert.Equal(t, []float64{0, 10, 10}, s.Capacity)
			assert.Equal(t, []int{0, 0, 0}, s.Jobs, "the session opens at 2.015s, after the last whole second")
		},
	}, {
		// The connect sent at 0 is accepted cold at 5ms and dropped at
		// 105ms; the device learns so at 110ms, resets and reconnects at
		// once; the connect reaches the broker at 115ms, the instant the
		// run ends: it is not handled.
		name: "a cold accept is dropped, and reset reconnects at once",
		c:    tinyBroker(115 * time.Millisecond),
		f:    wait(time.Second),
		want: reconnectCounts{Attempts: 2, FirstAttempts: 1, Accepted: 1, AcceptedCold: 1, Dropped: 1, WarmAt: -1},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []int{1}, s.Failures, "the drop learned")
			assert.Equal(t, []int{1}, s.RetriesSent)
		},
	}, {
		// The same, a nanosecond longer: the second connect is accepted
		// cold at 115ms.
		name: "the reconnect reaches the broker 5ms after the reset",
		c:    tinyBroker(115*time.Millisecond + 1),
		f:    wait(time.Second),
		want: reconnectCounts{Attempts: 2, FirstAttempts: 1, Accepted: 2, AcceptedCold: 2, Dropped: 1, WarmAt: -1},
	}, {
		// Reset: every 110ms a connect is accepted cold, at 5ms, 115ms,
		// ..., 995ms: 10 accepts take the second's 100 units. The drops
		// at 105ms, ..., 985ms are learned of 5ms later; the last, at
		// 1.095s, is after the horizon.
		name: "reset over one second",
		c:    tinyBroker(time.Second),
		f:    wait(time.Second),
		want: reconnectCounts{Attempts: 10, FirstAttempts: 1, Accepted: 10, AcceptedCold: 10, Dropped: 9, WarmAt: -1},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []int{9}, s.Failures)
			assert.Equal(t, []int{0}, s.Jobs, "no session is open at 0")
		},
	}, {
		// Continue: the drop learned at 110ms is a failure; the device
		// waits 300ms and reconnects at 410ms, is accepted cold at 415ms
		// and dropped at 515ms, learns so at 520ms, reconnects at 820ms,
		// is dropped at 925ms and learns so at 930ms; its next connect,
		// at 1.230s, is after the horizon.
		name: "continue counts a drop as a failure",
		c: func() reconnect {
			c := tinyBroker(time.Second)
			c.OnDrop = dropContinue
			return c
		}(),
		f:    wait(300 * time.Millisecond),
		want: reconnectCounts{Attempts: 3, FirstAttempts: 1, Accepted: 3, AcceptedCold: 3, Dropped: 3, WarmAt: -1},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []int{3}, s.Failures)
		},
	}, {
		// Five devices send at 0 over a zero round trip to a broker of
		// 25 units a second, 2 a refusal: devices 0 and 1 are accepted
		// cold (15, then 5 units left), 2 and 3 refused (3, then 1 left),
		// 4 refused at the cost of the last unit. Their retries at 500ms
		// are refused at no cost, none being left, so that the warm-up of
		// 1 unit has none at 1s. At 1s, 2 and 3 are accepted cold (15,
		// 5) and 4 refused (3). 4's retry at 1.5s is refused (1 left).
		// At 2s the warm-up has 0+1 units: the broker is warm, and 4's
		// retry at 2s is accepted warm: it is served at once. The
		// sessions accepted cold last 10s.
		name: "refusals take what is left of the second",
		c: reconnect{Devices: 5, CPU: 25, Handshake: 10, Refusal: 2, WarmUp: 1,
			ColdDrop: 10 * time.Second, MaxAttempts: maxReconnectAttempts, Horizon: 2500 * time.Millisecond},
		f: wait(500 * time.Millisecond),
		want: reconnectCounts{Attempts: 13, FirstAttempts: 5, Served: 1, Accepted: 5, AcceptedCold: 4, Refused: 8,
			WarmAt: 2 * time.Second},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []int{5, 0, 0}, s.FirstSent)
			assert.Equal(t, []int{3, 4, 1}, s.RetriesSent)
			assert.Equal(t, []int{6, 2, 0}, s.Failures)
			assert.Equal(t, []int{0, 0, 1}, s.Successes)
			assert.Equal(t, []int{2, 4, 5}, s.Jobs)
			assert.Equal(t, []float64{2.5, 2.5, 2.5}, s.Capacity)
		},
	}, {
		// Down until 2s (Down 1.5s), then 100 units a second, a warm-up
		// of 250. The connect at 0 is refused at 5ms (down); the next, at
		// 4.990s, reaches the cold broker at 4.995s and is accepted cold
		// (90 units left). At 5s the warm-up has 100+100+90 units: warm.
		// The session is dropped at 5.095s; the device learns so at
		// 5.1s, reconnects, and is accepted warm at 5.105s, served at
		// 5.110s.
		name: "the second that completes the warm-up is still cold",
		c: func() reconnect {
			c := tinyBroker(6 * time.Second)
			c.Down, c.WarmUp = 1500*time.Millisecond, 250
			return c
		}(),
		f: wait(4980 * time.Millisecond),
		want: reconnectCounts{Attempts: 3, FirstAttempts: 1, Served: 1, Accepted: 2, AcceptedCold: 1, Dropped: 1, Refused: 1,
			WarmAt: 5 * time.Second, AllServed: ms(5110)},
		series: func(t *testing.T, s Series) {
			assert.Equal(t, []float64{0, 0, 10, 10, 10, 10}, s.Capacity)
			assert.Equal(t, []int{0, 0, 0, 0, 0, 1}, s.Jobs, "the cold session is open at 5s")
		},
	}, {
		// As above with a warm-up of 300: at 5s it has 290 units, and the
		// broker is cold. The device, reset at 5.1s, is accepted cold
		// every 110ms, at 5.105s, ..., 5.985s: 9 accepts leave 10 units,
		// which warm it up at 6s. The drop at 6.085s is learned of at
		// 6.090s, and the device is accepted warm at 6.095s, served at
		// 6.1s.
		name: "cold accepts delay the warm-up",
		c: func() reconnect {
			c := tinyBroker(7 * time.Second)
			c.Down, c.WarmUp = 1500*time.Millisecond, 300
			return c
		}(),
		f: wait(4980 * time.Millisecond),
		want: reconnectCounts{Attempts: 12, FirstAttempts: 1, Served: 1, Accepted: 11, AcceptedCold: 10, Dropped: 10, Refused: 1,
			WarmAt: 6 * time.Second, AllServed: ms(6100)},
	}, {
		// RefuseCold, a warm-up of 150: the connects at 0, 410ms and
		// 820ms are refused, 1 unit each (97 left at 1s), those at
		// 1.230s and 1.640s too (98 left at 2s): the broker is warm at
		// 2s, and the connect at 2.050s is accepted at 2.055s, served at
		// 2.060s.
		name: "refuse-cold refuses until warm",
		c: func() reconnect {
			c := tinyBroker(3 * time.Second)
			c.WarmUp, c.RefuseCold = 150, true
			return c
		}(),
		f: wait(400 * time.Millisecond),
		want: reconnectCounts{Attempts: 6, FirstAttempts: 1, Served: 1, Accepted: 1, Refused: 5,
			WarmAt: 2 * time.Second, AllServed: ms(2060)},
	}, {
		// Down all run: refused at 5ms, the device waits 100ms and sends
		// at 110ms, is refused at 115ms, learns so at 120ms and its
		// policy stops.
		name: "kit.ErrStop gives up",
		c: func() reconnect {
			c := tinyBroker(3 * time.Second)
			c.Down = 3 * time.Second
			return c
		}(),
		f:    failingFactory(2, func() (time.Duration, error) { return 0, kit.ErrStop }),
		want: reconnectCounts{Attempts: 2, FirstAttempts: 1, Refused: 2, GaveUp: 1, WarmAt: -1},
	}, {
		// A policy of zero delays against a broker that is down: the
		// device sends at 0, 10ms, 20ms, and gives up at its third
		// refusal, learned at 30ms.
		name: "the attempt limit gives up",
		c: func() reconnect {
			c := tinyBroker(3 * time.Second)
			c.Down, c.MaxAttempts = 3*time.Second, 3
			return c
		}(),
		f:    wait(0),
		want: reconnectCounts{Attempts: 3, FirstAttempts: 1, Refused: 3, GaveUp: 1, AtLimit: 1, WarmAt: -1},
	}} {
		t.Run(c.name, func(t *testing.T) {
			r := replayReconnect(t, c.c, c.f)
			assert.Equal(t, c.want, reconnectCountsOf(r))
			assert.InDelta(t, float64(c.want.Attempts)/float64(c.c.Devices), r.Amplification, 1e-12, "amplification")
			assert.InDelta(t, float64(c.want.Served)/float64(c.c.Devices), r.GoodputAfterTrigger, 1e-12, "goodput")
			if c.series != nil {
				c.series(t, r.Series)
			}
		})
	}
}

// TestReconnectResetJitter pins reset-jitter's wait: after the drop
// learned at 110ms, the device makes a new policy, whose first delay is
// 300ms, and waits u, the run's first draw (the spread is 0) mod 300ms:
// its connect reaches the broker at 115ms+u, when the run's horizon
// admits it.
func TestReconnectResetJitter(t *testing.T) {
	rng := rand.NewPCG(1, splitmix64(1))
	u := time.Duration(rng.Uint64() % uint64(300*time.Millisecond))
	made := 0
	f := func(kit.Device) kit.Policy { made++; return constantPolicy(300 * time.Millisecond) }
	for _, c := range []struct {
		horizon  time.Duration
		accepted int
	}{{115*time.Millisecond + u, 1}, {115*time.Millisecond + u + 1, 2}} {
		made = 0
		o := tinyBroker(c.horizon)
		o.OnDrop = dropResetJitter
		r := replayReconnect(t, o, f)
		assert.Equal(t, c.accepted, r.Accepted, "horizon %v (u = %v)", c.horizon, u)
		assert.Equal(t, 2, r.Attempts)
		assert.Equal(t, 2, made, "the device's policy and its reset's")
	}
}

// TestReconnectPolicyPerDevice checks that each device gets one policy at
// t=0, in device order, for its id and the run's boot time, and a new one
// at each reset.
func TestReconnectPolicyPerDevice(t *testing.T) {
	var made []string
	f := func(d kit.Device) kit.Policy {
		made = append(made, d.ID)
		assert.Equal(t, bootTime(1), d.Boot)
		return constantPolicy(time.Second)
	}
	o := tinyBroker(111 * time.Millisecond) // one drop learned, at 110ms
	o.Devices = 3
	o.CPU = 20 // devices 0 and 1 are accepted cold, 2 refused
	r := replayReconnect(t, o, f)
	assert.Equal(t, []string{deviceID(1, 0), deviceID(1, 1), deviceID(1, 2), deviceID(1, 0), deviceID(1, 1)}, made)
	assert.Equal(t, 2, r.Dropped)
	assert.Equal(t, 1, r.Refused)
}

// TestReconnectPolicyErrors checks that a failing policy stops the run with
// a DeviceError naming the device and the attempt.
func TestReconnectPolicyErrors(t *testing.T) {
	// Three devices refused by a broker down all run: each sends at 0,
	// learns of its refusal at 10ms and waits 100ms; device 0 asks for
	// its second delay, before attempt 3, first, at 120ms.
	o := tinyBroker(3 * time.Second)
	o.Devices, o.Down = 3, 3*time.Second
	id := deviceID(1, 0)
	for _, c := range []struct {
		name    string
		f       kit.Factory
		attempt int
		cause   StopCause
		msg     string
	}{
		{"panic", failingFactory(2, func() (time.Duration, error) { panic("boom") }), 3, StopPanic,
			"sim: run 0 (seed 1): device " + id + ": delay before attempt 3: after 2 connects, at 120ms: the policy panicked: boom"},
		{"negative delay", failingFactory(1, func() (time.Duration, error) { return -time.Second, nil }), 2, StopBadDelay,
			"sim: run 0 (seed 1): device " + id + ": delay before attempt 2: after 1 connects, at 10ms: delay -1s is negative"},
		{"error", failingFactory(1, func() (time.Duration, error) { return 0, errors.New("gone") }), 2, StopSourceError,
			"sim: run 0 (seed 1): device " + id + ": delay before attempt 2: after 1 connects, at 10ms: gone"},
		{"factory panic", func(kit.Device) kit.Policy { panic("no") }, 0, StopPanic,
			"sim: run 0 (seed 1): device " + id + ": making its policy: after 0 connects, at 0s: the factory panicked: no"},
		{"nil policy", func(kit.Device) kit.Policy { return nil }, 0, StopSourceError,
			"sim: run 0 (seed 1): device " + id + ": making its policy: after 0 connects, at 0s: the factory returned a nil policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := newReconnectEngine(o, c.f)
			require.NoError(t, err)
			_, err = e.replay(0, 1)
			var de *DeviceError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, id, de.Device)
			assert.Equal(t, c.attempt, de.Attempt)
			assert.Equal(t, c.cause, de.Cause)
			assert.Equal(t, c.msg, err.Error())
		})
	}
}

// TestReconnectValidate checks that out-of-range fields are refused, named.
func TestReconnectValidate(t *testing.T) {
	require.NoError(t, defaultReconnect().validate())
	for _, c := range []struct {
		change func(*reconnect)
		want   string
	}{
		{func(c *reconnect) { c.Devices = 0 }, "devices 0 is not between 1 and 1,000,000"},
		{func(c *reconnect) { c.Devices = 1_000_001 }, "devices 1000001 is not between 1"},
		{func(c *reconnect) { c.Horizon = 0 }, "horizon 0s is not in (0, 744h0m0s]"},
		{func(c *reconnect) { c.Horizon = 32 * 24 * time.Hour }, "horizon 768h0m0s"},
		{func(c *reconnect) { c.Spread = -1 }, "spread -1ns is not between 0 and the horizon 5m0s"},
		{func(c *reconnect) { c.Spread = 301 * time.Second }, "spread 5m1s"},
		{func(c *reconnect) { c.RTT = -1 }, "round trip -1ns"},
		{func(c *reconnect) { c.Down = -time.Second }, "down -1s is not between 0 and the horizon"},
		{func(c *reconnect) { c.Down = 301 * time.Second }, "down 5m1s"},
		{func(c *reconnect) { c.CPU = 0 }, "cpu 0 units a second is not between 1 and 1e12"},
		{func(c *reconnect) { c.CPU = 2e12 }, "cpu 2000000000000 units"},
		{func(c *reconnect) { c.Handshake = 0 }, "handshake 0 units is not between 1 and 1e12"},
		{func(c *reconnect) { c.Refusal = -1 }, "refusal -1 units is not between 0 and 1e12"},
		{func(c *reconnect) { c.WarmUp = -1 }, "warm-up -1 units is not between 0 and 1e12"},
		{func(c *reconnect) { c.ColdDrop = -1 }, "cold drop -1ns"},
		{func(c *reconnect) { c.OnDrop = 3 }, "on drop onDrop(3) is not reset, reset-jitter or continue"},
		{func(c *reconnect) { c.MaxAttempts = 0 }, "max attempts 0 is not between 1 and 1,000,000"},
		{func(c *reconnect) { c.Devices, c.MaxAttempts = 20_000, 1_000_000 }, "devices 20000 times max attempts 1000000 is more than 10,000,000,000 connects"},
	} {
		t.Run(c.want, func(t *testing.T) {
			o := defaultReconnect()
			c.change(&o)
			var ce *kit.ConfigError
			err := o.validate()
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), c.want)
			_, err = newReconnectEngine(o, constantFactory(0))
			assert.ErrorAs(t, err, &ce, "the engine refuses it too")
		})
	}
}

// TestOnDropString checks the names of the OnDrop choices.
func TestOnDropString(t *testing.T) {
	assert.Equal(t, "reset", dropReset.String())
	assert.Equal(t, "reset-jitter", dropResetJitter.String())
	assert.Equal(t, "continue", dropContinue.String())
	assert.Equal(t, "onDrop(-1)", onDrop(-1).String())
}

// TestReconnectDeterministic checks that a run depends only on its seed:
// the same on one engine replayed again and on a new one, and another
// seed's differs.
func TestReconnectDeterministic(t *testing.T) {
	c := defaultReconnect()
	c.OnDrop, c.Horizon = dropResetJitter, 60*time.Second
	f := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	e, err := newReconnectEngine(c, f)
	require.NoError(t, err)
	a, err := e.replay(0, 42)
	require.NoError(t, err)
	_, err = e.replay(1, 43)
	require.NoError(t, err)
	b, err := e.replay(0, 42)
	require.NoError(t, err)
	require.Equal(t, a, b, "replayed again on the same engine")
	g, err := newReconnectEngine(c, f)
	require.NoError(t, err)
	d, err := g.replay(0, 42)
	require.NoError(t, err)
	require.Equal(t, a, d, "on a new engine")
	other, err := g.replay(0, 43)
	require.NoError(t, err)
	assert.NotEqual(t, a.Attempts, other.Attempts, "seed 43 against seed 42")
}

// TestReconnectLearnsAtOnce replays the default reconnect, shortened, for
// each OnDrop that lets a device learn as soon as the broker's event that
// tells it is known (atOnce), with and without RefuseCold and with a
// spec that starts over on a success, once learning at once and once
// with learning as events, and requires the same figures.
func TestReconnectLearnsAtOnce(t *testing.T) {
	for _, od := range []onDrop{dropReset, dropContinue} {
		for _, refuse := range []bool{false, true} {
			for _, reset := range []kit.ResetRule{kit.ResetNever, kit.ResetOnSuccess} {
				t.Run(fmt.Sprintf("%v/refuse-cold=%v/reset=%v", od, refuse, reset), func(t *testing.T) {
					c := defaultReconnect()
					c.OnDrop, c.RefuseCold, c.Horizon = od, refuse, 60*time.Second
					f := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second, Reset: reset}.Factory()
					once, err := newReconnectEngine(c, f)
					require.NoError(t, err)
					require.True(t, once.atOnce, "a spec's devices learn at once")
					events, err := newReconnectEngine(c, f)
					require.NoError(t, err)
					events.atOnce = false
					for run := range 2 {
						seed := runSeed(3, run)
						want, err := events.replay(run, seed)
						require.NoError(t, err)
						got, err := once.replay(run, seed)
						require.NoError(t, err)
						require.Equal(t, want, got, "seed %d: learning at once (+) against as events (-)", seed)
					}
				})
			}
		}
	}
}

// TestReconnectDefaults checks the claim the model is for: at the
// defaults, devices that reset their backoff when the broker drops a cold
// session keep it cold, and none is served in 300s; counting the drop as
// a failure (continue), or refusing connects while cold, serves them all.
//
// Over 30 runs (seeds runSeed(1, 0..29)) with full jitter from 1s, capped
// at 30s: with reset the broker accepted 200 connects a second, all cold,
// from 5s to the horizon (59,000), and never warmed; with continue it
// warmed at 25s (median; 24s to 27s) and served all by 55s; with
// RefuseCold it warmed at 8s and served all by 41s. Decorrelated jitter
// behaves the same (warm at 42s with continue, at 8s with RefuseCold).
// Without jitter (none) the whole fleet sends in step, at about 0,
// 1.05s, 3.1s and 7.15s: the broker, up from 5s, has no connect in its
// first two seconds, warms up on them at 7s, and serves 200 devices of
// each burst from 7.175s on, all by 242s, whatever OnDrop says: the
// synchronized retries leave it the idle seconds it needs to warm up.
func TestReconnectDefaults(t *testing.T) {
	runs := 5
	if testing.Short() {
		runs = 1
	}
	spec := func(s kit.Strategy) kit.Factory {
		return kit.Spec{Strategy: s, Base: time.Second, Cap: 30 * time.Second}.Factory()
	}
	for _, c := range []struct {
		name     string
		f        kit.Factory
		onDrop   onDrop
		refuse   bool
		allOrNil bool // all served, or none
	}{
		{"full/reset", spec(kit.Full), dropReset, false, false},
		{"full/continue", spec(kit.Full), dropContinue, false, true},
		{"full/refuse-cold", spec(kit.Full), dropReset, true, true},
		{"decorrelated/reset", spec(kit.Decorrelated), dropReset, false, false},
		{"decorrelated/continue", spec(kit.Decorrelated), dropContinue, false, true},
		{"decorrelated/refuse-cold", spec(kit.Decorrelated), dropReset, true, true},
		{"none/reset", spec(kit.None), dropReset, false, true},
		{"none/continue", spec(kit.None), dropContinue, false, true},
		{"none/refuse-cold", spec(kit.None), dropReset, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := defaultReconnect()
			o.OnDrop, o.RefuseCold = c.onDrop, c.refuse
			e, err := newReconnectEngine(o, c.f)
			require.NoError(t, err)
			for run := range runs {
				r, err := e.replay(run, runSeed(1, run))
				require.NoError(t, err)
				if !c.allOrNil {
					assert.Equal(t, 0, r.Served, "run %d (seed %d): served", run, r.Seed)
					assert.Equal(t, -time.Duration(1), r.WarmAt, "run %d (seed %d): warm at", run, r.Seed)
					assert.Equal(t, 59_000, r.AcceptedCold, "run %d (seed %d): 200 a second from 5s, all cold", run, r.Seed)
					continue
				}
				assert.Equal(t, o.Devices, r.Served, "run %d (seed %d): served", run, r.Seed)
				assert.Positive(t, r.AllServed, "run %d (seed %d): all served at", run, r.Seed)
				assert.GreaterOrEqual(t, r.WarmAt, 7*time.Second, "run %d (seed %d): warm at", run, r.Seed)
				if c.refuse {
					assert.Zero(t, r.AcceptedCold, "run %d (seed %d): accepted cold", run, r.Seed)
				}
				if run == 0 {
					t.Logf("run 0: warm at %v, all served at %v, %d attempts, %d accepted, %d dropped, %d refused",
						r.WarmAt, r.AllServed, r.Attempts, r.Accepted, r.Dropped, r.Refused)
				}
			}
		})
	}
}

// An outcomePolicy records the outcomes it observes, and gives a constant
// delay.
type outcomePolicy struct {
	d    time.Duration
	seen *[]kit.Outcome
}

func (p outcomePolicy) Next() (time.Duration, error) { return p.d, nil }

func (p outcomePolicy) Observe(o kit.Outcome) { *p.seen = append(*p.seen, o) }

// TestReconnectObserve checks what a kit.Observer learns: a refusal is a
// Rejection, a drop is a Success (the accept) then a Drop, and a warm
// accept a Success; and that a built-in policy which resets on a success
// gives the same runs on the engine's fast path as through its interface.
func TestReconnectObserve(t *testing.T) {
	c := defaultReconnect()
	c.Devices, c.CPU, c.WarmUp, c.Down, c.Horizon, c.OnDrop = 1, 100, 150, time.Second, 20*time.Second, dropContinue
	var seen []kit.Outcome
	e, err := newReconnectEngine(c, func(kit.Device) kit.Policy { return outcomePolicy{time.Second, &seen} })
	require.NoError(t, err)
	r, err := e.replay(0, 1)
	require.NoError(t, err)
	require.Equal(t, 1, r.Served)
	// Down for 1s, the first connect is refused; the broker then accepts
	// connects while it warms up on the units they leave, drops the two it
	// accepts cold, and serves the device once warm.
	assert.Equal(t, []kit.Outcome{kit.Rejection, kit.Success, kit.Drop, kit.Success, kit.Drop, kit.Success}, seen)

	for _, onDrop := range []onDrop{dropContinue, dropReset, dropResetJitter} {
		c := defaultReconnect()
		c.OnDrop, c.Horizon = onDrop, 60*time.Second
		spec := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second, Reset: kit.ResetOnSuccess}
		fast, err := newReconnectEngine(c, spec.Factory())
		require.NoError(t, err)
		a, err := fast.replay(0, 7)
		require.NoError(t, err)
		slow, err := newReconnectEngine(c, general(spec.Factory()))
		require.NoError(t, err)
		b, err := slow.replay(0, 7)
		require.NoError(t, err)
		assert.Equal(t, a, b, "on-drop %v: the fast path and the interface agree", onDrop)
		if onDrop == dropContinue {
			spec.Reset = kit.ResetNever
			never, err := newReconnectEngine(c, spec.Factory())
			require.NoError(t, err)
			n, err := never.replay(0, 7)
			require.NoError(t, err)
			assert.NotEqual(t, a.Attempts, n.Attempts, "a reset on each accept changes the devices' connects")
		}
	}
}
