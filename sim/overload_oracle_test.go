package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// oracleOverload replays run number run, of seed seed, of the overload o
// the obvious way, as the reference for overloadEngine: every event of
// every attempt (send, arrival, completion, answer, rejection, deadline,
// the samples of each whole second) in one container/heap, ordered by
// time, then kind, then request; the first attempts all drawn up front; a
// policy made from the factory for every request, and called for every
// retry; and the capacity integrated piece by piece from the profile's
// corners, in seconds.
func oracleOverload(o overload, f kit.Factory, run int, seed uint64) (overloadRun, error) {
	if err := o.validate(); err != nil {
		return overloadRun{}, err
	}
	horizon := int64(o.Horizon)
	out := int64(o.RTT) / 2
	back := int64(o.RTT) - out
	timeout := int64(o.Timeout)
	boot := bootTime(seed)

	type request struct {
		device   int
		offered  int64 // the first attempt's send time
		attempts int
		sent     int64 // the last attempt's send time
		resolved bool  // the last attempt has its outcome
		policy   kit.Policy
	}
	var reqs []*request
	var q oracleQueue

	// The first attempts.
	rng := rand.NewPCG(seed, splitmix64(seed))
	var t int64
	for k := 0; ; k++ {
		var device int
		if o.schedule != nil {
			if k == len(o.schedule) {
				break
			}
			t, device = int64(o.schedule[k]), k%o.Devices
		} else {
			u := float64(rng.Uint64()>>11) / (1 << 53)
			t += int64(math.Round(-math.Log(1-u) * 1e9 / o.Rate))
			device = int(rng.Uint64() % uint64(o.Devices))
		}
		if t >= horizon {
			break
		}
		reqs = append(reqs, &request{device: device, offered: t})
		heap.Push(&q, oracleEvent{t, oracleSend, k, 1})
	}
	seconds := o.seconds()
	for i := range seconds {
		heap.Push(&q, oracleEvent{int64(i) * nsPerSec, oracleSample, 0, 0})
	}

	r := overloadRun{Seed: seed, Series: newSeries(seconds)}
	for i := range seconds {
		r.Series.Capacity[i] = oracleCapacity(o, float64(i))
	}

	type job struct {
		req, attempt int
		deadline     int64
	}
	var queue []job
	var working bool
	var current job
	inSystem := func() int {
		if working {
			return len(queue) + 1
		}
		return len(queue)
	}
	fail := func(k, attempt int, t int64, cause StopCause, err error) error {
		return overloadError(run, seed, deviceID(seed, reqs[k].device), k, attempt, t, cause, err)
	}
	// start starts the next job at t, skipping those that cannot be
	// answered in time with DropExpired.
	start := func(t int64) {
		for len(queue) > 0 {
			j := queue[0]
			queue = queue[1:]
			done := oracleFinish(o, t)
			if o.DropExpired && done+back > j.deadline {
				r.Skipped++
				continue
			}
			working, current = true, j
			heap.Push(&q, oracleEvent{done, oracleDone, j.req, j.attempt})
			return
		}
	}
	// failed handles a failure of request k's attempt, learned at t.
	failed := func(k int, t int64) error {
		rq := reqs[k]
		rq.resolved = true
		r.Series.Failures[t/nsPerSec]++
		if rq.attempts == 1+o.Retries {
			r.Exhausted++
			return nil
		}
		d, err := rq.policy.Next()
		switch {
		case errors.Is(err, kit.ErrStop):
			r.Stopped++
			return nil
		case err != nil:
			return fail(k, rq.attempts+1, t, causeOf(err), err)
		case d < 0:
			return fail(k, rq.attempts+1, t, StopBadDelay, negativeDelay(d))
		}
		if int64(d) < horizon-t {
			heap.Push(&q, oracleEvent{t + int64(d), oracleSend, k, rq.attempts + 1})
		}
		return nil
	}

	for q.Len() > 0 {
		ev := heap.Pop(&q).(oracleEvent)
		if ev.t >= horizon {
			break
		}
		t, k := ev.t, ev.req
		switch ev.kind {
		case oracleSend:
			rq := reqs[k]
			if ev.attempt == 1 {
				p, cause, err := oracleMakePolicy(f, kit.Device{ID: deviceID(seed, rq.device), Boot: boot})
				if err != nil {
					return overloadRun{}, fail(k, 0, t, cause, err)
				}
				rq.policy = p
				r.Requests++
				r.Series.FirstSent[t/nsPerSec]++
				if t >= int64(o.DipStart) {
					r.RequestsFromTrigger++
				}
				if t >= int64(o.DipStart+o.DipLength) {
					r.RequestsAfterTrigger++
				}
			} else {
				r.Series.RetriesSent[t/nsPerSec]++
			}
			r.Attempts++
			if t >= int64(o.DipStart) {
				r.AttemptsFromTrigger++
			}
			rq.attempts, rq.sent, rq.resolved = ev.attempt, t, false
			heap.Push(&q, oracleEvent{t + out, oracleArrive, k, ev.attempt})
			heap.Push(&q, oracleEvent{t + timeout, oracleDeadline, k, ev.attempt})
		case oracleArrive:
			r.Arrived++
			r.Series.Arrivals[t/1e9]++
			if ev.attempt > 1 {
				r.Series.RetryArrivals[t/1e9]++
			}
			deadline := t - out + timeout
			if o.QueueLimit > 0 && inSystem() >= o.QueueLimit {
				heap.Push(&q, oracleEvent{t + back, oracleReject, k, ev.attempt})
				continue
			}
			queue = append(queue, job{k, ev.attempt, deadline})
			if !working {
				start(t)
			}
		case oracleDone:
			r.Served++
			if t+back > current.deadline {
				r.Late++
			}
			heap.Push(&q, oracleEvent{t + back, oracleAnswer, k, ev.attempt})
			working = false
			start(t)
		case oracleAnswer:
			rq := reqs[k]
			if rq.attempts != ev.attempt || rq.resolved || t > rq.sent+timeout {
				continue // too late: the attempt has timed out
			}
			rq.resolved = true
			rq.policy = nil
			r.Successes++
			r.Series.Successes[t/nsPerSec]++
			if rq.offered >= int64(o.DipStart+o.DipLength) {
				r.SuccessesAfterTrigger++
			}
		case oracleReject:
			rq := reqs[k]
			if rq.attempts != ev.attempt || rq.resolved || t > rq.sent+timeout {
				continue // too late: the attempt has timed out
			}
			r.Rejections++
			if err := failed(k, t); err != nil {
				return overloadRun{}, err
			}
		case oracleDeadline:
			rq := reqs[k]
			if rq.attempts != ev.attempt || rq.resolved {
				continue
			}
			r.Timeouts++
			if err := failed(k, t); err != nil {
				return overloadRun{}, err
			}
		case oracleSample:
			r.Series.Jobs[t/nsPerSec] = inSystem()
		}
	}
	r.JobsAtEnd = inSystem()
	r.summarize(o)
	return r, nil
}

// The kinds of the oracle's events, in their order within an instant.
const (
	oracleDone = iota
	oracleArrive
	oracleAnswer
	oracleReject
	oracleDeadline
	oracleSend
	oracleSample
)

type oracleEvent struct {
	t       int64
	kind    int
	req     int
	attempt int
}

type oracleQueue []oracleEvent

func (q oracleQueue) Len() int { return len(q) }
func (q oracleQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.req < b.req
}
func (q oracleQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *oracleQueue) Push(x any)   { *q = append(*q, x.(oracleEvent)) }
func (q *oracleQueue) Pop() any {
	old := *q
	ev := old[len(old)-1]
	*q = old[:len(old)-1]
	return ev
}

// oracleMakePolicy calls the factory as the engine does, turning a panic or
// a nil policy into an error and its cause.
func oracleMakePolicy(f kit.Factory, d kit.Device) (p kit.Policy, cause StopCause, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, cause, err = nil, StopPanic, fmt.Errorf("the factory panicked: %v", r)
		}
	}()
	p = f(d)
	if p == nil {
		return nil, StopSourceError, errors.New("the factory returned a nil policy")
	}
	return recoveringPolicy{p}, 0, nil
}

// recoveringPolicy turns a panic of its policy into an error.
type recoveringPolicy struct{ p kit.Policy }

func (r recoveringPolicy) Next() (time.Duration, error) { return callPolicy(r.p) }

// oracleCorners returns the capacity profile of o as its corners: times in
// seconds and the capacity there, in jobs per second, linear in between;
// the capacity is constant after the last corner. Two corners at one time
// are a step.
func oracleCorners(o overload) (at, c []float64) {
	t0 := o.DipStart.Seconds()
	t1 := (o.DipStart + o.DipLength).Seconds()
	t2 := (o.DipStart + o.DipLength + o.Ramp).Seconds()
	low := o.DipFraction * o.Capacity
	return []float64{0, t0, t0, t1, t2}, []float64{o.Capacity, o.Capacity, low, low, o.Capacity}
}

// oracleCapacity returns the capacity at t seconds, taking the later
// corner's value at a step.
func oracleCapacity(o overload, t float64) float64 {
	at, c := oracleCorners(o)
	v := c[len(c)-1]
	for i := len(at) - 2; i >= 0; i-- {
		if t >= at[i] && t < at[i+1] {
			v = c[i] + (c[i+1]-c[i])*(t-at[i])/(at[i+1]-at[i])
		}
	}
	return v
}

// oracleFinish returns when a job started at t completes: the first instant
// by which the capacity has done one job of work since t, walking the
// profile from corner to corner.
func oracleFinish(o overload, start int64) int64 {
	at, c := oracleCorners(o)
	at = append(at, math.Inf(1))
	c = append(c, c[len(c)-1])
	t := float64(start) / 1e9
	work := 1.0
	for i := 0; ; i++ {
		if at[i+1] <= t || at[i+1] == at[i] {
			continue
		}
		from := math.Max(t, at[i])
		rate := c[i]
		slope := 0.0
		if !math.IsInf(at[i+1], 1) {
			slope = (c[i+1] - c[i]) / (at[i+1] - at[i])
			rate = c[i] + slope*(from-at[i])
		}
		length := at[i+1] - from
		var done float64 // the work the piece can do from 'from' on
		switch {
		case math.IsInf(length, 1):
			done = math.Inf(1)
		default:
			done = rate*length + slope*length*length/2
		}
		if work > done {
			work -= done
			continue
		}
		var y float64 // seconds from 'from'
		if slope == 0 {
			y = work / rate
		} else {
			y = (-rate + math.Sqrt(rate*rate+2*slope*work)) / slope
		}
		begin := start
		if at[i] > t {
			begin = int64(math.Round(at[i] * 1e9))
		}
		return begin + int64(math.Round(y*1e9))
	}
}

// TestOverloadMatchesOracle replays parameter sets that reach every branch
// of the model, three seeds each, on overloadEngine and on the oracle,
// and requires identical figures (the capacity within 1e-9 jobs/s: the two
// interpolate the ramp in different units).
func TestOverloadMatchesOracle(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond}.Factory()
	// The cases but the first stop at 100s, long after the storm's start
	// at 30s, to keep the oracle's runs short.
	with := func(change func(*overload)) overload {
		o := defaultOverload()
		o.Horizon = 100 * time.Second
		change(&o)
		return o
	}
	keep := func(*overload) {}
	for _, c := range []struct {
		name string
		o    overload
		f    kit.Factory
	}{
		{"defaults/full", defaultOverload(), full},
		{"defaults/none-1s", with(keep), kit.Spec{Strategy: kit.None, Base: time.Second}.Factory()},
		{"defaults/general", with(keep), general(full)},
		{"no-retries", with(func(o *overload) { o.Retries = 0 }), full},
		{"queue-limit", with(func(o *overload) { o.QueueLimit = 100 }), full},
		{"queue-limit/general", with(func(o *overload) { o.QueueLimit = 50 }), general(full)},
		{"drop-expired", with(func(o *overload) { o.DropExpired = true }), full},
		{"drop-expired/queue-limit", with(func(o *overload) { o.DropExpired, o.QueueLimit = true, 80 }), full},
		{"ramp", with(func(o *overload) { o.Ramp = 10 * time.Second }), full},
		{"dip-to-0/ramp", with(func(o *overload) { o.DipFraction, o.Ramp = 0, 3*time.Second }), full},
		{"dip-to-0/no-retries", with(func(o *overload) { o.DipFraction, o.Retries = 0, 0 }), full},
		{"ramp-without-dip", with(func(o *overload) { o.DipLength, o.Ramp = 0, 7*time.Second }), full},
		{"rejections-after-deadline", with(func(o *overload) { o.RTT, o.QueueLimit, o.Horizon = 1500*time.Millisecond, 20, 60*time.Second }), full},
		{"zero-rtt/zero-delays", with(func(o *overload) { o.RTT, o.QueueLimit, o.Horizon = 0, 3, 60*time.Second }), constantFactory(0)},
		{"shared-state", with(func(o *overload) { o.QueueLimit, o.Horizon = 120, 90*time.Second }), nil},
		{"schedule/ties", overload{Devices: 3, Rate: 1, Capacity: 100, RTT: 0, Timeout: 30 * time.Millisecond,
			Retries: 5, QueueLimit: 2, Horizon: 2 * time.Second, DropExpired: true,
			schedule: []time.Duration{0, 0, 0, 0, 10 * time.Millisecond, 10 * time.Millisecond, time.Second}}, constantFactory(10 * time.Millisecond)},
		{"odd-horizon", with(func(o *overload) { o.Horizon = 47*time.Second + 300*time.Millisecond; o.RTT = 7 }), full},
	} {
		t.Run(c.name, func(t *testing.T) {
			factory := func() kit.Factory { return c.f }
			if c.f == nil {
				factory = sharedFactory
			}
			e, err := newOverloadEngine(c.o, factory())
			require.NoError(t, err)
			// The oracle is slow under the race detector, which CI runs
			// with -short: one seed of each case there, three otherwise.
			runs := 3
			if testing.Short() {
				runs = 1
			}
			for run := range runs {
				seed := runSeed(2026, run)
				if c.f == nil {
					e, err = newOverloadEngine(c.o, factory())
					require.NoError(t, err)
				}
				got, err := e.replay(run, seed)
				require.NoError(t, err)
				want, err := oracleOverload(c.o, factory(), run, seed)
				require.NoError(t, err)
				assert.InDeltaSlice(t, want.Series.Capacity, got.Series.Capacity, 1e-9, "capacity, seed %d", seed)
				got.Series.Capacity, want.Series.Capacity = nil, nil
				require.Equal(t, want, got, "seed %d (run %d): engine (+) against the oracle (-)", seed, run)
			}
		})
	}
}

// TestOverloadMatchesOracleOnTies replays requests sent on a 5ms grid to a
// server whose jobs take 5ms (10ms in the dip), over 10ms round trips with
// timeouts and delays of whole 5ms steps: every event falls on the grid,
// so that answers arrive exactly at deadlines, completions meet arrivals at
// a full queue, and the order of an instant's events decides the figures.
func TestOverloadMatchesOracleOnTies(t *testing.T) {
	for _, c := range []struct {
		timeout, delay time.Duration
		limit          int
		drop           bool
		fraction       float64
	}{
		{20 * time.Millisecond, 5 * time.Millisecond, 0, false, 0.5},
		{20 * time.Millisecond, 5 * time.Millisecond, 2, false, 0.5},
		{20 * time.Millisecond, 0, 3, true, 0.5},
		{25 * time.Millisecond, 10 * time.Millisecond, 0, true, 0},
		{25 * time.Millisecond, 5 * time.Millisecond, 4, true, 0.5},
		{10 * time.Millisecond, 0, 1, false, 0},
		{15 * time.Millisecond, 5 * time.Millisecond, 2, true, 1},
	} {
		name := fmt.Sprintf("timeout=%v/delay=%v/limit=%d/drop=%v/dip=%v", c.timeout, c.delay, c.limit, c.drop, c.fraction)
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, 1))
				sched := make([]time.Duration, 150)
				for i := range sched {
					sched[i] = 5 * time.Millisecond * time.Duration(rng.IntN(300))
				}
				slices.Sort(sched)
				o := overload{Devices: 7, Rate: 1, Capacity: 200, RTT: 10 * time.Millisecond,
					DipStart: 500 * time.Millisecond, DipLength: 300 * time.Millisecond, DipFraction: c.fraction,
					Timeout: c.timeout, Retries: 3, QueueLimit: c.limit, DropExpired: c.drop,
					Horizon: 2 * time.Second, schedule: sched}
				f := constantFactory(c.delay)
				e, err := newOverloadEngine(o, f)
				require.NoError(t, err)
				got, err := e.replay(0, seed)
				require.NoError(t, err)
				want, err := oracleOverload(o, f, 0, seed)
				require.NoError(t, err)
				require.Equal(t, want, got, "schedule seed %d: engine (+) against the oracle (-)", seed)
			}
		})
	}
}

// TestOverloadErrorsMatchOracle requires the same error from the engine and
// the oracle for each way a policy can fail.
func TestOverloadErrorsMatchOracle(t *testing.T) {
	o := defaultOverload()
	o.Horizon = 60 * time.Second
	for _, c := range []struct {
		name  string
		f     kit.Factory
		cause StopCause
	}{
		{"policy panics", failingFactory(2, func() (time.Duration, error) { panic("boom") }), StopPanic},
		{"negative delay", failingFactory(3, func() (time.Duration, error) { return -time.Second, nil }), StopBadDelay},
		{"source fails", failingFactory(1, func() (time.Duration, error) { return 0, errors.New("source gone") }), StopSourceError},
		{"factory panics", func(kit.Device) kit.Policy { panic("no policy") }, StopPanic},
		{"nil policy", func(kit.Device) kit.Policy { return nil }, StopSourceError},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := newOverloadEngine(o, c.f)
			require.NoError(t, err)
			_, got := e.replay(1, 7)
			_, want := oracleOverload(o, c.f, 1, 7)
			var de *DeviceError
			require.ErrorAs(t, got, &de)
			assert.Equal(t, c.cause, de.Cause, "%v", got)
			assert.Equal(t, want.Error(), got.Error())
		})
	}
}

// constantFactory makes policies that always wait d.
func constantFactory(d time.Duration) kit.Factory {
	return func(kit.Device) kit.Policy { return constantPolicy(d) }
}

type constantPolicy time.Duration

func (c constantPolicy) Next() (time.Duration, error) { return time.Duration(c), nil }

// sharedFactory returns a factory whose policies draw from one generator,
// so that the delays depend on the order of the calls, as a careless
// policy's do (case f nil of TestOverloadMatchesOracle): each replay needs
// a factory of its own.
func sharedFactory() kit.Factory {
	rng := rand.New(rand.NewPCG(1, 2))
	return func(kit.Device) kit.Policy {
		return policyFunc(func() (time.Duration, error) {
			if rng.IntN(10) == 0 {
				return 0, kit.ErrStop
			}
			return time.Duration(rng.Int64N(int64(500 * time.Millisecond))), nil
		})
	}
}

type policyFunc func() (time.Duration, error)

func (p policyFunc) Next() (time.Duration, error) { return p() }

// failingFactory makes policies that give 100ms delays until the one
// before attempt n+1, which next gives.
func failingFactory(n int, next func() (time.Duration, error)) kit.Factory {
	return func(kit.Device) kit.Policy {
		calls := 0
		return policyFunc(func() (time.Duration, error) {
			if calls++; calls == n {
				return next()
			}
			return 100 * time.Millisecond, nil
		})
	}
}
