package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// oracleReconnect replays run number run, of seed seed, of the reconnect c
// the obvious way, as the reference for reconnectEngine: every event (the
// broker's whole seconds, sends, arrivals with their send time, drops,
// what the devices learn, the samples of each whole second) in one
// container/heap, ordered by time, then kind, then send time, then
// device; a device's state in a struct; the policies called through
// their interface.
func oracleReconnect(c reconnect, f kit.Factory, run int, seed uint64) (reconnectRun, error) {
	if err := c.validate(); err != nil {
		return reconnectRun{}, err
	}
	horizon := int64(c.Horizon)
	out := int64(c.RTT) / 2
	back := int64(c.RTT) - out
	sec := int64(time.Second)
	downEnd := int64(c.Down) / sec * sec
	if downEnd < int64(c.Down) {
		downEnd += sec
	}
	boot := bootTime(seed)
	rng := rand.NewPCG(seed, splitmix64(seed))

	type device struct {
		id     string
		policy kit.Policy
		sent   int
	}
	devs := make([]*device, c.Devices)
	var q rcOracleQueue
	fail := func(i, attempt int, t int64, cause StopCause, err error) error {
		return reconnectError(run, seed, devs[i].id, attempt, devs[i].sent, t, cause, err)
	}
	for i := range devs {
		devs[i] = &device{id: deviceID(seed, i)}
		p, cause, err := oracleMakePolicy(f, kit.Device{ID: devs[i].id, Boot: boot})
		if err != nil {
			return reconnectRun{}, fail(i, 0, 0, cause, err)
		}
		devs[i].policy = p
		var t int64
		if c.Spread > 0 {
			t = int64(rng.Uint64() % uint64(c.Spread))
		}
		heap.Push(&q, rcOracleEvent{t: t, kind: rcoSend, dev: i})
	}
	seconds := c.seconds()
	for s := range seconds {
		heap.Push(&q, rcOracleEvent{t: int64(s) * sec, kind: rcoSecond})
		heap.Push(&q, rcOracleEvent{t: int64(s) * sec, kind: rcoSample})
	}

	r := reconnectRun{Seed: seed, Devices: c.Devices, WarmAt: -1, Series: newSeries(seconds)}
	for s := range seconds {
		if int64(s)*sec >= downEnd {
			r.Series.Capacity[s] = float64(c.CPU) / float64(c.Handshake)
		}
	}
	var left, warmedUp int64
	warm := false
	open := 0

	// giveUp reports whether device i has sent its last connect.
	giveUp := func(i int) bool {
		if devs[i].sent < c.MaxAttempts {
			return false
		}
		r.GaveUp++
		r.AtLimit++
		return true
	}
	// next asks device i's policy for its next delay at t; ok is false
	// when it stops.
	next := func(i int, t int64) (d int64, ok bool, err error) {
		delay, err := devs[i].policy.Next()
		switch {
		case errors.Is(err, kit.ErrStop):
			r.GaveUp++
			return 0, false, nil
		case err != nil:
			return 0, false, fail(i, devs[i].sent+1, t, causeOf(err), err)
		case delay < 0:
			return 0, false, fail(i, devs[i].sent+1, t, StopBadDelay, negativeDelay(delay))
		}
		return int64(delay), true, nil
	}
	// failed handles a failure of device i learned at t.
	failed := func(i int, t int64) error {
		if giveUp(i) {
			return nil
		}
		d, ok, err := next(i, t)
		if err != nil || !ok {
			return err
		}
		if d < horizon-t {
			heap.Push(&q, rcOracleEvent{t: t + d, kind: rcoSend, dev: i})
		}
		return nil
	}

	for q.Len() > 0 {
		ev := heap.Pop(&q).(rcOracleEvent)
		t, i := ev.t, ev.dev
		if t >= horizon {
			break
		}
		switch ev.kind {
		case rcoSecond:
			if t < downEnd {
				continue
			}
			if !warm {
				if t > downEnd {
					warmedUp += left // the second that ends now
				}
				if warmedUp >= c.WarmUp {
					warm = true
					r.WarmAt = time.Duration(t)
				}
			}
			left = c.CPU
		case rcoSend:
			if devs[i].sent == 0 {
				r.FirstAttempts++
				r.Series.FirstSent[t/sec]++
			} else {
				r.Series.RetriesSent[t/sec]++
			}
			devs[i].sent++
			r.Attempts++
			heap.Push(&q, rcOracleEvent{t: t + out, kind: rcoArrive, sent: t, dev: i})
		case rcoArrive:
			r.Series.Arrivals[t/sec]++
			if devs[i].sent > 1 {
				r.Series.RetryArrivals[t/sec]++
			}
			accept := t >= downEnd && left >= c.Handshake && (warm || !c.RefuseCold)
			switch {
			case accept && warm:
				left -= c.Handshake
				r.Accepted++
				open++
				heap.Push(&q, rcOracleEvent{t: t + back, kind: rcoReply, dev: i, served: true})
			case accept:
				left -= c.Handshake
				r.Accepted++
				r.AcceptedCold++
				open++
				heap.Push(&q, rcOracleEvent{t: t + int64(c.ColdDrop), kind: rcoDrop, dev: i})
			default:
				if t >= downEnd {
					left -= min(left, c.Refusal)
				}
				r.Refused++
				heap.Push(&q, rcOracleEvent{t: t + back, kind: rcoReply, dev: i})
			}
		case rcoDrop:
			r.Dropped++
			open--
			heap.Push(&q, rcOracleEvent{t: t + back, kind: rcoDropped, dev: i})
		case rcoReply:
			if !ev.served {
				r.Series.Failures[t/sec]++
				if err := failed(i, t); err != nil {
					return reconnectRun{}, err
				}
				continue
			}
			r.Served++
			r.Series.Successes[t/sec]++
			if r.Served == c.Devices {
				r.AllServed = time.Duration(t)
			}
		case rcoDropped:
			r.Series.Failures[t/sec]++
			if c.OnDrop == dropContinue {
				if err := failed(i, t); err != nil {
					return reconnectRun{}, err
				}
				continue
			}
			if giveUp(i) {
				continue
			}
			p, cause, err := oracleMakePolicy(f, kit.Device{ID: devs[i].id, Boot: boot})
			if err != nil {
				return reconnectRun{}, fail(i, 0, t, cause, err)
			}
			devs[i].policy = p
			wait := int64(0)
			if c.OnDrop == dropResetJitter {
				d, ok, err := next(i, t)
				if err != nil {
					return reconnectRun{}, err
				}
				if !ok {
					continue
				}
				if d > 0 {
					wait = int64(rng.Uint64() % uint64(d))
				}
			}
			if t+wait < horizon {
				heap.Push(&q, rcOracleEvent{t: t + wait, kind: rcoSend, dev: i})
			}
		case rcoSample:
			r.Series.Jobs[t/sec] = open
		}
	}
	r.summarize(c)
	return r, nil
}

// The kinds of the oracle's events, in their order within an instant.
const (
	rcoSecond = iota
	rcoDrop
	rcoArrive
	rcoDropped
	rcoReply // a refusal or a warm accept learned
	rcoSend
	rcoSample
)

type rcOracleEvent struct {
	t    int64
	kind int
	sent int64 // an arrival's send time
	dev  int
	// served tells a warm accept learned from a refusal.
	served bool
}

type rcOracleQueue []rcOracleEvent

func (q rcOracleQueue) Len() int { return len(q) }
func (q rcOracleQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	switch {
	case a.t != b.t:
		return a.t < b.t
	case a.kind != b.kind:
		return a.kind < b.kind
	case a.sent != b.sent:
		return a.sent < b.sent
	}
	return a.dev < b.dev
}
func (q rcOracleQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *rcOracleQueue) Push(x any)   { *q = append(*q, x.(rcOracleEvent)) }
func (q *rcOracleQueue) Pop() any {
	old := *q
	ev := old[len(old)-1]
	*q = old[:len(old)-1]
	return ev
}

// drawReconnect draws a small reconnect from rng over the model's whole
// range, biased to ties: times on a 5ms grid as often as not, zero round
// trips, spreads, drops and refusal costs, tiny CPUs, odd horizons,
// RefuseCold and every OnDrop; and a factory to replay it with, and its
// name. Factories of zero delays come with a small MaxAttempts.
func drawReconnect(rng *rand.Rand) (reconnect, string, func() kit.Factory) {
	grid := rng.IntN(2) == 0
	dur := func(max time.Duration) time.Duration {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return time.Duration(rng.IntN(4)) // 0 to 3ns: RTT/2 rounds down
		}
		if grid {
			return 5 * time.Millisecond * time.Duration(rng.Int64N(int64(max/(5*time.Millisecond))+1))
		}
		return time.Duration(rng.Int64N(int64(max) + 1))
	}
	c := reconnect{
		Devices:     1 + rng.IntN(40),
		Spread:      dur(300 * time.Millisecond),
		RTT:         dur(200 * time.Millisecond),
		Down:        dur(3 * time.Second),
		CPU:         1 + rng.Int64N(300),
		Handshake:   1 + rng.Int64N(20),
		Refusal:     rng.Int64N(4),
		ColdDrop:    dur(400 * time.Millisecond),
		RefuseCold:  rng.IntN(3) == 0,
		OnDrop:      onDrop(rng.IntN(int(onDrops))),
		MaxAttempts: maxReconnectAttempts,
		Horizon:     time.Second + dur(15*time.Second),
	}
	if rng.IntN(4) == 0 {
		c.Horizon = time.Duration(1 + rng.Int64N(int64(20*time.Second)))
	}
	if rng.IntN(5) > 0 {
		c.WarmUp = rng.Int64N(3*c.CPU + 1)
	}
	c.Spread = min(c.Spread, c.Horizon)
	c.Down = min(c.Down, c.Horizon)
	if rng.IntN(4) == 0 {
		c.MaxAttempts = 1 + rng.IntN(20)
	}
	fixed := func(f kit.Factory) func() kit.Factory { return func() kit.Factory { return f } }
	switch k := rng.IntN(8); k {
	case 0:
		return c, "full", fixed(kit.Spec{Strategy: kit.Full, Base: 10 * time.Millisecond, Cap: time.Second}.Factory())
	case 1:
		return c, "none", fixed(kit.Spec{Strategy: kit.None, Base: 50 * time.Millisecond, Cap: 2 * time.Second}.Factory())
	case 2:
		return c, "decorrelated", fixed(kit.Spec{Strategy: kit.Decorrelated, Base: 20 * time.Millisecond, Cap: time.Second}.Factory())
	case 3:
		c.MaxAttempts = min(c.MaxAttempts, 1+rng.IntN(200))
		return c, "zero", fixed(constantFactory(0))
	case 4:
		return c, "grid", fixed(constantFactory(5 * time.Millisecond * time.Duration(1+rng.IntN(20))))
	case 5:
		return c, "shared", sharedFactory
	case 6:
		return c, "stops", fixed(failingFactory(1+rng.IntN(5), func() (time.Duration, error) { return 0, kit.ErrStop }))
	default:
		return c, "equal", fixed(kit.Spec{Strategy: kit.Equal, Base: 10 * time.Millisecond, Cap: 500 * time.Millisecond}.Factory())
	}
}

// TestReconnectMatchesOracle replays small random reconnects (see
// drawReconnect) on reconnectEngine and on the oracle, three runs each on
// one engine, and requires identical figures.
func TestReconnectMatchesOracle(t *testing.T) {
	// The oracle is slow under the race detector, which CI runs with
	// -short: fewer cases there.
	cases := 600
	if testing.Short() {
		cases = 60
	}
	for k := range cases {
		rng := rand.New(rand.NewPCG(uint64(k), 2026))
		c, name, factory := drawReconnect(rng)
		e, err := newReconnectEngine(c, factory())
		require.NoError(t, err, "case %d: %+v", k, c)
		for run := range 3 {
			seed := runSeed(uint64(k), run)
			if name == "shared" {
				e, err = newReconnectEngine(c, factory())
				require.NoError(t, err)
			}
			got, err := e.replay(run, seed)
			require.NoError(t, err, "case %d", k)
			want, err := oracleReconnect(c, factory(), run, seed)
			require.NoError(t, err, "case %d", k)
			require.Equal(t, want, got, "case %d (%s, %+v), seed %d (run %d): engine (+) against the oracle (-)", k, name, c, seed, run)
		}
	}
}

// TestReconnectMatchesOracleAtDefaults replays the defaults, shortened, on
// both, for each OnDrop and with RefuseCold.
func TestReconnectMatchesOracleAtDefaults(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, od := range []onDrop{dropReset, dropResetJitter, dropContinue} {
		for _, refuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/refuse-cold=%v", od, refuse), func(t *testing.T) {
				c := defaultReconnect()
				c.OnDrop, c.RefuseCold, c.Horizon = od, refuse, 60*time.Second
				e, err := newReconnectEngine(c, full)
				require.NoError(t, err)
				for run := range 2 {
					seed := runSeed(7, run)
					got, err := e.replay(run, seed)
					require.NoError(t, err)
					want, err := oracleReconnect(c, full, run, seed)
					require.NoError(t, err)
					require.Equal(t, want, got, "seed %d: engine (+) against the oracle (-)", seed)
				}
			})
		}
	}
}

// TestReconnectErrorsMatchOracle requires the same error from the engine
// and the oracle for each way a policy can fail, on a first connect's
// refusal and on a drop.
func TestReconnectErrorsMatchOracle(t *testing.T) {
	c := defaultReconnect()
	c.Devices, c.Horizon = 50, 30*time.Second
	same := func(f kit.Factory) func() kit.Factory { return func() kit.Factory { return f } }
	for _, x := range []struct {
		name    string
		od      onDrop
		factory func() kit.Factory // a new one for each replay
		cause   StopCause
	}{
		{"policy panics", dropContinue, same(failingFactory(2, func() (time.Duration, error) { panic("boom") })), StopPanic},
		{"negative delay", dropContinue, same(failingFactory(3, func() (time.Duration, error) { return -time.Second, nil })), StopBadDelay},
		{"source fails", dropContinue, same(failingFactory(1, func() (time.Duration, error) { return 0, errors.New("source gone") })), StopSourceError},
		{"reset-jitter's first delay panics", dropResetJitter, func() kit.Factory {
			return madeAfter(50, func() kit.Policy { return policyFunc(func() (time.Duration, error) { panic("first") }) })
		}, StopPanic},
		{"factory panics", dropReset, same(func(kit.Device) kit.Policy { panic("no policy") }), StopPanic},
		{"nil policy", dropReset, same(func(kit.Device) kit.Policy { return nil }), StopSourceError},
		{"factory panics on a reset", dropReset, func() kit.Factory {
			return madeAfter(50, func() kit.Policy { panic("out of policies") })
		}, StopPanic},
	} {
		t.Run(x.name, func(t *testing.T) {
			c := c
			c.OnDrop = x.od
			e, err := newReconnectEngine(c, x.factory())
			require.NoError(t, err)
			_, got := e.replay(1, 7)
			_, want := oracleReconnect(c, x.factory(), 1, 7)
			var de *DeviceError
			require.ErrorAs(t, got, &de)
			require.Equal(t, x.cause, de.Cause, "%v", got)
			require.EqualError(t, got, want.Error())
		})
	}
}

// madeAfter returns a factory whose first n policies wait 100ms, and
// whose later ones then makes: with n devices, those of the resets. Each
// factory counts its own.
func madeAfter(n int, then func() kit.Policy) kit.Factory {
	made := 0
	return func(kit.Device) kit.Policy {
		if made++; made > n {
			return then()
		}
		return constantPolicy(100 * time.Millisecond)
	}
}
