package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// A reconnect describes a replay of a broker that a fleet of devices
// reconnects to after losing their sessions together, as an MQTT broker's
// clients do after it restarts: the broker comes back cold, accepts more
// sessions than it can keep while it warms up, drops them, and the
// devices' reconnects may keep it from ever warming up.
//
// As in an [overload], a zero field means zero: start from
// [defaultReconnect] and change what the replay is about. Times are
// measured from t=0, the start of the run, in nanoseconds; nothing happens
// at or after the horizon. CPU is counted in whole units.
//
// # Clients
//
// At t=0, in device order, each device i gets its policy, made from the
// factory for kit.Device{ID: deviceID(seed, i), Boot: bootTime(seed)} (the
// outage engine's ids and boot times), and the offset at which it sends
// its first connect: the next draw v of the run's PCG generator, seeded as
// a [Scenario]'s run is (seed and splitmix64(seed)), taken mod Spread (as
// the outage engine draws its start offsets; no draw when Spread is 0,
// and every offset is then 0).
//
// A connect sent at s reaches the broker at s+RTT/2 (RTT/2 rounded down
// to the nanosecond); the broker's reply, or its drop of a session, at
// instant a reaches the device at a+(RTT−RTT/2). A device has at most one
// connect under way. It learns of a refusal, of a session accepted warm,
// which serves it for the rest of the run, and of the drop of a session
// accepted cold; learning of a cold accept changes nothing it does.
//
// After a refusal learned at t (and, with OnDrop continue, a drop), a
// failure, the device asks its policy for its next delay d and sends its
// next connect at t+d, unless that is at or after the horizon. With OnDrop
// reset, a drop learned at t makes the device a new policy from the
// factory, for the same kit.Device, and reconnect at t; with reset-jitter
// it makes a new policy, asks it for its first delay d, and reconnects at
// t+u, u the next draw of the run's generator mod d (no draw, and u=0,
// when d is 0), unless that is at or after the horizon; its failures then
// take that policy's next delays. The draws are made in the order of the
// events. A policy that is a [kit.Observer] learns each connect's outcome
// before it is asked for the next delay: Rejection for a refusal, Success
// for a warm accept, and Success then Drop for a session dropped cold (the
// drop is how the device learns it was accepted); a built-in policy of a
// spec with reset=on-success starts its delays over on a Success. A
// device that has sent MaxAttempts connects gives up at its next
// failure or drop, before asking or making a policy. [kit.ErrStop] makes
// the device give up, unserved; a factory that panics or returns nil, or
// a policy that panics, fails or gives a negative delay, stops the run
// with a [*DeviceError] naming the device and the attempt whose delay was
// asked for (0 when making its policy).
//
// # Broker
//
// The broker is down until DownEnd, the first whole second at or after
// Down: a connect that reaches it before then is refused at no cost. From
// DownEnd on, it has CPU units for each whole second [k, k+1), and handles
// the connects in the order they reach it. A connect is accepted when at
// least Handshake units are left in the current second, and, with
// RefuseCold, the broker is warm; it takes Handshake units. Any other is
// refused and takes min(Refusal, the units left). The units left at the
// end of each second go to the warm-up, and the broker is warm from the
// end of the second at whose end the warm-up has had WarmUp units: a
// second that completes it is itself still cold (with WarmUp 0 the broker
// is warm from DownEnd). A session accepted warm stays open; a session
// accepted while cold is dropped ColdDrop after its accept, whether or not
// the broker has warmed since.
//
// # Simultaneous events
//
// The events form one queue ordered by time, then kind, then device;
// within an instant the kinds go in this order: the broker's end of a
// second and start of the next, its drops of sessions, connects reaching
// it (so, in order of their send time, then device), devices learning of
// drops, devices learning of replies (refusals and warm accepts), devices
// sending connects. An event made at an instant for that same instant
// (with zero round trips, zero ColdDrop or zero delays) takes its place
// among the events of the instant still to come. The sessions open at a
// whole second are counted after everything at that instant.
type reconnect struct {
	// Devices is the fleet, from 1 to 1,000,000; default 2000.
	Devices int
	// Spread is the range of the devices' first connects, from 0 to the
	// horizon: each is sent at a uniform offset in [0, Spread); default
	// 10ms.
	Spread time.Duration
	// RTT is the network's round trip, half each way; default 50ms.
	RTT time.Duration
	// Down is how long the broker is down, from 0 to the horizon: it has
	// CPU from the first whole second at or after it; default 5s.
	Down time.Duration
	// CPU is the broker's units per whole second, from 1 to 1e12; default
	// 2000.
	CPU int64
	// Handshake is the units an accepted connect takes, from 1 to 1e12;
	// default 10.
	Handshake int64
	// Refusal is the most units a refused connect takes, from 0 to 1e12;
	// default 1.
	Refusal int64
	// WarmUp is the units the broker needs to warm up, from 0 to 1e12;
	// default 4000.
	WarmUp int64
	// ColdDrop is how long a session accepted cold lasts, from 0 to the
	// longest horizon; default 100ms.
	ColdDrop time.Duration
	// RefuseCold refuses every connect while the broker is cold; default
	// false.
	RefuseCold bool
	// OnDrop is what a device does when its session is dropped; default
	// reset.
	OnDrop onDrop
	// Budget, when its Kind is set, limits the devices' reconnects after
	// a failure (see budgetState), held by each device or by the fleet;
	// after defaults. A connect after a reset on a drop is a first
	// attempt again.
	Budget Budget

	// room, when positive, is the most bytes the devices' kept delays may
	// take (see budget.room): a run whose delays outgrow it stops with a
	// memory *kit.ConfigError.
	room int64

	// MaxAttempts is the most connects a device sends, from 1 to
	// 1,000,000, so that a policy of zero delays cannot spin forever;
	// default the Scenario's MaxAttempts, 10,000.
	MaxAttempts int
	// Horizon is when the run ends; default 300s.
	Horizon time.Duration

	// ids, when set, are the devices' ids, the same in every run, in
	// place of the outage engine's (a Scenario's IDs).
	ids []string
}

// An onDrop is what a device does when the broker drops its session.
type onDrop int

const (
	// dropReset resets the backoff and reconnects at once.
	dropReset onDrop = iota
	// dropResetJitter resets the backoff and reconnects after a uniform
	// draw below the new policy's first delay.
	dropResetJitter
	// dropContinue counts the drop as a failure, as a refusal is.
	dropContinue
	onDrops
)

var onDropNames = [onDrops]string{"reset", "reset-jitter", "continue"}

func (d onDrop) String() string {
	if d >= 0 && d < onDrops {
		return onDropNames[d]
	}
	return fmt.Sprintf("onDrop(%d)", int(d))
}

// Limits of the reconnect model.
const (
	maxReconnectDevices  = 1_000_000
	maxReconnectUnits    = 1e12
	maxReconnectAttempts = 1_000_000
	// maxReconnectConnects bounds Devices·MaxAttempts, the connects a run
	// can send, and so its time.
	maxReconnectConnects = 10_000_000_000
)

// defaultReconnect returns the default reconnect: 2000 devices that lose
// their sessions together and reconnect within 10ms over 50ms round trips
// to a broker down for 5s, with 2000 units a second, 10 a handshake, 1 a
// refusal and 4000 to warm up, which drops the sessions it accepts cold
// after 100ms; the devices reset their backoff on a drop; 300s.
func defaultReconnect() reconnect { return Scenario{Kind: Reconnect}.WithDefaults().reconnect() }

// validate reports the first field of c that is out of range.
func (c reconnect) validate() error {
	maxH := maxHorizon
	units := func(v int64) bool { return v >= 0 && v <= maxReconnectUnits }
	switch {
	case c.Devices < 1 || c.Devices > maxReconnectDevices:
		return invalid("devices %d is not between 1 and %s", c.Devices, prose.FormatCount(maxReconnectDevices))
	case c.Horizon <= 0 || c.Horizon > maxH:
		return invalid("horizon %v is not in (0, %v]", c.Horizon, maxH)
	case c.Spread < 0 || c.Spread > c.Horizon:
		return invalid("spread %v is not between 0 and the horizon %v", c.Spread, c.Horizon)
	case c.RTT < 0 || c.RTT > maxH:
		return invalid("round trip %v is not between 0 and %v", c.RTT, maxH)
	case c.Down < 0 || c.Down > c.Horizon:
		return invalid("down %v is not between 0 and the horizon %v", c.Down, c.Horizon)
	case c.CPU < 1 || !units(c.CPU):
		return invalid("cpu %d units a second is not between 1 and 1e12", c.CPU)
	case c.Handshake < 1 || !units(c.Handshake):
		return invalid("handshake %d units is not between 1 and 1e12", c.Handshake)
	case !units(c.Refusal):
		return invalid("refusal %d units is not between 0 and 1e12", c.Refusal)
	case !units(c.WarmUp):
		return invalid("warm-up %d units is not between 0 and 1e12", c.WarmUp)
	case c.ColdDrop < 0 || c.ColdDrop > maxH:
		return invalid("cold drop %v is not between 0 and %v", c.ColdDrop, maxH)
	case c.OnDrop < 0 || c.OnDrop >= onDrops:
		return invalid("on drop %v is not reset, reset-jitter or continue", c.OnDrop)
	case c.MaxAttempts < 1 || c.MaxAttempts > maxReconnectAttempts:
		return invalid("max attempts %d is not between 1 and %s", c.MaxAttempts, prose.FormatCount(maxReconnectAttempts))
	case int64(c.Devices)*int64(c.MaxAttempts) > maxReconnectConnects:
		return invalid("devices %d times max attempts %d is more than %s connects", c.Devices, c.MaxAttempts, prose.FormatCount(maxReconnectConnects))
	}
	return nil
}

// seconds returns the number of whole or partial seconds of the horizon:
// the length of the per-second series.
func (c reconnect) seconds() int {
	return int((int64(c.Horizon) + nsPerSec - 1) / nsPerSec)
}

// downEnd returns DownEnd, the first whole second at or after Down.
func (c reconnect) downEnd() int64 {
	return (int64(c.Down) + nsPerSec - 1) / nsPerSec * nsPerSec
}

// A reconnectRun holds the figures of one run of a reconnect. The
// broker's decisions (Accepted, AcceptedCold, Refused, Dropped) are
// counted when the broker makes them; what the devices learn (Served, the
// series' Successes and Failures), when they learn it.
type reconnectRun struct {
	Seed    uint64
	Devices int
	// Attempts counts the connects sent, FirstAttempts the first ones.
	Attempts, FirstAttempts int
	// Served counts the devices that learned by the horizon that a warm
	// broker accepted them; AllServed is when the last one learned it,
	// when all did (Served == Devices), and 0 otherwise.
	Served    int
	AllServed time.Duration
	// Accepted counts the connects accepted, AcceptedCold those of them
	// accepted while the broker was cold; Dropped the sessions dropped and
	// Refused the connects refused.
	Accepted, AcceptedCold, Dropped, Refused int
	// GaveUp counts the devices that gave up unserved: their policy
	// stopped, or they sent MaxAttempts connects (AtLimit of them).
	GaveUp, AtLimit int
	// BudgetRefused counts the reconnects the budget refused (the device
	// then gave up, and counts in GaveUp), Throttled the connects it
	// rejected at the device.
	BudgetRefused, Throttled int
	// WarmAt is when the broker became warm, or -1 when it did not by the
	// horizon.
	WarmAt time.Duration
	// Series holds the per-second figures: the first connects and the
	// others sent, the devices that learned they were served, the
	// refusals and drops learned (Failures), the broker's capacity in
	// connects accepted a second, CPU/Handshake (0 while down), and the
	// sessions open at each whole second (Jobs).
	Series Series

	// Recovery and RecoveredAt judge, from DownEnd on, whether the
	// failures fell to at most 1% of the outcomes learned (see recovery).
	Recovery    verdict.Status
	RecoveredAt time.Duration
	// Amplification is Attempts over Devices; GoodputAfterTrigger the
	// devices that learned they were served from DownEnd on over Devices,
	// which is Served over Devices: no device is served before DownEnd.
	Amplification, GoodputAfterTrigger float64
}

// summarize sets the figures of r that derive from its counts.
func (r *reconnectRun) summarize(c reconnect) {
	r.Amplification = float64(r.Attempts+r.Throttled) / float64(c.Devices)
	r.GoodputAfterTrigger = float64(r.Served) / float64(c.Devices)
	if r.Served < c.Devices {
		r.AllServed = 0
	}
	r.Recovery, r.RecoveredAt = recovery(time.Duration(c.downEnd()), c.Horizon, r.Series.Failures, r.Series.Successes)
}

// events returns the number of the model's events in the run: connects
// sent and handled, sessions dropped, refusals, drops and warm accepts
// learned. It is what the benchmarks count a cost per.
func (r *reconnectRun) events() int {
	n := r.Attempts + r.Accepted + r.Refused + r.Dropped + r.Served
	for _, f := range r.Series.Failures {
		n += f
	}
	return n
}

// The kinds of the reconnect engine's events, in their order within an
// instant, as the kinds of olKey: the broker's end of a second comes
// before them all, and is not queued.
const (
	rcDrop    uint64 = iota + 1 // the broker drops a cold session
	rcArrive                    // a connect reaches the broker
	rcDropped                   // a device learns of its drop
	rcReply                     // a device learns of its refusal or warm accept
	rcSend                      // a device sends a connect
)

// The low bits of an rcReply's key: what the device learns.
const (
	rcRefused = 0
	rcServed  = 1
)

// A reconnectEngine replays runs of a reconnect, one after the other,
// keeping its arrays from run to run.
//
// Its events are merged from a few queues, each in the order of the
// events' time and key. Connects reach the broker a fixed time after they
// are sent, sessions are dropped a fixed time after their accept, and
// devices learn of replies and drops a fixed time after the broker's
// event: those are FIFOs (olRings). Only the connects, sent after delays
// the policies choose, go through a priority queue, a calendarQueue: their
// sends when a budget admits them, which it does in the order they are
// sent, or when they reach the broker at once; their arrivals otherwise,
// when nothing depends on the order of the sends, and a connect is
// counted as sent once its send time is known. The broker's seconds are
// ticked over before the first event at or after them.
type reconnectEngine struct {
	track   tracker // the replay's progress, or none
	c       reconnect
	f       kit.Factory
	out     int64
	back    int64
	horizon int64
	downEnd int64

	run  int
	seed uint64
	rng  rand.PCG
	ids  []string
	// prefix begins the run's device ids (devicePrefix).
	prefix string
	boot   time.Time

	// queue holds the events of the connects, of its kind: rcSend with a
	// budget, rcArrive without.
	queue *calendarQueue
	// ring holds the FIFO of each kind of event: ring[rcArrive] the
	// arrivals, and so on. The queue's events of a reconnect at once (a
	// reset's), due a fixed time after the instant being handled, come in
	// order and go to the ring of their kind instead, which costs less;
	// queuedLast is the last of them the ring holds.
	ring       [rcSend + 1]olRing
	queuedLast olEvent
	cur        int64 // the instant being handled
	// atOnceLag is the time from the instant being handled to the
	// queue's event of a reconnect at once: 0 for a send, the way out for
	// an arrival, and the way back too when devices learn at once.
	atOnceLag int64

	// The broker: the units left in the current second, the units the
	// warm-up has had, whether it is warm, the next whole second to tick
	// over, and the sessions open.
	left     int64
	warmed   int64
	warm     bool
	nextTick int64
	sessions int

	pol []kit.Policy
	att []uint32 // the connects each device has sent

	// With a built-in factory, whose policies are functions of the
	// device, each device has one policy whose delays the engine keeps
	// (seq, -1 for a stop): a reset starts the device's sequence again at
	// its first delay rather than making a policy that would give the
	// same delays.
	builtin        bool
	resetOnSuccess bool // the built-in policy starts over on a success
	seq            delaySeqs
	kept           int64    // the delays seq holds, or the live policies were asked for
	asked          []uint32 // the delays each device's live policy was asked for

	// atOnce has a device learn of the broker's reply and of its drop of
	// a session when the broker makes them, as if the learning were the
	// event at that later instant, which is then not queued.
	atOnce bool

	// With a budget: its run, each device's ticket (see budgetState), and
	// whether its next connect is a first attempt (its first, or the first
	// after a reset).
	bud    budgetRun
	ticket []float64
	fresh  []bool
	retry  []bool // the connect under way is not a first attempt

	r    reconnectRun
	jobs jobSampler
	err  error
}

func newReconnectEngine(c reconnect, f kit.Factory) (*reconnectEngine, error) {
	if f == nil {
		panic("sim: reconnect replay with a nil factory")
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	e := &reconnectEngine{
		c:       c,
		f:       f,
		out:     int64(c.RTT / 2),
		horizon: int64(c.Horizon),
		downEnd: c.downEnd(),
		ids:     make([]string, c.Devices),
		pol:     make([]kit.Policy, c.Devices),
		att:     make([]uint32, c.Devices),
	}
	e.back = int64(c.RTT) - e.out
	// A connect sent at t that reaches the broker at t, with no round
	// trip, does so after the events of kinds before a send at t: its
	// send must then be an event too.
	queued := rcArrive
	if c.Budget.Kind != NoBudget || e.out == 0 {
		queued = rcSend
	}
	e.queue = newCalendarQueue(c.Devices, queued)
	var spec kit.Spec
	if spec, e.builtin = builtinSpec(f); !e.builtin {
		e.asked = make([]uint32, c.Devices)
	} else {
		e.resetOnSuccess = spec.Reset == kit.ResetOnSuccess
		e.seq = delaySeqs{row: make([]seqRow, c.Devices), tail: make([][]int64, c.Devices)}
	}
	// What a device learns changes only its own state, the counts and the
	// queue, in which it queues its next arrival, when its policy is a
	// function of the device, its connects are sent at once, it draws
	// nothing from the run's generator, and its kept delays cannot outgrow
	// their room (a device keeps at most a delay a connect): then it may
	// learn it as soon as the broker's event that tells it is known.
	e.atOnce = e.builtin && queued == rcArrive && c.OnDrop != dropResetJitter &&
		(c.room == 0 || int64(c.Devices)*int64(c.MaxAttempts)*keptDelayBytes <= c.room)
	if queued == rcArrive {
		e.atOnceLag = e.out
	}
	if e.atOnce {
		e.atOnceLag += e.back
	}
	return e, nil
}

// reset prepares the engine for run number run, of seed seed.
func (e *reconnectEngine) reset(run int, seed uint64) {
	e.track.done = 0
	e.run, e.seed, e.prefix = run, seed, devicePrefix(seed)
	e.rng.Seed(seed, splitmix64(seed))
	e.boot = bootTime(seed)
	clear(e.ids)
	clear(e.pol)
	clear(e.att)
	e.seq.reset()
	e.kept = 0
	clear(e.asked)
	e.queue.reset()
	for k := range e.ring {
		e.ring[k].reset()
	}
	e.left, e.warmed, e.warm, e.sessions = 0, 0, false, 0
	e.nextTick = e.downEnd
	n := e.c.seconds()
	e.r = reconnectRun{Seed: seed, Devices: e.c.Devices, WarmAt: -1, Series: newSeries(n)}
	capacity := float64(e.c.CPU) / float64(e.c.Handshake)
	for i := range n {
		if int64(i)*nsPerSec >= e.downEnd {
			e.r.Series.Capacity[i] = capacity
		}
	}
	e.jobs = jobSampler{}
	e.err = nil
	e.bud.reset(e.c.Budget, e.c.Devices, seed, &e.r.Series)
	if len(e.bud.states) > 0 {
		e.ticket = append(e.ticket[:0], make([]float64, e.c.Devices)...)
		e.fresh = append(e.fresh[:0], make([]bool, e.c.Devices)...)
		e.retry = append(e.retry[:0], make([]bool, e.c.Devices)...)
		for i := range e.fresh {
			e.fresh[i] = true
		}
	}
}

// replay replays run number run, of seed seed.
func (e *reconnectEngine) replay(run int, seed uint64) (reconnectRun, error) {
	e.reset(run, seed)
	for i := range e.c.Devices {
		p, cause, err := makePolicy(e.f, kit.Device{ID: e.id(uint32(i)), Boot: e.boot})
		if err != nil {
			e.fail(uint32(i), 0, 0, cause, err)
			return reconnectRun{}, e.err
		}
		e.pol[i] = p
		var t int64
		if e.c.Spread > 0 {
			t = int64(e.rng.Uint64() % uint64(e.c.Spread))
		}
		e.pushSend(t, uint32(i))
	}
	for e.err == nil {
		// Each ring holds the events of one kind, and the rings are merged
		// in the order of their kinds, which is the order of their events
		// at one instant: times alone decide between them. The queue's
		// first event comes before theirs by time, then key (which starts
		// with the kind); its mark, before any event of its instant.
		ev, ring := e.ring[rcDrop].first, &e.ring[rcDrop]
		if h := e.ring[rcArrive].first; h.t < ev.t {
			ev, ring = h, &e.ring[rcArrive]
		}
		if h := e.ring[rcDropped].first; h.t < ev.t {
			ev, ring = h, &e.ring[rcDropped]
		}
		if h := e.ring[rcReply].first; h.t < ev.t {
			ev, ring = h, &e.ring[rcReply]
		}
		if h := e.ring[rcSend].first; h.t < ev.t {
			ev, ring = h, &e.ring[rcSend]
		}
		if h := e.queue.first; h.before(ev) {
			ev, ring = h, nil
		}
		if ev.t >= e.horizon {
			break
		}
		if e.queue.need && ring == nil {
			// The run has reached the start of the next second of the
			// queue's calendar: the queue takes its events, to be merged.
			e.queue.take()
			continue
		}
		e.cur = ev.t
		e.sample(ev.t)
		e.tick(ev.t)
		if ring == nil {
			e.queue.pop()
		} else {
			ring.pop()
		}
		dev := uint32(ev.req())
		switch ev.kind() {
		case rcSend:
			e.send(ev.t, dev)
		case rcArrive:
			e.arrival(ev.t, dev)
		case rcDrop:
			e.r.Dropped++
			e.sessions--
			e.learn(rcDropped, ev.t+e.back, dev, 0)
		case rcDropped:
			e.learnDrop(ev.t, dev)
		case rcReply:
			e.learnReply(ev.t, dev, ev.attempt())
		}
	}
	if e.err != nil {
		return reconnectRun{}, e.err
	}
	e.sample(e.horizon)
	e.tick(e.horizon - 1)
	e.r.summarize(e.c)
	return e.r, nil
}

// sample counts the sessions open at every whole second before t.
func (e *reconnectEngine) sample(t int64) {
	if e.jobs.next < t {
		e.track.at(t)
	}
	e.jobs.sample(t, e.r.Series.Jobs, e.sessions)
	if len(e.bud.states) > 0 {
		e.bud.level(t, &e.r.Series)
	}
}

// tick ends the broker's seconds that end at or before t, giving their
// units left to the warm-up, and starts the next.
func (e *reconnectEngine) tick(t int64) {
	for ; e.nextTick <= t; e.nextTick += nsPerSec {
		if !e.warm {
			if e.nextTick > e.downEnd {
				e.warmed += e.left
			}
			if e.warmed >= e.c.WarmUp {
				e.warm, e.r.WarmAt = true, time.Duration(e.nextTick)
			}
		}
		e.left = e.c.CPU
	}
}

// send sends device dev's next connect at t: at its send event, or when
// sends are not events, once t is known.
func (e *reconnectEngine) send(t int64, dev uint32) {
	if b := e.bud.of(dev); b != nil {
		ok, ticket := b.admit(t, !e.fresh[dev])
		if !ok {
			// Rejected by the device's own budget: a failure it learns
			// of at once.
			e.att[dev]++
			e.r.Throttled++
			e.r.Series.Throttled[t/nsPerSec]++
			e.r.Series.Failures[t/nsPerSec]++
			if e.observe(t, dev, kit.Rejection) {
				e.failure(t, dev)
			}
			return
		}
		e.ticket[dev], e.retry[dev], e.fresh[dev] = ticket, !e.fresh[dev], false
	}
	if e.att[dev] == 0 {
		e.r.FirstAttempts++
		e.r.Series.FirstSent[t/nsPerSec]++
	} else {
		e.r.Series.RetriesSent[t/nsPerSec]++
	}
	e.att[dev]++
	e.r.Attempts++
	if e.queue.kind == rcArrive {
		e.pushQueued(t+e.out, dev)
	} else {
		// The sends are events, handled in order, and so are their
		// arrivals.
		e.ring[rcArrive].push(olEvent{t + e.out, olKey(rcArrive, int(dev), 0)})
	}
}

// arrival handles device dev's connect reaching the broker at t.
func (e *reconnectEngine) arrival(t int64, dev uint32) {
	e.r.Series.Arrivals[t/nsPerSec]++
	if e.att[dev] > 1 {
		e.r.Series.RetryArrivals[t/nsPerSec]++
	}
	switch {
	case t < e.downEnd:
	case e.left >= e.c.Handshake && (e.warm || !e.c.RefuseCold):
		e.left -= e.c.Handshake
		e.r.Accepted++
		e.sessions++
		if e.warm {
			e.learn(rcReply, t+e.back, dev, rcServed)
			return
		}
		e.r.AcceptedCold++
		e.ring[rcDrop].push(olEvent{t + int64(e.c.ColdDrop), olKey(rcDrop, int(dev), 0)})
		return
	default:
		e.left -= min(e.c.Refusal, e.left)
	}
	e.r.Refused++
	e.learn(rcReply, t+e.back, dev, rcRefused)
}

// learn has device dev learn at t what an event of kind rcReply or
// rcDropped tells it (what, the low bits of its key): as that event, or
// at once when learning is not an event (see atOnce).
func (e *reconnectEngine) learn(kind uint64, t int64, dev uint32, what int) {
	switch {
	case !e.atOnce:
		e.ring[kind].push(olEvent{t, olKey(kind, int(dev), what)})
	case t >= e.horizon:
	case kind == rcReply:
		e.learnReply(t, dev, what)
	default:
		e.learnDrop(t, dev)
	}
}

// learnReply handles device dev learning at t of the broker's reply to its
// connect, what: rcServed or rcRefused.
func (e *reconnectEngine) learnReply(t int64, dev uint32, what int) {
	if what == rcServed {
		e.ended(t, dev, kit.Success)
		if e.observe(t, dev, kit.Success) {
			e.served(t, dev)
		}
		return
	}
	e.r.Series.Failures[t/nsPerSec]++
	e.ended(t, dev, kit.Rejection)
	if e.observe(t, dev, kit.Rejection) {
		e.failure(t, dev)
	}
}

// learnDrop handles device dev learning at t of the drop of its session.
func (e *reconnectEngine) learnDrop(t int64, dev uint32) {
	e.r.Series.Failures[t/nsPerSec]++
	e.ended(t, dev, kit.Drop)
	// The drop tells the device its connect was accepted, then dropped.
	if e.observe(t, dev, kit.Success) && e.observe(t, dev, kit.Drop) {
		e.onDrop(t, dev)
	}
}

// observe tells device dev's policy how its connect ended, learned at t:
// a kit.Observer's Observe, or, for a built-in policy that resets on a
// success, its sequence of delays started again. It returns false when
// the policy panicked (e.err).
func (e *reconnectEngine) observe(t int64, dev uint32, o kit.Outcome) bool {
	if e.builtin {
		if o == kit.Success && e.resetOnSuccess {
			e.seq.row[dev].pos = 0
		}
		return true
	}
	if p, ok := e.pol[dev].(kit.Observer); ok {
		if err := callObserve(p, o); err != nil {
			e.fail(dev, int(e.att[dev])+1, t, StopPanic, err)
			return false
		}
	}
	return true
}

// served handles device dev learning at t that it is served.
func (e *reconnectEngine) served(t int64, dev uint32) {
	e.r.Served++
	e.r.Series.Successes[t/nsPerSec]++
	e.r.AllServed = time.Duration(t)
	e.releasePolicy(dev)
}

// atLimit reports whether device dev has sent its last connect, and if
// so gives it up.
func (e *reconnectEngine) atLimit(dev uint32) bool {
	if int(e.att[dev]) < e.c.MaxAttempts {
		return false
	}
	e.r.GaveUp++
	e.r.AtLimit++
	e.releasePolicy(dev)
	return true
}

// failure handles a refusal (or, with continue, a drop) that device dev
// learns of at t, and schedules its next connect.
func (e *reconnectEngine) failure(t int64, dev uint32) {
	if e.atLimit(dev) {
		return
	}
	b := e.bud.of(dev)
	var ticket float64
	if b != nil {
		var ok bool
		if ok, ticket = b.retry(t, kit.Rejection); !ok {
			// The budget refuses the reconnect: the device gives up.
			e.r.BudgetRefused++
			e.r.Series.Refused[t/nsPerSec]++
			e.r.GaveUp++
			e.releasePolicy(dev)
			return
		}
	}
	if d, ok := e.delay(t, dev); ok && d < e.horizon-t {
		if b != nil {
			e.ticket[dev] = ticket
		}
		e.pushSend(t+d, dev)
	} else if b != nil {
		b.abandon(ticket)
	}
}

// ended tells device dev's budget, if any, how its connect ended at t.
func (e *reconnectEngine) ended(t int64, dev uint32, o kit.Outcome) {
	if len(e.bud.states) > 0 {
		e.budgetEnded(t, dev, o)
	}
}

// budgetEnded is ended with a budget.
func (e *reconnectEngine) budgetEnded(t int64, dev uint32, o kit.Outcome) {
	e.bud.of(dev).ended(t, o, e.retry[dev], e.ticket[dev])
}

// onDrop handles the drop of device dev's session, learned at t.
func (e *reconnectEngine) onDrop(t int64, dev uint32) {
	if e.c.OnDrop == dropContinue {
		e.failure(t, dev)
		return
	}
	if e.atLimit(dev) {
		return
	}
	if len(e.bud.states) > 0 {
		e.fresh[dev] = true
	}
	if e.builtin {
		e.seq.row[dev].pos = 0
	} else {
		p, cause, err := makePolicy(e.f, kit.Device{ID: e.id(dev), Boot: e.boot})
		if err != nil {
			e.fail(dev, 0, t, cause, err)
			return
		}
		e.releasePolicy(dev)
		e.pol[dev] = p
	}
	var u int64
	if e.c.OnDrop == dropResetJitter {
		d, ok := e.delay(t, dev)
		if !ok {
			return
		}
		if d > 0 {
			u = int64(e.rng.Uint64() % uint64(d))
		}
		if u >= e.horizon-t {
			return
		}
	}
	e.pushSend(t+u, dev)
}

// delay asks device dev's policy at t for its next delay, and returns
// false when it stops (the device gives up) or fails (e.err).
func (e *reconnectEngine) delay(t int64, dev uint32) (int64, bool) {
	var d int64
	var err error
	if e.builtin {
		d, err = e.builtinDelay(dev)
	} else {
		// A policy may keep every delay it gave (an exec program's and
		// a trace's do), until the device lets it go: they count
		// against the room the limit leaves the run.
		if !e.keep(t) {
			return 0, false
		}
		e.asked[dev]++
		d, err = nextDelay(e.pol[dev])
	}
	switch {
	case err == nil:
		return d, true
	case errors.Is(err, kit.ErrStop):
		e.r.GaveUp++
		e.releasePolicy(dev)
	default:
		e.fail(dev, int(e.att[dev])+1, t, causeOf(err), err)
	}
	return 0, false
}

// keep counts one more delay kept at t, and returns false, with e.err,
// when the delays kept outgrow the room the memory limit leaves the run:
// a built-in policy's, which the engine keeps for the devices' resets, or
// those a live policy was asked for, which it may keep.
func (e *reconnectEngine) keep(t int64) bool {
	if e.kept++; e.c.room == 0 || e.kept*keptDelayBytes <= e.c.room {
		return true
	}
	if e.err == nil {
		what := fmt.Sprintf("the devices' kept delays grew past %s", prose.FormatCount(e.kept-1))
		if !e.builtin {
			what = fmt.Sprintf("the devices' policies were asked for %s delays, which a policy that keeps them holds,", prose.FormatCount(e.kept-1))
		}
		e.err = grownError(e.run, e.seed, what, t, e.c.room)
	}
	return false
}

// releasePolicy lets device dev's policy go, and with it the delays it
// was asked for.
func (e *reconnectEngine) releasePolicy(dev uint32) {
	e.pol[dev] = nil
	if !e.builtin {
		e.kept -= int64(e.asked[dev])
		e.asked[dev] = 0
	}
}

// builtinDelay returns device dev's next delay with a built-in factory:
// the one its sequence holds at pos, asked of its policy the first time.
func (e *reconnectEngine) builtinDelay(dev uint32) (int64, error) {
	r := &e.seq.row[dev]
	i := r.pos
	r.pos++
	if i < r.n {
		var d int64
		if i < seqInline {
			d = r.head[i]
		} else {
			d = e.seq.tail[dev][i-seqInline]
		}
		if d >= 0 {
			return d, nil
		}
		return 0, kit.ErrStop
	}
	if !e.keep(e.cur) {
		return 0, e.err
	}
	d, err := nextDelay(e.pol[dev])
	switch {
	case err == nil:
		e.seq.add(dev, d)
	case errors.Is(err, kit.ErrStop):
		e.seq.add(dev, -1)
	}
	return d, err
}

// seqInline is the number of delays a seqRow holds.
const seqInline = 7

// delaySeqs holds, in order, the delays each device's built-in policy
// gave (-1 for a stop), and the device's place in them: its first delays
// and its place in a row, a cache line a device, which a device whose
// resets read its delays again from the first reads alone; the others in
// its tail.
type delaySeqs struct {
	row  []seqRow
	tail [][]int64
}

// A seqRow is a device's place in its delays, their number, and the first
// of them.
type seqRow struct {
	pos, n uint32
	head   [seqInline]int64
}

// add keeps device dev's next delay d.
func (s *delaySeqs) add(dev uint32, d int64) {
	r := &s.row[dev]
	if r.n < seqInline {
		r.head[r.n] = d
	} else {
		s.tail[dev] = append(s.tail[dev], d)
	}
	r.n++
}

// reset empties every device's delays, keeping their memory.
func (s *delaySeqs) reset() {
	clear(s.row)
	for i := range s.tail {
		s.tail[i] = s.tail[i][:0]
	}
}

// id returns the id of device dev.
func (e *reconnectEngine) id(dev uint32) string {
	if e.c.ids != nil {
		return e.c.ids[dev]
	}
	if e.ids[dev] == "" {
		e.ids[dev] = serialID(e.prefix, int(dev))
	}
	return e.ids[dev]
}

// fail records the error of device dev's policy at t, asked for the delay
// before attempt (0 when making it).
func (e *reconnectEngine) fail(dev uint32, attempt int, t int64, cause StopCause, err error) {
	if e.err == nil {
		e.err = reconnectError(e.run, e.seed, e.id(dev), attempt, int(e.att[dev]), t, cause, err)
	}
}

// reconnectError is the error of a device's policy: a DeviceError whose
// Err says how many connects the device had sent, and when.
func reconnectError(run int, seed uint64, id string, attempt, sent int, t int64, cause StopCause, err error) error {
	return &DeviceError{Run: run, Seed: seed, Device: id, Attempt: attempt, Cause: cause,
		Err: fmt.Errorf("after %d connects, at %v: %w", sent, time.Duration(t), err)}
}

// pushSend schedules device dev's connect, sent at t: its send is queued
// when sends are events (see reconnectEngine), and otherwise made at once.
func (e *reconnectEngine) pushSend(t int64, dev uint32) {
	if e.queue.kind == rcSend {
		e.pushQueued(t, dev)
		return
	}
	e.send(t, dev)
}

// pushQueued queues device dev's event at t of the queue's kind: in the
// ring of that kind when it is that of a reconnect at once (see atOnceLag)
// and comes after the events that ring holds; in the queue otherwise.
func (e *reconnectEngine) pushQueued(t int64, dev uint32) {
	k := e.queue.kind
	ev := olEvent{t, olKey(k, int(dev), 0)}
	if r := &e.ring[k]; t == e.cur+e.atOnceLag && (r.n == 0 || e.queuedLast.before(ev)) {
		r.push(ev)
		e.queuedLast = ev
		return
	}
	e.queue.push(t, dev)
}

func (m reconnectRunner) progress() *tracker { return &m.e.track }
