package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// A contention describes a replay of clients that update one row under
// optimistic concurrency control, the model of the AWS Architecture
// Blog's "Exponential Backoff And Jitter" simulator
// (github.com/awslabs/aws-arch-backoff-simulator, src/backoff_simulator.py:
// a Python program, not Java). Times are measured from t=0, the start of
// the run, in nanoseconds; nothing happens at or after the horizon.
//
// Unlike a [Scenario], a zero field means zero: start from
// [defaultContention] and change what the replay is about.
//
// # The row and its clients
//
// The server holds one row with a version, 0 at t=0. Each of Clients
// clients (numbered from 0) updates it once: it reads the row, learning
// its version v, then writes it conditionally on v. The server applies
// the write, and increments the version, if the version is still v when
// the write reaches it; otherwise the write fails. A client that learns
// its write failed backs off, reads again and writes again, until it
// learns of its first success; then it stops for good.
//
// Every message (a read or a write sent to the server, the server's
// reply) takes a network delay |N(NetMean, NetSD)|, rounded to the nearest
// nanosecond, drawn when the message is sent from the run's generator
// (PCG seeded with seed and splitmix64(seed), as a [Scenario]'s run is):
// one shared stream, in the order in which the events that send the
// messages happen, as the simulator draws from Python's random module.
// The server reads the version, or checks and increments it, at the
// instant a message reaches it, and replies at once. So a client's
// attempt is four events: its read reaches the server (the version is
// read), the reply reaches the client, which sends its write at once; the
// write reaches the server (the version is checked), and its reply
// reaches the client.
//
// At t=0 every client sends its first read, the clients in order. After
// a failure learned at t, the client's next read reaches the server at
// t+n+d, where n is the read's network delay (drawn first) and d the
// client's backoff: it waits d, then sends its read. The simulator's
// attempt counter, incremented before each backoff, is 1 at the first, so
// that its exponential backoff first waits twice its base; the delays
// come here from the client's [kit.Policy], whose first delay is that
// first backoff. Each client has its own policy, made at t=0, in client
// order, from the factory for its device (kit.Device{ID, Boot}: the ids
// and boot time of the outage engine, deviceID and bootTime); a nil
// factory is the simulator's NoBackoff, a backoff of zero. [kit.ErrStop]
// makes the client give up, unfinished; a policy or factory that panics
// or fails, or a negative delay, stops the run with a [*DeviceError]
// naming the client's device and the attempt whose delay was asked for
// (the first attempt being 1). A client whose next read would reach the
// server at or after the horizon is left unfinished. [awsBackoff] gives
// the simulator's own strategies as a factory.
//
// # Time and figures
//
// Events are handled in order of time, those of one instant in the order
// of their clients (each client has one message in flight at a time).
// The simulator counts as its work, "calls", the writes that reach the
// server (stats.calls, incremented in OccServer.write; reads are not
// counted), and reports, per number of clients and strategy, the mean
// over 100 runs of the calls and of the run's time: the time of the last
// event of the simulation, which, since every client ends with its
// success, is when the last client learns it succeeded. A [contentionRun]
// holds these figures, and the reads besides.
//
// # Where the simulator is interpreted
//
// The simulator's times are floating-point milliseconds, and its ties
// are broken by Python's comparison of the messages' bound methods; here
// delays are rounded to the nanosecond and ties go to the lower client.
// The simulator has no horizon (a policy's delay is bounded here) and no
// way for a client to give up (kit.ErrStop). It draws its jitter from the
// same stream as the network; a kit.Policy has its own randomness, and
// [awsBackoff] seeds each client's from its device id, so that the
// network's draws are the same whatever the policy.
type contention struct {
	// Clients is the number of clients; default 100.
	Clients int
	// NetMean and NetSD are the mean and the standard deviation of the
	// normal distribution whose absolute value is a message's network
	// delay; default 10ms and 2ms. NetSD 0 makes every delay NetMean.
	NetMean, NetSD time.Duration
	// Horizon is when the run ends; default 1h.
	Horizon time.Duration
	// ids, when set, are the clients' device ids, the same in every run,
	// in place of the outage engine's (a Scenario's IDs).
	ids []string
}

// Defaults of the contention model, those of the simulator: Net(10, 2),
// backoff_cls(5, 2000) in milliseconds. The base and the cap are those of
// the simulator's strategies (see awsBackoff).
const (
	defaultContentionClients = 100
	defaultContentionNetMean = 10 * time.Millisecond
	defaultContentionNetSD   = 2 * time.Millisecond
	defaultContentionHorizon = time.Hour
	defaultContentionBase    = 5 * time.Millisecond
	defaultContentionCap     = 2 * time.Second
)

// Limits of the contention model.
const (
	// maxContentionClients bounds the clients: a run makes at most
	// Clients·(Clients+1)/2 writes, as each success fails at most the
	// writes of the clients that read the version before it.
	maxContentionClients = 10_000
	maxContentionNet     = time.Hour
)

// defaultContention returns the simulator's setting: 100 clients, network
// delays |N(10ms, 2ms)|, and a horizon of an hour.
func defaultContention() contention {
	return contention{
		Clients: defaultContentionClients,
		NetMean: defaultContentionNetMean,
		NetSD:   defaultContentionNetSD,
		Horizon: defaultContentionHorizon,
	}
}

// validate reports the first field of c that is out of range.
func (c contention) validate() error {
	switch {
	case c.Clients < 1 || c.Clients > maxContentionClients:
		return invalid("clients %d is not between 1 and %d", c.Clients, maxContentionClients)
	case c.NetMean < 0 || c.NetMean > maxContentionNet:
		return invalid("network mean %v is not between 0 and %v", c.NetMean, maxContentionNet)
	case c.NetSD < 0 || c.NetSD > maxContentionNet:
		return invalid("network deviation %v is not between 0 and %v", c.NetSD, maxContentionNet)
	case c.Horizon <= 0 || c.Horizon > maxHorizon:
		return invalid("horizon %v is not in (0, %v]", c.Horizon, maxHorizon)
	}
	return nil
}

// A contentionRun holds the figures of one run of a contention.
type contentionRun struct {
	Seed uint64
	// Calls counts the writes that reached the server, the simulator's
	// work; Failures those of them that failed, Reads the reads that
	// reached the server.
	Calls, Failures, Reads int
	// Successes counts the clients that learned of their success, Stopped
	// those whose policy stopped (kit.ErrStop), Unfinished those with a
	// message in flight or a backoff at the horizon.
	Successes, Stopped, Unfinished int
	// LastSuccess is when the last client to succeed learned of it, the
	// simulator's time of a run; 0 when none did.
	LastSuccess time.Duration
	// Events counts the messages that arrived: reads and writes at the
	// server, replies at the clients.
	Events int
}

// The phases of a client: what its message in flight is.
const (
	ctRead       uint8 = iota // its read, to the server
	ctReadReply               // the reply to its read
	ctWrite                   // its write, to the server
	ctWriteReply              // the reply to its write
)

// A ctEvent is the arrival of client c's message in flight at t.
type ctEvent struct {
	t int64
	c int32
}

func (ev ctEvent) before(o ctEvent) bool { return ev.t < o.t || ev.t == o.t && ev.c < o.c }

// after is 1 when o comes before ev, else 0: before without a branch, for
// choosing between two children.
func (ev ctEvent) after(o ctEvent) int {
	return b2i(o.t < ev.t) | b2i(o.t == ev.t)&b2i(o.c < ev.c)
}

// b2i is 1 for true and 0 for false, which the compiler makes without a
// branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A contentionEngine replays runs of a contention, one after the other,
// keeping its arrays from run to run.
//
// Each client has exactly one message in flight, so the engine keeps one
// event per client in a binary heap: handling the earliest event makes the
// client's next one, which replaces it at the top (one sift down rather
// than a pop and a push).
type contentionEngine struct {
	track   tracker // the replay's progress, or none
	c       contention
	f       kit.Factory
	mean    float64
	sd      float64
	horizon int64

	run    int
	seed   uint64
	prefix string // of the run's device ids (devicePrefix)
	pcg    rand.PCG
	rng    *rand.Rand
	boot   time.Time

	heap    []ctEvent
	phase   []uint8
	ok      []bool   // the client's last write succeeded
	ver     []uint64 // the version the client last read
	tries   []uint32 // the attempts the client has made
	pol     []kit.Policy
	version uint64

	r contentionRun
}

func newContentionEngine(c contention, f kit.Factory) (*contentionEngine, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	e := &contentionEngine{
		c:       c,
		f:       f,
		mean:    float64(c.NetMean),
		sd:      float64(c.NetSD),
		horizon: int64(c.Horizon),
		heap:    make([]ctEvent, 0, c.Clients),
		phase:   make([]uint8, c.Clients),
		ok:      make([]bool, c.Clients),
		ver:     make([]uint64, c.Clients),
		tries:   make([]uint32, c.Clients),
	}
	e.rng = rand.New(&e.pcg)
	if f != nil {
		e.pol = make([]kit.Policy, c.Clients)
	}
	return e, nil
}

// net draws a message's network delay: |N(mean, sd)| rounded to the
// nearest nanosecond.
func (e *contentionEngine) net() int64 {
	return roundUp(math.Abs(e.mean + e.sd*e.rng.NormFloat64()))
}

// roundUp is math.Round(x) for 0 ≤ x < 2⁶³, without a branch: x's whole
// part, and one more when its fraction, which the subtraction computes
// exactly, is at least a half. What it rounds is well inside that range: a
// network delay, at most an hour's nanoseconds times the largest draw of
// the normal's tail, and a simulator strategy's delay, at most its cap.
func roundUp(x float64) int64 {
	r := int64(x)
	return r + int64(b2i(x-float64(r) >= 0.5))
}

// replay replays run number run, of seed seed.
func (e *contentionEngine) replay(run int, seed uint64) (contentionRun, error) {
	if err := e.start(run, seed); err != nil {
		return contentionRun{}, err
	}
	for len(e.heap) > 0 {
		ev := e.heap[0]
		t, c := ev.t, int(ev.c)
		if t >= e.horizon {
			break
		}
		if e.r.Events++; e.r.Events&0xfff == 0 {
			e.track.count(e.r.Successes + e.r.Stopped + e.r.Unfinished)
		}
		switch e.phase[c] {
		case ctRead:
			e.r.Reads++
			e.ver[c] = e.version
		case ctReadReply:
		case ctWrite:
			e.r.Calls++
			e.ok[c] = e.ver[c] == e.version
			if e.ok[c] {
				e.version++
			} else {
				e.r.Failures++
			}
		case ctWriteReply:
			if err := e.observe(c, t); err != nil {
				return contentionRun{}, err
			}
			if e.ok[c] {
				e.r.Successes++
				e.r.LastSuccess = time.Duration(t)
				e.pop(c)
				continue
			}
			next := t + e.net()
			var d int64
			if e.f != nil {
				var err error
				d, err = nextDelay(e.pol[c])
				switch {
				case errors.Is(err, kit.ErrStop):
					e.r.Stopped++
					e.pop(c)
					continue
				case err != nil:
					return contentionRun{}, contentionError(run, seed, e.id(c), c, int(e.tries[c])+1, t, causeOf(err), err)
				}
			}
			if next >= e.horizon || d >= e.horizon-next {
				e.r.Unfinished++
				e.pop(c)
				continue
			}
			e.tries[c]++
			e.phase[c] = ctRead
			e.heap[0].t = next + d
			e.fix()
			continue
		}
		e.phase[c]++
		e.heap[0].t = t + e.net()
		e.fix()
	}
	e.r.Unfinished += len(e.heap)
	if e.f != nil {
		clear(e.pol)
	}
	return e.r, nil
}

// start readies the engine for run, of the seed: each client's policy,
// and the heap of the first reads, in client order: their times are
// drawn in order, and the heap is built from them at once.
func (e *contentionEngine) start(run int, seed uint64) error {
	e.run, e.seed, e.prefix = run, seed, devicePrefix(seed)
	e.pcg.Seed(seed, splitmix64(seed))
	e.boot = bootTime(seed)
	e.version = 0
	e.track.done = 0
	e.r = contentionRun{Seed: seed}
	n := e.c.Clients
	clear(e.phase)
	clear(e.tries)
	e.heap = e.heap[:0]
	if e.f != nil {
		for i := range n {
			p, cause, err := makePolicy(e.f, kit.Device{ID: e.id(i), Boot: e.boot})
			if err != nil {
				return contentionError(run, seed, e.id(i), i, 0, 0, cause, err)
			}
			e.pol[i] = p
		}
	}
	for i := range n {
		e.heap = append(e.heap, ctEvent{e.net(), int32(i)})
		e.tries[i] = 1
	}
	for i := n/2 - 1; i >= 0; i-- {
		e.down(i)
	}
	return nil
}

// id returns the device id of client i in the run.
func (e *contentionEngine) id(i int) string {
	if e.c.ids != nil {
		return e.c.ids[i]
	}
	return serialID(e.prefix, i)
}

// observe tells client c's policy, when it is a kit.Observer, how its
// write ended, learned at t: a Success, or a Rejection for a conflict,
// before the delay that follows it. It returns the error of a policy
// whose Observe panicked.
func (e *contentionEngine) observe(c int, t int64) error {
	if e.f == nil {
		return nil
	}
	p, ok := e.pol[c].(kit.Observer)
	if !ok {
		return nil
	}
	o := kit.Rejection
	if e.ok[c] {
		o = kit.Success
	}
	if err := callObserve(p, o); err != nil {
		return contentionError(e.run, e.seed, e.id(c), c, int(e.tries[c])+1, t, StopPanic, err)
	}
	return nil
}

// pop removes the top of the heap, client c's event: c is done.
func (e *contentionEngine) pop(c int) {
	if e.pol != nil {
		e.pol[c] = nil
	}
	n := len(e.heap) - 1
	e.heap[0] = e.heap[n]
	e.heap = e.heap[:n]
	e.fix()
}

// fix moves the heap's top event, just made later, to its place. A
// client's next event is mostly later than most of the others, so rather
// than stop at the first level where it is earlier than both children,
// fix moves the hole it leaves down the path of the earlier children to a
// leaf, choosing each without a branch, and sifts the event up from there
// (Floyd's bottom-up sift): the loop down runs for the heap's depth,
// which the processor predicts, and the one up rarely climbs. No two
// events are equal (each client has one, and ties go to the lower
// client), so the heap hands them out in the same order whatever its
// layout.
func (e *contentionEngine) fix() {
	h := e.heap
	n := len(h)
	if n == 0 {
		return
	}
	x := h[0]
	i := 0
	for {
		l := 2*i + 1
		if l >= n-1 {
			if l == n-1 {
				h[i] = h[l]
				i = l
			}
			break
		}
		l += h[l].after(h[l+1])
		h[i] = h[l]
		i = l
	}
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// down sifts the heap's event i down to its place.
func (e *contentionEngine) down(i int) {
	h := e.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		if r := l + 1; r < n && h[r].before(h[l]) {
			l = r
		}
		if !h[l].before(h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// contentionError is the error of client i's policy: a DeviceError naming
// its device, whose Err says which client, and when.
func contentionError(run int, seed uint64, id string, i, attempt int, t int64, cause StopCause, err error) error {
	return &DeviceError{Run: run, Seed: seed, Device: id, Attempt: attempt, Cause: cause,
		Err: fmt.Errorf("client %d at %v: %w", i, time.Duration(t), err)}
}

// An awsStrategy is one of the simulator's backoff strategies
// (backoff_types in backoff_simulator.py).
type awsStrategy int

const (
	awsNone         awsStrategy = iota // NoBackoff: 0
	awsExponential                     // ExpoBackoff: expo(n)
	awsFullJitter                      // ExpoBackoffFullJitter: uniform(0, expo(n))
	awsEqualJitter                     // ExpoBackoffEqualJitter: expo(n)/2 + uniform(0, expo(n)/2)
	awsDecorrelated                    // ExpoBackoffDecorr: sleep = min(cap, uniform(base, 3·sleep)), from sleep = base
)

var awsStrategyNames = [...]string{"None", "Exponential", "FullJitter", "EqualJitter", "Decorr"}

func (s awsStrategy) String() string { return awsStrategyNames[s] }

// awsBackoff returns the factory of the simulator's strategy s, of the
// given base and cap, or nil for awsNone (a backoff of zero). Its policy's
// n-th delay (from n = 1, the simulator's attempt counter at the first
// backoff) is computed from expo(n) = min(cap, 2ⁿ·base) as the simulator
// does, in floating-point nanoseconds rounded to the nearest one, where
// uniform(a, b) is a + (b−a)·u for a draw u in [0, 1). Each policy draws
// u from its own PCG, seeded with the FNV-1a hash of the device's id and
// splitmix64 of it; the decorrelated policy keeps its sleep, as each
// simulated client has its own Backoff object. The policies never stop.
func awsBackoff(s awsStrategy, base, cap time.Duration) kit.Factory {
	if s == awsNone {
		return nil
	}
	return func(d kit.Device) kit.Policy {
		seed := kit.HashID(d.ID)
		p := &awsPolicy{s: s, base: float64(base), cap: float64(cap), sleep: float64(base)}
		p.pcg.Seed(seed, splitmix64(seed))
		return p
	}
}

// An awsPolicy is a client's policy of one of the simulator's strategies.
type awsPolicy struct {
	s         awsStrategy
	base, cap float64
	n         int
	sleep     float64
	pcg       rand.PCG
}

func (p *awsPolicy) uniform(a, b float64) float64 {
	return a + (b-a)*(float64(p.pcg.Uint64()>>11)/(1<<53))
}

func (p *awsPolicy) Next() (time.Duration, error) {
	p.n++
	v := min(p.cap, pow2(p.n)*p.base)
	var d float64
	switch p.s {
	case awsExponential:
		d = v
	case awsFullJitter:
		d = p.uniform(0, v)
	case awsEqualJitter:
		d = v/2 + p.uniform(0, v/2)
	case awsDecorrelated:
		p.sleep = min(p.cap, p.uniform(p.base, p.sleep*3))
		d = p.sleep
	}
	return time.Duration(roundUp(d)), nil
}

// pow2 is 2ⁿ, exactly, as math.Pow(2, n) is for n ≥ 0, without its
// general algorithm: a shift while the power fits an integer.
func pow2(n int) float64 {
	if n < 64 {
		return float64(uint64(1) << n)
	}
	return math.Ldexp(1, n)
}

func (m contentionRunner) progress() *tracker { return &m.e.track }
