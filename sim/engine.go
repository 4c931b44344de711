package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// An engine replays one run: one fleet, one seed. A worker of Replay keeps
// one engine and replays its runs one after the other on it, so that the
// fleet's arrays, the calendar's chunks and the histograms are allocated
// once per worker rather than once per run.
type engine struct {
	track    tracker  // the replay's progress, or none
	s        Scenario // with defaults
	f        kit.Factory
	run      int
	seed     uint64
	ids      []string // the fleet's fixed ids (Scenario.IDs), or nil
	prefix   string   // without fixed ids, device ids are prefix + serial
	boot     time.Time
	rng      rand.PCG
	n        int
	horizon  int64
	win      int64
	periodic bool
	// srv decides which arrivals are accepted; a rejected device retries
	// after hint when hinted, after its policy's delay otherwise.
	srv    server
	hint   int64
	hinted bool

	pol []kit.Policy
	// obs holds the policies of pol that are kit.Observers, nil for the
	// others; it is nil while the run has none.
	obs []kit.Observer
	bi  *builtin // the policies of a kit.Spec's factory, kept compact; pol is then nil
	// hashes hashes the ids of the run's devices, for bi.
	hashes serialHashes
	att    []uint32
	cal    *calendar
	heap   secondHeap // arrivals within the second being processed (ordered mode)
	id     []byte     // the buffer device ids are written in
	sel    []uint64   // the events a selection runs on, or a second's events to sort

	// The device whose policy is being asked for the delay before its
	// attempt callAttempt, or -1: a panic in the policy names them; and,
	// while the policy is told an outcome, that outcome, 0 otherwise.
	calling, callAttempt int
	callOutcome          kit.Outcome
	// observing holds the outcome a policy's Observe is being told, 0
	// outside Observe: if the call does not return, the watch names it.
	observing atomic.Int64
	// asking holds the device (high 32 bits) and attempt (low 32 bits) of
	// the last policy call, or 0 for a factory call: if the run does not
	// stop when asked, that call has not returned.
	asking atomic.Uint64
	// calls counts the policy's calls begun and ended: it is odd while a
	// call has not returned, and a watch that sees it odd and unchanged
	// for long enough names that call as hung (see Config.CallTimeout).
	calls atomic.Uint64

	// Periodic kinds: each device's offset, current firing, and flags
	// (resending, missedOne).
	phase  []int64
	firing []uint32
	flags  []uint8

	inline bool // the current bucket rejects every arrival after its first pass

	// Figures. The histograms cover every window an arrival can fall in
	// (Scenario.windows), so that they never grow during a run; their
	// counts are 64-bit, since a policy that retries at once can put more
	// than 2³¹ arrivals in one window. Arrivals all come before end, which
	// bounds the windows a run has touched.
	hist, rhist             []int64
	end                     int64
	success                 []int64
	attempts                int64
	served, gaveUp, pending int
	limited                 int
	last                    int64
	// missed counts the firings never served, in the periodic kinds.
	missed int
	// secRetries counts the retry arrivals of the second being processed,
	// and peak1s the most of any second so far, for windows wider than a
	// second (fine).
	secRetries, peak1s int64
	fine               bool
	// overAt, below math.MaxInt64, ends a run at the end of the first
	// second in which a window holds that many retries (see Over).
	overAt int64
	// readAhead sums what builtinSecond reads of the devices of each
	// block of arrivals before it processes them, so that the reads are
	// kept: it has no other use.
	readAhead uint64

	err error
}

// newEngine returns an engine for the runs of s, after defaults, with the
// policies f makes. Call reset before each run.
func newEngine(f kit.Factory, s Scenario) *engine {
	windows := s.windows()
	srv := newServer(s)
	hint, hinted := srv.hint()
	e := &engine{
		s:        s,
		f:        f,
		ids:      s.IDs,
		n:        s.Clients,
		horizon:  int64(s.Horizon),
		win:      int64(s.Window),
		periodic: s.Kind.Periodic(),
		fine:     wideWindow(s),
		srv:      srv,
		hint:     int64(hint),
		hinted:   hinted,
		hist:     make([]int64, windows),
		rhist:    make([]int64, windows),
		overAt:   math.MaxInt64,
	}
	if spec, ok := builtinSpec(f); ok {
		e.bi = newBuiltin(spec)
	}
	return e
}

// reset prepares the engine for run number run, whose seed is seed: the
// state of the previous run is cleared and its policies released.
func (e *engine) reset(run int, seed uint64) {
	e.track.done = 0
	e.run, e.seed = run, seed
	if e.ids == nil {
		e.prefix = devicePrefix(seed)
		e.hashes = serialHashes{prefix: e.prefix, id: e.hashes.id}
	}
	e.boot = bootTime(seed)
	e.rng.Seed(seed, splitmix64(seed))
	e.calling, e.callAttempt, e.callOutcome = -1, 0, 0
	e.asking.Store(0)
	e.observing.Store(0)
	if e.calls.Load()%2 == 1 {
		// A call of the last run panicked before it was counted out.
		e.calls.Add(1)
	}
	e.inline = false
	e.srv.reset()
	touched := e.touched()
	clear(e.hist[:touched])
	clear(e.rhist[:touched])
	e.end = 0
	e.success = e.success[:0]
	e.attempts, e.served, e.gaveUp, e.pending, e.limited, e.last = 0, 0, 0, 0, 0, 0
	e.missed, e.secRetries, e.peak1s = 0, 0, 0
	e.err = nil
	e.heap, e.sel = e.heap[:0], e.sel[:0]
	if e.cal != nil {
		e.cal.reset()
	}
	clear(e.att)
	clear(e.firing)
	clear(e.flags)
}

// The flags of a periodic device.
const (
	// resending: the device's current firing has arrived once, and every
	// arrival of it from now on is a re-send, a retry.
	resending uint8 = 1 << iota
	// missedOne: the device has missed a firing, and is counted in gaveUp.
	missedOne
)

// release drops the references of a finished run to its policies, so that
// they can be collected while the worker waits for its next run.
func (e *engine) release() {
	clear(e.pol)
	e.obs = nil
}

// touched returns the number of leading windows the run's arrivals can
// have fallen in.
func (e *engine) touched() int {
	if e.end <= 0 {
		return 0
	}
	return min(len(e.hist), int((e.end-1)/e.win)+1)
}

// epoch is the boot time of every fleet, give or take a day: the devices of
// one run boot in the same second, as devices powered on by one relay do.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func bootTime(seed uint64) time.Time {
	return epoch.Add(time.Duration(seed%86400) * time.Second)
}

// devicePrefix returns the prefix of the ids of a run's fleet: its serial
// range, taken from the run's seed.
func devicePrefix(seed uint64) string {
	return fmt.Sprintf("dev-%08x-", uint32(seed>>32^seed))
}

// deviceID returns the id of device i in the run whose seed is seed, when
// the scenario gives no ids of its own: "dev-", eight hex digits taken from
// the seed, "-", and i in seven or more digits, such as
// "dev-5f0e2a91-0000017". Each run replays a different fleet: the same
// policy seeded by device id draws different delays in every run.
func deviceID(seed uint64, i int) string {
	return serialID(devicePrefix(seed), i)
}

func serialID(prefix string, i int) string {
	return string(appendID(make([]byte, 0, len(prefix)+10), prefix, i))
}

// deviceID returns the id of the run's device i.
func (e *engine) deviceID(i int) string {
	if e.ids != nil {
		return e.ids[i]
	}
	return serialID(e.prefix, i)
}

func appendID(b []byte, prefix string, i int) []byte {
	b = append(b, prefix...)
	for p := 1_000_000; p > 1 && i < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(i), 10)
}

// ask records that the run calls the policy of the device and attempt in
// asking (see engine.asking); answered counts the call out once it returns.
func (e *engine) ask(asking uint64) {
	e.asking.Store(asking)
	e.calls.Add(1)
}

// answered records that the call ask recorded has returned.
func (e *engine) answered() { e.calls.Add(1) }

// newPolicy makes the policy of device i, reporting a panic or a nil policy
// as the device's error.
func (e *engine) newPolicy(i int) (p kit.Policy) {
	e.ask(uint64(i) << 32)
	var id string
	if e.ids != nil {
		id = e.ids[i]
	} else {
		e.id = appendID(e.id[:0], e.prefix, i)
		id = string(e.id)
	}
	defer func() {
		e.answered()
		if r := recover(); r != nil {
			e.fail(i, 0, StopPanic, fmt.Errorf("the factory panicked: %v", r))
			p = nil
		}
	}()
	p = e.f(kit.Device{ID: id, Boot: e.boot})
	if p == nil {
		e.fail(i, 0, StopSourceError, errors.New("the factory returned a nil policy"))
	}
	if o, ok := p.(kit.Observer); ok && !e.s.Kind.model().arrivalsOnly() {
		if e.obs == nil {
			e.obs = make([]kit.Observer, e.n)
		}
		e.obs[i] = o
	}
	return p
}

// observe tells dev's policy, when it is a kit.Observer, that the
// device's latest attempt ended with o, as the kit.Observer contract
// says: a Rejection before the delay that follows it, a Success when the
// device is served. Like Next, it is called without a deferred recover:
// protected names a panic, the watch a call that does not return.
func (e *engine) observe(dev uint32, o kit.Outcome) {
	if e.obs == nil || e.obs[dev] == nil {
		return
	}
	attempt := int(e.att[dev]) + 1
	e.calling, e.callAttempt, e.callOutcome = int(dev), attempt, o
	e.observing.Store(int64(o))
	e.ask(uint64(dev)<<32 | uint64(uint32(attempt)))
	e.obs[dev].Observe(o)
	e.answered()
	e.observing.Store(0)
	e.calling, e.callOutcome = -1, 0
}

// builtinPolicy sets st to the policy the spec's factory makes for device
// i: its generator is seeded as kit's newSource seeds it, and the id is
// hashed without being allocated.
func (e *engine) builtinPolicy(st *devState, i int) {
	var h uint64
	switch e.bi.seed {
	case kit.SeedClock:
		h = uint64(e.boot.Unix())
	case kit.SeedConstant:
		h = 1 // kit's constantSeed
	default:
		h = e.idHash(i)
	}
	e.bi.init(st, h)
}

// idHash returns kit.HashID of device i's id, without allocating the id.
func (e *engine) idHash(i int) uint64 {
	if e.ids != nil {
		return kit.HashID(e.ids[i])
	}
	return e.hashes.hash(i)
}

// fail records the first error of the run.
func (e *engine) fail(dev, attempt int, cause StopCause, err error) {
	if e.err == nil {
		e.err = &DeviceError{Run: e.run, Seed: e.seed, Device: e.deviceID(dev), Attempt: attempt, Cause: cause, Err: err}
	}
}

// offset returns a uniform draw from [0, spread).
func (e *engine) offset(spread time.Duration) int64 {
	if spread <= 0 {
		return 0
	}
	return int64(e.rng.Uint64() % uint64(spread))
}

// replay runs the outage and periodic kinds.
func (e *engine) replay(ctx context.Context) error {
	n := e.n
	if e.att == nil {
		if e.bi != nil {
			e.bi.dev = make([]devState, n)
		} else {
			e.pol = make([]kit.Policy, n)
		}
		e.att = make([]uint32, n)
		e.cal = newCalendar(n)
		if e.periodic {
			e.phase = make([]int64, n)
			e.firing = make([]uint32, n)
			e.flags = make([]uint8, n)
		}
		// At most one success a device, or one a firing.
		e.success = make([]int64, 0, int64(n)*e.s.firings())
	}
	for i := range n {
		if i&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return e.stopped(ctx, fmt.Sprintf("making the policies of %d devices, %d made", n, i))
			}
		}
		if e.bi != nil {
			e.builtinPolicy(&e.bi.dev[i], i)
		} else {
			e.pol[i] = e.newPolicy(i)
			if e.err != nil {
				return e.err
			}
		}
		t := e.offset(e.s.StartSpread)
		switch {
		case e.s.Kind == Periodic && e.s.TimerOffset == OffsetPolicy:
			t = 0
		case e.s.Kind == Periodic:
			t = int64(e.idHash(i) % uint64(e.s.Period))
		}
		if e.s.TimerOffset == OffsetPolicy {
			t += e.policyOffset(i)
			if e.err != nil {
				return e.err
			}
		}
		if e.periodic {
			e.phase[i] = t
		}
		if t >= e.horizon {
			continue
		}
		e.cal.add(t, uint32(i))
	}
	for {
		sec, chunks, ok := e.cal.take()
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return e.stopped(ctx, fmt.Sprintf("at simulated second %d", sec))
		}
		e.end = min(e.horizon, (sec+1)*nsPerSec)
		e.track.at(e.end)
		if !e.periodic {
			// A device is served once, or gives up once: the devices
			// done are the run's progress, when time's is behind.
			e.track.count(e.served + e.gaveUp)
		}
		e.protected(sec, chunks)
		if e.err != nil {
			return e.err
		}
		e.peak1s = max(e.peak1s, e.secRetries)
		e.cal.release(chunks)
		if e.overIn(sec) {
			break
		}
	}
	return nil
}

// stopped reports where a cancelled run stopped.
func (e *engine) stopped(ctx context.Context, where string) error {
	return fmt.Errorf("sim: run %d (seed %d) stopped %s, after %d attempts: %w", e.run, e.seed, where, e.attempts, context.Cause(ctx))
}

// protected processes the arrivals of one second, turning a panic of a
// policy into its device's error. Policies are called without a deferred
// recover of their own, which would cost more than the rest of an attempt.
func (e *engine) protected(sec int64, chunks [][]uint64) {
	e.calling = -1
	defer func() {
		if e.calling >= 0 {
			if r := recover(); r != nil {
				e.fail(e.calling, e.callAttempt, StopPanic, &panicError{r, e.callOutcome})
			}
		}
	}()
	e.bucket(sec, chunks)
}

// bucket processes the arrivals of one second, given as chunks.
func (e *engine) bucket(sec int64, chunks [][]uint64) {
	start, end := sec*nsPerSec, (sec+1)*nsPerSec
	e.secRetries = 0
	cut, quota := e.srv.second(sec)
	if e.periodic {
		// A device served in this second may fire again within it, and
		// its firing must then be decided in time order too.
		cut = askEach
	}
	switch cut {
	case rejectEvery:
		// Every arrival is rejected, and so is every retry that comes
		// back within the second.
		e.inline = true
		if e.bi != nil && !e.hinted && e.win%nsPerSec == 0 {
			e.builtinSecond(start, end, chunks, false, false, 0)
			return
		}
		for _, ch := range chunks {
			for _, ev := range ch {
				t, dev := start+int64(ev>>32), uint32(ev)
				e.arrive(dev, t)
				e.retry(dev, t, end)
				if e.err != nil {
					return
				}
			}
		}
	case acceptFirst:
		// The first quota arrivals are accepted, found by selection
		// rather than by sorting. Once the quota is used, every retry
		// that comes back within the second is rejected too. The chunks
		// keep the order they were filled in, close to the order of the
		// devices, whose state is then read almost sequentially.
		e.inline = true
		n := 0
		for _, ch := range chunks {
			n += len(ch)
		}
		all, last := int64(n) <= quota, uint64(0)
		if !all && quota > 0 {
			last = e.quotaLast(chunks, quota)
		}
		if e.bi != nil && !e.hinted && e.win%nsPerSec == 0 {
			e.builtinSecond(start, end, chunks, all, quota > 0, last)
			return
		}
		for _, ch := range chunks {
			for _, ev := range ch {
				t, dev := start+int64(ev>>32), uint32(ev)
				e.arrive(dev, t)
				if all || quota > 0 && ev <= last {
					e.serve(dev, t, end)
					continue
				}
				e.retry(dev, t, end)
				if e.err != nil {
					return
				}
			}
		}
	default:
		// A device has one arrival pending at a time, so a second holds
		// at most the fleet's: the list takes that room once, where
		// growing with the seconds would leave its outgrown arrays
		// behind (see compactRun).
		total := 0
		for _, ch := range chunks {
			total += len(ch)
		}
		if cap(e.sel) < total {
			e.sel = make([]uint64, 0, max(total, e.n))
		}
		e.sel = e.sel[:0]
		for _, ch := range chunks {
			e.sel = append(e.sel, ch...)
		}
		e.ordered(start, end, e.sel)
	}
}

// quotaLast returns the quota-th smallest event of a second's chunks, which
// must hold more than quota ≥ 1 events: the last one accepted. It counts
// the events by the top ten bits of their time within the second (slices
// of about a millisecond), and then, while the slice where the quota runs
// out holds more than selectMost events, by the next ten bits of the
// events in that slice, and so on; it selects only among the events of the
// last slice, which it copies. A fleet in step, whose every arrival of a
// second falls in one millisecond, is counted a few times over rather than
// copied whole.
func (e *engine) quotaLast(chunks [][]uint64, quota int64) uint64 {
	const bits = 10
	var count [1 << bits]int64
	most := selectMost(e.n)
	// The slice is the events whose bits from top up are prefix; every
	// event is below 1<<62 (30 bits of time, 32 of device).
	k, prefix, top := quota, uint64(0), uint(62)
	for {
		shift := top - bits
		clear(count[:])
		for _, ch := range chunks {
			for _, ev := range ch {
				if ev>>top == prefix {
					count[ev>>shift&(1<<bits-1)]++
				}
			}
		}
		slice := uint64(0)
		for ; k > count[slice]; slice++ {
			k -= count[slice]
		}
		prefix, top = prefix<<bits|slice, shift
		// By the last 12 bits (top = 12), a slice holds at most 4,096
		// events, a second's events being distinct.
		if count[slice] <= most {
			break
		}
	}
	e.sel = e.sel[:0]
	for _, ch := range chunks {
		for _, ev := range ch {
			if ev>>top == prefix {
				e.sel = append(e.sel, ev)
			}
		}
	}
	selectFirst(e.sel, int(k-1))
	return e.sel[k-1]
}

// selectMost returns the most events quotaLast copies to select among, in
// a fleet of n devices: a 256th of the fleet, and at least 4,096, as many
// as a slice of 12 bits holds.
func selectMost(n int) int64 { return max(4096, int64(n)/256) }

// ordered processes the arrivals of one second in the order of time,
// merging the retries that come back within the second.
func (e *engine) ordered(start, end int64, b []uint64) {
	e.inline = false
	slices.Sort(b)
	e.heap = e.heap[:0]
	i := 0
	for (i < len(b) || len(e.heap) > 0) && e.err == nil {
		var ev uint64
		if len(e.heap) > 0 && (i == len(b) || e.heap[0] < b[i]) {
			ev = e.heap.pop()
		} else {
			ev = b[i]
			i++
		}
		t, dev := start+int64(ev>>32), uint32(ev)
		e.arrive(dev, t)
		if e.srv.accept(t) {
			e.serve(dev, t, end)
		} else {
			e.retry(dev, t, end)
		}
	}
}

// arrive counts dev's attempt at t.
func (e *engine) arrive(dev uint32, t int64) {
	e.att[dev]++
	e.attempts++
	var w int
	if e.win == nsPerSec {
		w = int(t / nsPerSec) // a division by a constant: a multiplication
	} else {
		w = int(t / e.win)
	}
	e.hist[w]++
	retry := e.att[dev] > 1
	if e.periodic {
		// The firing itself is not a retry; its re-sends are.
		retry = e.flags[dev]&resending != 0
		e.flags[dev] |= resending
	}
	if retry {
		e.rhist[w]++
		e.secRetries++
	}
}

// serve records that dev was served at t.
func (e *engine) serve(dev uint32, t, end int64) {
	e.served++
	e.last = max(e.last, t)
	e.observe(dev, kit.Success)
	if !e.periodic {
		e.success = append(e.success, t)
		return
	}
	if e.bi != nil && e.bi.reset {
		// A built-in policy that starts over on a success, as its
		// Observe does.
		e.builtinPolicy(&e.bi.dev[dev], int(dev))
	}
	e.success = append(e.success, t-e.firingAt(dev, e.firing[dev]))
	if next, ok := e.nextFiring(dev); ok {
		e.schedule(dev, next, end)
	}
}

// retry handles the rejection of dev's attempt at t: it finds the device's
// next arrival and schedules it. In inline mode the arrivals that come back
// within the second are rejected on the spot.
func (e *engine) retry(dev uint32, t, end int64) {
	for {
		e.observe(dev, kit.Rejection)
		if int(e.att[dev]) >= e.s.MaxAttempts {
			e.limited++
			if e.periodic {
				e.miss(dev)
			} else {
				e.gaveUp++
			}
			return
		}
		next, ok := e.next(dev, t)
		if !ok {
			return
		}
		if next >= end || !e.inline {
			e.schedule(dev, next, end)
			return
		}
		e.arrive(dev, next)
		t = next
	}
}

// schedule puts dev's next arrival at t in the calendar, or in the current
// second's heap.
func (e *engine) schedule(dev uint32, t, end int64) {
	if t >= end {
		e.cal.add(t, dev)
		return
	}
	if len(e.heap) == cap(e.heap) {
		// At most the fleet's arrivals are pending, as in bucket.
		e.heap = slices.Grow(e.heap, max(len(e.heap), e.n-len(e.heap)))
	}
	e.heap.push(packEvent(t, dev))
}

// next returns the time of dev's next arrival after a rejection at t, and
// false when the device has none: its policy stopped, the horizon came, or
// the policy failed (e.err is set).
func (e *engine) next(dev uint32, t int64) (int64, bool) {
	var d int64
	switch {
	case e.hinted:
		d = e.hint
	case e.bi != nil:
		d = e.bi.next(&e.bi.dev[dev])
	default:
		attempt := int(e.att[dev]) + 1
		e.calling, e.callAttempt = int(dev), attempt
		e.ask(uint64(dev)<<32 | uint64(uint32(attempt)))
		delay, err := e.pol[dev].Next()
		e.answered()
		e.calling = -1
		switch {
		case err != nil && errors.Is(err, kit.ErrStop):
			if e.periodic {
				e.miss(dev)
				return e.nextFiring(dev)
			}
			e.gaveUp++
			return 0, false
		case err == nil && delay < 0:
			err = negativeDelay(delay)
			fallthrough
		case err != nil:
			e.fail(int(dev), attempt, causeOf(err), err)
			return 0, false
		}
		d = int64(delay)
	}
	if e.periodic {
		if f := e.firingAt(dev, e.firing[dev]+1); f < e.horizon && d >= f-t {
			// The next firing, within the horizon, supersedes the retry.
			e.miss(dev)
			return e.nextFiring(dev)
		}
	}
	if d >= e.horizon-t {
		e.pending++
		return 0, false
	}
	return t + d, true
}

// miss records that dev's current firing will not be served: its policy
// stopped, it reached MaxAttempts, or its next firing came first. The
// device is counted once in gaveUp, however many firings it misses.
func (e *engine) miss(dev uint32) {
	e.missed++
	if e.flags[dev]&missedOne == 0 {
		e.flags[dev] |= missedOne
		e.gaveUp++
	}
}

// policyOffset returns the timer offset that device i's policy gives
// (OffsetPolicy): its first delay modulo the period, or 0 when it stops
// at once. A policy that fails sets e.err, naming attempt 1.
func (e *engine) policyOffset(i int) int64 {
	var d int64
	if e.bi != nil {
		d = e.bi.next(&e.bi.dev[i])
	} else {
		e.ask(uint64(i)<<32 | 1)
		delay, err := callPolicy(e.pol[i])
		e.answered()
		switch {
		case errors.Is(err, kit.ErrStop):
			return 0
		case err == nil && delay < 0:
			err = negativeDelay(delay)
		}
		if err != nil {
			e.fail(i, 1, causeOf(err), err)
			return 0
		}
		d = int64(delay)
	}
	return d % int64(e.s.Period)
}

// A panicError is a panic of a policy's Next, or of its Observe when
// observing is the outcome it was told.
type panicError struct {
	value     any
	observing kit.Outcome
}

func (p *panicError) Error() string {
	if p.observing != 0 {
		return fmt.Sprintf("the policy's Observe(%v) panicked: %v", p.observing, p.value)
	}
	return fmt.Sprintf("the policy panicked: %v", p.value)
}

// firingAt returns the time of dev's k-th timer firing.
func (e *engine) firingAt(dev uint32, k uint32) int64 {
	return e.phase[dev] + int64(k)*int64(e.s.Period)
}

// nextFiring moves dev to its next timer firing and returns its time, or
// false when it falls beyond the horizon.
func (e *engine) nextFiring(dev uint32) (int64, bool) {
	e.firing[dev]++
	e.flags[dev] &^= resending
	t := e.firingAt(dev, e.firing[dev])
	return t, t < e.horizon
}

// storm runs the Storm kind: every device's first attempt and Retries
// retries, counted into the histograms; nothing is served.
func (e *engine) storm(ctx context.Context) error {
	for i := range e.n {
		if i&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return e.stopped(ctx, fmt.Sprintf("at device %d of %d", i, e.n))
			}
			e.track.count(i)
		}
		if e.bi != nil {
			e.builtinStorm(i)
			continue
		}
		p := e.newPolicy(i)
		if e.err != nil {
			return e.err
		}
		t := e.offset(e.s.StartSpread)
		e.count(t, false)
		o, _ := p.(kit.Observer)
		for k := 1; k <= e.s.Retries; k++ {
			if o != nil {
				// Nothing is served in a storm: each attempt is
				// rejected, and the policy is told so before the delay
				// that follows it.
				e.observing.Store(int64(kit.Rejection))
				e.ask(uint64(i)<<32 | uint64(k+1))
				err := callObserve(o, kit.Rejection)
				e.answered()
				e.observing.Store(0)
				if err != nil {
					e.fail(i, k+1, StopPanic, err)
					return e.err
				}
			}
			e.ask(uint64(i)<<32 | uint64(k+1))
			d, err := callPolicy(p)
			e.answered()
			if errors.Is(err, kit.ErrStop) {
				e.gaveUp++
				break
			}
			if err == nil && d < 0 {
				err = negativeDelay(d)
			}
			if err != nil {
				e.fail(i, k+1, causeOf(err), err)
				return e.err
			}
			if int64(d) >= e.horizon-t {
				e.pending++
				break
			}
			t += int64(d)
			e.count(t, true)
		}
	}
	return nil
}

// builtinStorm replays device i of a Storm under a built-in policy, as
// storm does with the policy the factory makes.
func (e *engine) builtinStorm(i int) {
	var st devState
	e.builtinPolicy(&st, i)
	t := e.offset(e.s.StartSpread)
	e.count(t, false)
	for range e.s.Retries {
		d := e.bi.next(&st)
		if d >= e.horizon-t {
			e.pending++
			return
		}
		t += d
		e.count(t, true)
	}
}

// callPolicy asks p for its next delay, turning a panic into an error.
func callPolicy(p kit.Policy) (d time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r}
		}
	}()
	return p.Next()
}

// callObserve tells p the outcome o, turning a panic into an error.
func callObserve(p kit.Observer, o kit.Outcome) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{r, o}
		}
	}()
	p.Observe(o)
	return nil
}

// badDelayError is a negative delay: a policy's defect.
type badDelayError struct{ d time.Duration }

func negativeDelay(d time.Duration) error { return &badDelayError{d} }

func (b *badDelayError) Error() string { return fmt.Sprintf("delay %v is negative", b.d) }

// causeOf classifies an error of a policy.
func causeOf(err error) StopCause {
	var pe *panicError
	var de *kit.DelayError
	var be *badDelayError
	switch {
	case errors.As(err, &pe):
		return StopPanic
	case errors.As(err, &de), errors.As(err, &be):
		return StopBadDelay
	}
	return StopSourceError
}

// count adds one arrival at t to the histograms.
func (e *engine) count(t int64, retry bool) {
	e.attempts++
	e.end = max(e.end, t+1)
	w := int(t / e.win)
	e.hist[w]++
	if retry {
		e.rhist[w]++
	}
}
