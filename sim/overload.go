package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// An overload describes a replay of a server that is briefly short of
// capacity while its clients keep sending, time out and retry: the model
// of a metastable failure, in which the retries the dip provokes keep the
// server overloaded long after its capacity is back.
//
// Unlike a [Scenario], a zero field means zero (a dip to nothing, no
// retries, no queue limit): start from [defaultOverload] and change what
// the replay is about. Times are measured from t=0, the start of the run,
// in nanoseconds; nothing happens at or after the horizon.
//
// # Clients
//
// The fleet of Devices devices sends an open-loop Poisson stream of
// requests at Rate per second over the whole fleet, from t=0. Request k's
// first attempt is sent at t_k = t_{k-1} + round(−ln(1−u)·1e9/Rate) ns
// (t_0 = 0 before the first request), by device v mod Devices, where u is
// the 53 high bits of a draw of the run's PCG generator over 2⁵³ (so that
// 1−u is exact) and v the next draw; the generator is seeded as a
// [Scenario]'s run is (seed and splitmix64(seed)). Device ids and boot
// times are the outage engine's (deviceID, bootTime).
//
// Every attempt waits at most Timeout for its answer, from its send time s:
// its deadline is s+Timeout. The attempt reaches the server at s+RTT/2
// (RTT/2 rounded down to the nanosecond), and the server's answer or
// rejection at instant a reaches the client at a+(RTT−RTT/2). A response
// that arrives at or before the deadline is what the client learns: an
// answer is a success, a rejection a failure. Otherwise the attempt has
// timed out, a failure the client learns at its deadline; an answer that
// arrives later is ignored, though the server did the work.
//
// After a failure learned at t, a request that has made fewer than
// 1+Retries attempts asks its policy for a delay d and sends its next
// attempt at t+d, unless that is at or after the horizon. Each request
// has its own policy, made from the factory when its first attempt is
// sent, for the device that sends it (kit.Device{ID, Boot}), so that its
// first retry waits the policy's first delay: a device's requests retry on
// the same schedule when its policy is a function of the device, as a
// [kit.Spec]'s are (the engine then makes one policy per device and keeps
// its delays, which changes nothing else). [kit.ErrStop] ends the
// request's retries; a policy or factory that panics or fails, or a
// negative delay, stops the run with a [*DeviceError] naming the device
// and the attempt whose delay was asked for.
//
// # Server
//
// The server has one FIFO queue and one worker. An attempt that arrives
// while QueueLimit > 0 jobs are in the system (waiting or in service) is
// rejected at once; any other joins the queue. The worker takes the jobs
// in order, as soon as it is free, and never cancels one. Each job is one
// unit of work done at the capacity c(t), in jobs per second, so that a
// job started at s completes at the first instant c where ∫ₛᶜ c(t) dt = 1,
// rounded to the nearest nanosecond. The capacity is Capacity, except
// from DipStart for DipLength, when it is DipFraction·Capacity, and for
// the Ramp after that, when it rises linearly back to Capacity. At a
// capacity of zero the worker stalls, and the work in progress resumes
// when the capacity returns. With DropExpired, the worker skips, at no
// cost and at the instant it would start it, a job whose answer could no
// longer arrive by its deadline: one that would complete at c with
// c+(RTT−RTT/2) > deadline.
//
// # Simultaneous events
//
// Events of the same instant happen in this order: the worker completes
// its job (and starts the next), attempts reach the server, clients learn
// answers, then rejections, then timeouts, then attempts are sent; events
// of the same kind, in the order of their requests. The jobs in the
// system at a whole second are counted after everything at that instant.
type overload struct {
	// Devices is the fleet; default 200.
	Devices int
	// Rate is the fleet's requests per second, a Poisson stream; default
	// 70.
	Rate float64
	// RTT is the network's round trip, half each way; default 10ms.
	RTT time.Duration
	// Capacity is the server's nominal capacity in jobs per second, from
	// 1e-6 to 1e6; default 100.
	Capacity float64
	// DipStart is when the capacity dips, the trigger; default 30s.
	DipStart time.Duration
	// DipLength is how long the dip lasts; default 5s.
	DipLength time.Duration
	// DipFraction is the capacity during the dip, as a fraction of
	// Capacity, from 0 (the worker stalls) to 1; default 0.1.
	DipFraction float64
	// Ramp is how long the capacity takes after the dip to return, linearly,
	// to Capacity; default none.
	Ramp time.Duration
	// Timeout is how long a client waits for each attempt's answer;
	// default 1s.
	Timeout time.Duration
	// Retries is the most retries of a request; default 3.
	Retries int
	// QueueLimit, when positive, is the most jobs in the system: an attempt
	// that arrives while it holds as many is rejected. Default none (0).
	QueueLimit int
	// DropExpired skips the jobs that could no longer be answered in time;
	// default false.
	DropExpired bool
	// Horizon is when the run ends; default 300s.
	Horizon time.Duration
	// Budget, when its Kind is set, limits the retries (see budgetState),
	// held by each device or by the fleet; after defaults.
	Budget Budget

	// ids, when set, are the devices' ids, the same in every run, in
	// place of the outage engine's (a Scenario's IDs).
	ids []string

	// room, when positive, is the most bytes the run's queue of jobs may
	// take (see budget.room): a run whose queue outgrows it stops with a
	// memory *kit.ConfigError.
	room int64

	// schedule, when set, replaces the Poisson stream: request k's first
	// attempt is sent at schedule[k], by device k mod Devices. The times
	// must be in order; those at or after the horizon are left out.
	schedule []time.Duration
}

// Limits of the overload model.
const (
	minOverloadCapacity = 1e-6 // jobs per second: a job takes at most 11.6 days
	maxOverloadCapacity = 1e6  // jobs per second: a job takes at least a microsecond
	maxOverloadRetries  = 1000
	maxOverloadRate     = 1e6 // requests per second
	// maxOverloadRequests bounds the requests a run expects (Rate·Horizon),
	// whose state a run keeps.
	maxOverloadRequests = 10_000_000
)

// defaultOverload returns the default overload: 200 devices sending 70
// requests a second to a server of 100 jobs a second, which dips to 10
// jobs a second from 30s to 35s; 10ms round trips, 1s timeouts, 3
// retries, 300s.
func defaultOverload() overload { return Scenario{Kind: Overload}.WithDefaults().overload() }

// validate reports the first field of o that is out of range.
func (o overload) validate() error {
	maxH := maxHorizon
	switch {
	case o.Devices < 1 || o.Devices > maxClients:
		return invalid("devices %d is not between 1 and %d", o.Devices, maxClients)
	case !(o.Rate > 0) || o.Rate > maxOverloadRate:
		return invalid("rate %v per second is not a number in (0, 1e6]", o.Rate)
	case !(o.Capacity >= minOverloadCapacity && o.Capacity <= maxOverloadCapacity):
		return invalid("capacity %v per second is not a number in [1e-6, 1e6]", o.Capacity)
	case !(o.DipFraction >= 0 && o.DipFraction <= 1):
		return invalid("dip fraction %v is not between 0 and 1", o.DipFraction)
	case o.RTT < 0 || o.RTT > maxH:
		return invalid("round trip %v is not between 0 and %v", o.RTT, maxH)
	case o.DipStart < 0 || o.DipStart > maxH:
		return invalid("dip start %v is not between 0 and %v", o.DipStart, maxH)
	case o.DipLength < 0 || o.DipLength > maxH:
		return invalid("dip length %v is not between 0 and %v", o.DipLength, maxH)
	case o.Ramp < 0 || o.Ramp > maxH:
		return invalid("ramp %v is not between 0 and %v", o.Ramp, maxH)
	case o.Timeout <= 0 || o.Timeout > maxH:
		return invalid("timeout %v is not in (0, %v]", o.Timeout, maxH)
	case o.Retries < 0 || o.Retries > maxOverloadRetries:
		return invalid("retries %d is not between 0 and %d", o.Retries, maxOverloadRetries)
	case o.QueueLimit < 0:
		return invalid("queue limit %d is negative", o.QueueLimit)
	case o.Horizon <= 0 || o.Horizon > maxH:
		return invalid("horizon %v is not in (0, %v]", o.Horizon, maxH)
	case o.schedule == nil && o.Rate*o.Horizon.Seconds() > maxOverloadRequests:
		return invalid("rate %v per second over %v makes %.0f requests, more than %s", o.Rate, o.Horizon, o.Rate*o.Horizon.Seconds(), prose.FormatCount(maxOverloadRequests))
	case len(o.schedule) > maxOverloadRequests:
		return invalid("%d scheduled requests, more than %s", len(o.schedule), prose.FormatCount(maxOverloadRequests))
	}
	for k := 1; k < len(o.schedule); k++ {
		if o.schedule[k] < o.schedule[k-1] {
			return invalid("schedule[%d] = %v is before schedule[%d] = %v", k, o.schedule[k], k-1, o.schedule[k-1])
		}
	}
	if len(o.schedule) > 0 && o.schedule[0] < 0 {
		return invalid("schedule[0] = %v is negative", o.schedule[0])
	}
	return nil
}

// seconds returns the number of whole or partial seconds of the horizon:
// the length of the per-second series.
func (o overload) seconds() int {
	return int((int64(o.Horizon) + nsPerSec - 1) / nsPerSec)
}

// An overloadRun holds the figures of one run of an overload.
type overloadRun struct {
	Seed uint64
	// Requests counts the requests offered: first attempts sent.
	Requests int
	// Attempts counts every attempt sent, first ones included.
	Attempts int
	// Arrived counts the attempts that reached the server.
	Arrived int
	// Successes counts the answers that arrived in time; Timeouts and
	// Rejections the failed attempts, as the clients learned of them.
	Successes, Timeouts, Rejections int
	// Served counts the jobs the worker completed; Late those of them
	// whose answer arrives after its deadline, ignored: work done for
	// nothing. Skipped counts the jobs dropped, with DropExpired.
	Served, Late, Skipped int
	// Stopped counts the requests whose policy stopped (kit.ErrStop),
	// Exhausted those that failed their last attempt.
	Stopped, Exhausted int
	// Refused counts the retries the budget refused, and Throttled the
	// attempts it rejected at the client (the adaptive throttle's and an
	// open breaker's), which are not sent.
	Refused, Throttled int
	// JobsAtEnd is the number of jobs in the system at the horizon.
	JobsAtEnd int
	// AttemptsFromTrigger and RequestsFromTrigger count the attempts and
	// the first attempts sent from DipStart on; RequestsAfterTrigger the
	// requests offered (first attempts sent) from the dip's end
	// (DipStart+DipLength) on, and SuccessesAfterTrigger those of them
	// that succeeded by the horizon. A request offered before the dip's end
	// and answered after it counts in neither, so that the second is at
	// most the first.
	AttemptsFromTrigger, RequestsFromTrigger    int
	RequestsAfterTrigger, SuccessesAfterTrigger int
	// Series holds the per-second figures.
	Series Series

	// Recovery says whether the service recovered after the dip: Pass, from
	// RecoveredAt (measured from t=0) on; Fail when it still failed in the last whole window
	// before the horizon; Inconclusive when no whole window follows the
	// dip (see recovery).
	Recovery    verdict.Status
	RecoveredAt time.Duration
	// Amplification is the attempts made (Attempts, and those Throttled)
	// over Requests, and AmplificationFromTrigger the same of the attempts
	// and requests made from DipStart on;
	// GoodputAfterTrigger is SuccessesAfterTrigger over
	// RequestsAfterTrigger: the share of the requests offered from the
	// dip's end to the horizon that succeeded, between 0 and 1. Each is 0
	// when no request was sent.
	Amplification, AmplificationFromTrigger, GoodputAfterTrigger float64
}

// A Series holds the per-second figures of a run of a server model
// (Overload and Reconnect), drawn as its time series: entry i covers the
// second [i, i+1), cut at the horizon.
type Series struct {
	// FirstSent and RetriesSent count the first attempts and the retries
	// sent in each second; Successes and Failures the successes and the
	// failures (timeouts, rejections and drops) the clients learned of in
	// it.
	FirstSent   []int `json:"first_sent"`
	RetriesSent []int `json:"retries_sent"`
	Successes   []int `json:"successes"`
	Failures    []int `json:"failures"`
	// Arrivals and RetryArrivals count the attempts, and the retries, that
	// reached the server in each second.
	Arrivals      []int `json:"arrivals"`
	RetryArrivals []int `json:"retry_arrivals"`
	// Capacity is the server's capacity at each whole second: jobs a
	// second in an Overload, handshakes a second in a Reconnect. Jobs is
	// what the server holds then: the jobs waiting or in service in an
	// Overload, the sessions open in a Reconnect.
	Capacity []float64 `json:"capacity"`
	Jobs     []int     `json:"jobs"`
	// With a budget: Refused and Throttled count the retries it refused
	// and the attempts it rejected at the client in each second (those
	// count among the failures), and Budget is its level at each whole
	// second (see budgetState.level), the mean of the devices' when each
	// holds one.
	Refused   []int     `json:"budget_refused,omitempty"`
	Throttled []int     `json:"budget_throttled,omitempty"`
	Budget    []float64 `json:"budget_level,omitempty"`
}

// newSeries returns the series of a run of n seconds, zero.
func newSeries(n int) Series {
	return Series{
		FirstSent:     make([]int, n),
		RetriesSent:   make([]int, n),
		Successes:     make([]int, n),
		Failures:      make([]int, n),
		Arrivals:      make([]int, n),
		RetryArrivals: make([]int, n),
		Capacity:      make([]float64, n),
		Jobs:          make([]int, n),
	}
}

// Recovery windows.
const (
	recoveryWindow = 5 // seconds
	// recoveryShare: a window recovers when its failures are at most
	// 1/recoveryShare of the outcomes learned in it.
	recoveryShare = 100
)

// recovery judges whether the service recovered after a dip that ended at
// end, from the per-second failures and successes of a run that ended at
// horizon, each counted in the second its client learned it. It cuts the
// time from end, rounded up to a whole second, into whole windows of 5s
// before the horizon, and the service has recovered from the start of the
// first window from which on every window's failures are at most 1% of the
// outcomes learned in it (its failures and successes): the error rate of
// the attempts whose fate became known in the window, as an error-rate
// objective counts it, and so never above 100%. The attempts sent in a
// window are no denominator: a timeout or a drop is learned seconds after
// its attempt was sent, often in a later window than the one that sent it.
// A window passes only if some client succeeded in the windows: windows in
// which clients that gave up learn nothing prove nothing. It returns Pass
// and that instant; Fail when the last window fails, or no client
// succeeded in any window; Inconclusive when no whole window follows the
// dip.
func recovery(end, horizon time.Duration, failures, successes []int) (verdict.Status, time.Duration) {
	first := int((int64(end) + nsPerSec - 1) / nsPerSec)
	windows := recoveryWindows(first, horizon, failures, successes)
	if len(windows) == 0 {
		return verdict.Inconclusive, 0
	}
	served := 0
	for _, w := range windows {
		served += w.Successes
	}
	from := -1 // the first window of the last run of windows that pass
	for w := len(windows) - 1; w >= 0; w-- {
		if !windows[w].Within() {
			break
		}
		from = w
	}
	if from < 0 || served == 0 {
		return verdict.Fail, 0
	}
	return verdict.Pass, time.Duration(first+from*recoveryWindow) * time.Second
}

// RecoveryWindow is one window of the recovery judgement: the failures and
// the successes its clients learned in it.
type RecoveryWindow struct {
	// From and To are the window's start and end, in whole seconds from
	// the run's start.
	From, To            int
	Failures, Successes int
}

// Share is the window's failures among the outcomes learned in it, between
// 0 and 1; 0 when it learned none.
func (w RecoveryWindow) Share() float64 {
	if w.Failures == 0 {
		return 0
	}
	return float64(w.Failures) / float64(w.Failures+w.Successes)
}

// Within says whether the window's failures are at most 1% of the outcomes
// learned in it. A window that learned nothing has no failure, and is.
func (w RecoveryWindow) Within() bool {
	return w.Failures*recoveryShare <= w.Failures+w.Successes
}

// RecoveryWindows returns the windows in which a run of s is judged on
// recovery (see [Run].Recovered): the whole 5s windows from
// s.RecoveryFrom() to the horizon, with the failures and successes of
// series in each. It returns none when series is nil, too short, or no
// whole window follows the trigger.
func (s Scenario) RecoveryWindows(series *Series) []RecoveryWindow {
	if series == nil {
		return nil
	}
	s = s.WithDefaults()
	first := int((int64(s.recoveryStart()) + nsPerSec - 1) / nsPerSec)
	n := time.Duration(min(len(series.Failures), len(series.Successes))) * time.Second
	return recoveryWindows(first, min(s.Horizon, n), series.Failures, series.Successes)
}

// recoveryWindows cuts the seconds from first to horizon into whole
// windows of failures and successes.
func recoveryWindows(first int, horizon time.Duration, failures, successes []int) []RecoveryWindow {
	n := int((horizon - time.Duration(first)*time.Second) / (recoveryWindow * time.Second))
	if first < 0 || n <= 0 {
		return nil
	}
	out := make([]RecoveryWindow, n)
	for w := range out {
		out[w].From, out[w].To = first+w*recoveryWindow, first+(w+1)*recoveryWindow
		for s := out[w].From; s < out[w].To; s++ {
			out[w].Failures += failures[s]
			out[w].Successes += successes[s]
		}
	}
	return out
}

// summarize sets the figures of r that derive from its counts.
func (r *overloadRun) summarize(o overload) {
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	// The attempts made: sent, or rejected by the client's budget.
	r.Amplification = ratio(r.Attempts+r.Throttled, r.Requests)
	r.AmplificationFromTrigger = ratio(r.AttemptsFromTrigger, r.RequestsFromTrigger)
	r.GoodputAfterTrigger = ratio(r.SuccessesAfterTrigger, r.RequestsAfterTrigger)
	r.Recovery, r.RecoveredAt = recovery(o.DipStart+o.DipLength, o.Horizon, r.Series.Failures, r.Series.Successes)
}

// events returns the number of the model's events in the run: attempts
// sent and arrived, jobs completed or skipped, outcomes learned, and the
// attempts and retries a budget rejected. It is what the benchmarks count
// a cost per.
func (r *overloadRun) events() int {
	return r.Attempts + r.Arrived + r.Served + r.Skipped + r.Successes + r.Timeouts + r.Rejections + r.Throttled + r.Refused
}

// A capacityProfile is the server's capacity over time, as pieces over
// which it is constant or changes linearly, in jobs per nanosecond.
type capacityProfile struct {
	pieces []capacityPiece // in order; the last one lasts forever
}

// A capacityPiece is the capacity over [from, to): rate at from, changing
// by slope per nanosecond; lo and hi are the capacity at from and at to in
// jobs per second.
type capacityPiece struct {
	from, to    int64
	rate, slope float64
	lo, hi      float64
}

func newCapacityProfile(o overload) capacityProfile {
	t0 := int64(o.DipStart)
	t1 := t0 + int64(o.DipLength)
	t2 := t1 + int64(o.Ramp)
	var p capacityProfile
	add := func(from, to int64, lo, hi float64) {
		if to <= from {
			return
		}
		c := capacityPiece{from: from, to: to, rate: lo / 1e9, lo: lo, hi: hi}
		if hi != lo {
			c.slope = (hi - lo) / 1e9 / float64(to-from)
		}
		p.pieces = append(p.pieces, c)
	}
	nominal, low := o.Capacity, o.DipFraction*o.Capacity
	add(0, t0, nominal, nominal)
	add(t0, t1, low, low)
	add(t1, t2, low, nominal)
	add(t2, math.MaxInt64, nominal, nominal)
	return p
}

// at returns the capacity at t in jobs per second.
func (p *capacityProfile) at(t int64) float64 {
	for _, c := range p.pieces {
		switch {
		case t >= c.to:
		case c.hi == c.lo:
			return c.lo
		default:
			return c.lo + (c.hi-c.lo)*float64(t-c.from)/float64(c.to-c.from)
		}
	}
	panic("sim: the capacity profile has no last piece")
}

// finish returns when a job started at t completes, starting the search at
// piece *from, which it advances to the piece t is in: the jobs start in
// order of time, so that each start costs one or two pieces.
func (p *capacityProfile) finish(t int64, from *int) int64 {
	k := *from
	for t >= p.pieces[k].to {
		k++
	}
	*from = k
	w := 1.0
	for ; ; k++ {
		c := &p.pieces[k]
		if t < c.from {
			t = c.from
		}
		rate := c.rate + c.slope*float64(t-c.from)
		if c.to == math.MaxInt64 {
			return t + int64(math.Round(w/rate))
		}
		l := float64(c.to - t)
		if avail := rate*l + c.slope*l*l/2; w > avail {
			w -= avail
			continue
		}
		if c.slope == 0 {
			return t + int64(math.Round(w/rate))
		}
		// rate·y + slope·y²/2 = w, in the form that does not cancel.
		return t + int64(math.Round(2*w/(rate+math.Sqrt(rate*rate+2*c.slope*w))))
	}
}

// An olEvent is one event of the overload engine: its time, and a key
// that orders the events of one instant and says what they are and whose:
// the kind in the top 4 bits, then the request in 44 bits and the attempt
// in the low 16. In the job queue, t is the job's deadline.
type olEvent struct {
	t int64
	k uint64
}

// The kinds of events, in their order within an instant.
const (
	olDone     uint64 = iota // the worker completes its job
	olArrive                 // an attempt reaches the server
	olAnswer                 // a client learns its answer
	olReject                 // a client learns its rejection
	olDeadline               // an attempt's deadline
	olSend                   // a client sends an attempt
	olNever                  // no event
)

func olKey(kind uint64, req int, attempt int) uint64 {
	return kind<<60 | uint64(req)<<16 | uint64(attempt)
}

func (ev olEvent) kind() uint64 { return ev.k >> 60 }
func (ev olEvent) req() int     { return int(ev.k >> 16 & (1<<44 - 1)) }
func (ev olEvent) attempt() int { return int(uint16(ev.k)) }

// as returns the key of the event of the given kind for the same request
// and attempt.
func (ev olEvent) as(kind uint64) uint64 { return ev.k&^(15<<60) | kind<<60 }

func (ev olEvent) before(o olEvent) bool { return ev.t < o.t || ev.t == o.t && ev.k < o.k }

// after is 1 when o comes before ev, else 0: before without a branch, for
// choosing among siblings.
func (ev olEvent) after(o olEvent) int {
	return b2i(o.t < ev.t) | b2i(o.t == ev.t)&b2i(o.k < ev.k)
}

var olNone = olEvent{math.MaxInt64, olNever << 60}

// An olRing is a FIFO of events, which grows by doubling. Its first event
// is kept apart, olNone when it is empty, for the engine to compare
// without a branch.
type olRing struct {
	first   olEvent
	buf     []olEvent // its length is a power of two
	head, n int
}

func (r *olRing) push(ev olEvent) {
	if r.n == len(r.buf) {
		buf := make([]olEvent, max(64, 2*len(r.buf)))
		for i := range r.n {
			buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = buf, 0
	}
	if r.n == 0 {
		r.first = ev
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = ev
	r.n++
}

func (r *olRing) pop() olEvent {
	ev := r.first
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	r.first = olNone
	if r.n > 0 {
		r.first = r.buf[r.head]
	}
	return ev
}

func (r *olRing) reset() { r.first, r.head, r.n = olNone, 0, 0 }

// An overloadEngine replays runs of an overload, one after the other,
// keeping its arrays from run to run.
//
// The engine is a discrete-event simulation whose events are merged from
// a few queues, each in the order of the events' time and key: all but the
// retries are produced in that order, so that they are FIFOs rather than
// one priority queue. Attempts are sent in order, and reach the server,
// reach their deadline and, if the server rejects them, learn so, each a
// fixed time later; the worker starts its jobs in order, so that their
// answers come in order too. Only the retries, after delays the policies
// choose, go through a binary heap. The outcome of an attempt is decided
// once: when it is rejected, or when its job starts (the profile gives its
// completion exactly), the engine knows whether its response arrives in
// time, and queues that response; a deadline whose attempt has its
// response is passed over.
type overloadEngine struct {
	track   tracker // the replay's progress, or none
	o       overload
	f       kit.Factory
	builtin bool // f is a kit.Spec's: its policies are functions of the device
	prof    capacityProfile
	piece   int // the piece of the profile the worker last started a job in
	out     int64
	back    int64
	horizon int64
	trigger int64 // DipStart
	end     int64 // DipStart+DipLength

	run  int
	seed uint64
	rng  rand.PCG
	ids  []string // the ids of the devices, made as needed
	// prefix begins the run's device ids (devicePrefix).
	prefix string
	boot   time.Time

	// afterEnd is the first request offered from the dip's end on, or
	// math.MaxInt until one is: requests are offered in order of time.
	afterEnd int

	// The next first attempt, and its request's device.
	gen     olEvent
	genDev  uint32
	genAt   int64 // the time of the last request drawn
	retries olHeap
	arrive  olRing
	dead    olRing
	reject  olRing
	answer  olRing

	// The server: the jobs waiting (deadline and key), whether the worker
	// is busy, and its job's completion and whether its answer is in time.
	queue   olRing
	busy    bool
	done    int64
	inTime  bool
	nSystem int

	// Per request: its device, and state: the attempts made (from bit
	// 1), and whether the last one has its outcome (bit 0).
	dev   []uint32
	state []uint32
	pol   []kit.Policy // the requests' policies (not built-in)

	// With a built-in factory, each device's policy and the delays it
	// gave, which every request of the device gets again.
	devPol   []kit.Policy
	devHave  []uint16
	devDelay []int64 // device i's are at i·Retries; -1 for a stop

	// With a budget: its run, and each request's ticket (see
	// budgetState).
	bud    budgetRun
	ticket []float64

	r    overloadRun
	jobs jobSampler
	err  error
}

func newOverloadEngine(o overload, f kit.Factory) (*overloadEngine, error) {
	if f == nil {
		panic("sim: overload replay with a nil factory")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	_, builtin := builtinSpec(f)
	e := &overloadEngine{
		o:       o,
		f:       f,
		builtin: builtin,
		prof:    newCapacityProfile(o),
		out:     int64(o.RTT / 2),
		horizon: int64(o.Horizon),
		trigger: int64(o.DipStart),
		end:     int64(o.DipStart + o.DipLength),
		ids:     make([]string, o.Devices),
	}
	e.back = int64(o.RTT) - e.out
	if builtin {
		e.devPol = make([]kit.Policy, o.Devices)
		e.devHave = make([]uint16, o.Devices)
		e.devDelay = make([]int64, o.Devices*o.Retries)
	}
	return e, nil
}

// reset prepares the engine for run number run, of seed seed.
func (e *overloadEngine) reset(run int, seed uint64) {
	e.track.done = 0
	e.run, e.seed, e.prefix = run, seed, devicePrefix(seed)
	e.rng.Seed(seed, splitmix64(seed))
	e.boot = bootTime(seed)
	clear(e.ids)
	clear(e.devPol)
	clear(e.devHave)
	e.piece = 0
	e.genAt = 0
	e.afterEnd = math.MaxInt
	e.retries = e.retries[:0]
	e.arrive.reset()
	e.dead.reset()
	e.reject.reset()
	e.answer.reset()
	e.queue.reset()
	e.busy, e.nSystem = false, 0
	e.dev, e.state = e.dev[:0], e.state[:0]
	clear(e.pol)
	e.pol = e.pol[:0]
	n := e.o.seconds()
	e.r = overloadRun{Seed: seed, Series: newSeries(n)}
	for i := range n {
		e.r.Series.Capacity[i] = e.prof.at(int64(i) * nsPerSec)
	}
	e.jobs = jobSampler{}
	e.err = nil
	e.bud.reset(e.o.Budget, e.o.Devices, seed, &e.r.Series)
	e.ticket = e.ticket[:0]
	e.draw()
}

// draw draws the next request into gen, or olNone when it falls at or
// after the horizon.
func (e *overloadEngine) draw() {
	k := len(e.dev)
	var t int64
	var dev uint32
	if e.o.schedule != nil {
		if k >= len(e.o.schedule) {
			e.gen = olNone
			return
		}
		t, dev = int64(e.o.schedule[k]), uint32(k%e.o.Devices)
	} else {
		u := float64(e.rng.Uint64()>>11) / (1 << 53)
		t = e.genAt + int64(math.Round(-math.Log(1-u)*1e9/e.o.Rate))
		dev = uint32(e.rng.Uint64() % uint64(e.o.Devices))
	}
	e.genAt = t
	if t >= e.horizon {
		e.gen = olNone
		return
	}
	e.gen, e.genDev = olEvent{t, olKey(olSend, k, 1)}, dev
}

// The queues an event of the engine comes from.
const (
	fromFirst = iota // gen, the next request's first attempt
	fromWorker
	fromRetries
	fromRing
)

// replay replays run number run, of seed seed.
func (e *overloadEngine) replay(run int, seed uint64) (overloadRun, error) {
	e.reset(run, seed)
	for e.err == nil {
		ev, from := e.gen, fromFirst
		if e.busy && e.done <= ev.t {
			ev, from = olEvent{e.done, olDone << 60}, fromWorker
		}
		var ring *olRing
		if h := e.arrive.first; h.before(ev) {
			ev, from, ring = h, fromRing, &e.arrive
		}
		if h := e.answer.first; h.before(ev) {
			ev, from, ring = h, fromRing, &e.answer
		}
		if h := e.reject.first; h.before(ev) {
			ev, from, ring = h, fromRing, &e.reject
		}
		if h := e.dead.first; h.before(ev) {
			ev, from, ring = h, fromRing, &e.dead
		}
		if h := e.retries.min(); h.before(ev) {
			ev, from = h, fromRetries
		}
		if ev.t >= e.horizon {
			break
		}
		e.sample(ev.t)
		switch from {
		case fromFirst:
			e.first(ev.t)
		case fromWorker:
			e.complete(ev.t)
		case fromRetries:
			e.retries.pop()
			e.send(ev.t, ev.req())
		case fromRing:
			ring.pop()
			switch ev.kind() {
			case olArrive:
				e.arrival(ev)
			case olAnswer:
				e.success(ev)
			case olReject:
				e.failure(ev, false)
			case olDeadline:
				if e.state[ev.req()] == uint32(ev.attempt())<<1 {
					e.failure(ev, true)
				}
			}
		}
	}
	if e.err != nil {
		return overloadRun{}, e.err
	}
	e.sample(e.horizon)
	e.r.JobsAtEnd = e.nSystem
	e.r.summarize(e.o)
	return e.r, nil
}

// sample counts the jobs in the system at every whole second before t.
func (e *overloadEngine) sample(t int64) {
	if e.jobs.next < t {
		e.track.at(t)
	}
	e.jobs.sample(t, e.r.Series.Jobs, e.nSystem)
	if len(e.bud.states) > 0 {
		e.bud.level(t, &e.r.Series)
	}
}

// A jobSampler writes what a server model's system holds at each whole
// second into a Series' Jobs, as time passes.
type jobSampler struct {
	sampled int   // the whole seconds sampled so far
	next    int64 // when the next one is due, or never
}

// sample writes n, what the system holds, at every whole second before t
// not yet written.
func (s *jobSampler) sample(t int64, jobs []int, n int) {
	for s.next < t {
		jobs[s.sampled] = n
		s.sampled++
		s.next = int64(s.sampled) * nsPerSec
		if s.sampled == len(jobs) {
			s.next = math.MaxInt64
		}
	}
}

// sent returns the attempts made in each second: first ones and retries
// sent, and those the clients' budget rejected before sending them.
func (s *Series) sent() []int {
	out := make([]int, len(s.FirstSent))
	for i := range out {
		out[i] = s.FirstSent[i] + s.RetriesSent[i]
		if s.Throttled != nil {
			out[i] += s.Throttled[i]
		}
	}
	return out
}

// first sends the first attempt of the request in gen, making its policy,
// and draws the next request.
func (e *overloadEngine) first(t int64) {
	k := len(e.dev)
	e.dev = append(e.dev, e.genDev)
	e.state = append(e.state, 0)
	if len(e.bud.states) > 0 {
		e.ticket = append(e.ticket, 0)
	}
	if !e.builtin {
		p, cause, err := makePolicy(e.f, kit.Device{ID: e.id(e.genDev), Boot: e.boot})
		if err != nil {
			e.fail(k, 0, t, cause, err)
			return
		}
		e.pol = append(e.pol, p)
	}
	e.r.Requests++
	e.r.Series.FirstSent[t/nsPerSec]++
	if t >= e.trigger {
		e.r.RequestsFromTrigger++
	}
	if t >= e.end {
		e.afterEnd = min(e.afterEnd, k)
		e.r.RequestsAfterTrigger++
	}
	e.send(t, k)
	e.draw()
}

// send sends the next attempt of request k at t, unless its budget
// rejects it.
func (e *overloadEngine) send(t int64, k int) {
	a := e.state[k]>>1 + 1
	e.state[k] = a << 1
	if b := e.bud.of(e.dev[k]); b != nil {
		ok, ticket := b.admit(t, a > 1)
		if !ok {
			e.throttled(t, k)
			return
		}
		if ticket != 0 || a == 1 {
			e.ticket[k] = ticket
		}
	}
	e.r.Attempts++
	if a > 1 {
		e.r.Series.RetriesSent[t/nsPerSec]++
	}
	if t >= e.trigger {
		e.r.AttemptsFromTrigger++
	}
	e.arrive.push(olEvent{t + e.out, olKey(olArrive, k, int(a))})
	e.dead.push(olEvent{t + int64(e.o.Timeout), olKey(olDeadline, k, int(a))})
}

// arrival handles an attempt that reaches the server.
func (e *overloadEngine) arrival(ev olEvent) {
	e.r.Arrived++
	e.r.Series.Arrivals[ev.t/nsPerSec]++
	if ev.attempt() > 1 {
		e.r.Series.RetryArrivals[ev.t/nsPerSec]++
	}
	deadline := ev.t - e.out + int64(e.o.Timeout)
	if e.o.QueueLimit > 0 && e.nSystem >= e.o.QueueLimit {
		if at := ev.t + e.back; at <= deadline {
			e.reject.push(olEvent{at, ev.as(olReject)})
		}
		return
	}
	if e.o.room > 0 && int64(e.queue.n+1)*overloadEventBytes > e.o.room {
		e.err = grownError(e.run, e.seed, fmt.Sprintf("the queue grew past %s jobs", prose.FormatCount(int64(e.queue.n))), ev.t, e.o.room)
		return
	}
	e.nSystem++
	e.queue.push(olEvent{deadline, ev.k})
	if !e.busy {
		e.startNext(ev.t)
	}
}

// complete handles the completion of the worker's job at t.
func (e *overloadEngine) complete(t int64) {
	e.r.Served++
	if !e.inTime {
		e.r.Late++
	}
	e.nSystem--
	e.busy = false
	e.startNext(t)
}

// startNext starts the next job at t, if any, skipping those that cannot be
// answered in time with DropExpired.
func (e *overloadEngine) startNext(t int64) {
	for e.queue.n > 0 {
		job := e.queue.pop()
		c := e.prof.finish(t, &e.piece)
		answered := c + e.back
		if e.o.DropExpired && answered > job.t {
			e.r.Skipped++
			e.nSystem--
			continue
		}
		e.busy, e.done, e.inTime = true, c, answered <= job.t
		if e.inTime {
			e.answer.push(olEvent{answered, job.as(olAnswer)})
		}
		return
	}
}

// throttled handles request k's attempt, made at t, that its budget
// rejected at the client: a failure the client learns of at once.
func (e *overloadEngine) throttled(t int64, k int) {
	e.state[k] |= 1
	if e.state[k]>>1 == 1 {
		e.r.Series.FirstSent[t/nsPerSec]-- // first counts the request as sent
	}
	e.r.Throttled++
	e.r.Series.Throttled[t/nsPerSec]++
	if t >= e.trigger {
		e.r.AttemptsFromTrigger++ // an attempt made, though not sent
	}
	e.r.Series.Failures[t/nsPerSec]++
	e.retry(t, k, kit.Rejection)
}

// success handles an answer that arrives in time.
func (e *overloadEngine) success(ev olEvent) {
	k := ev.req()
	e.state[k] |= 1
	if b := e.bud.of(e.dev[k]); b != nil {
		b.ended(ev.t, kit.Success, ev.attempt() > 1, e.ticket[k])
	}
	e.observe(ev.t, k, kit.Success)
	e.r.Successes++
	e.r.Series.Successes[ev.t/nsPerSec]++
	if k >= e.afterEnd {
		e.r.SuccessesAfterTrigger++
	}
	if !e.builtin {
		e.pol[k] = nil
	}
}

// failure handles a rejection or a timeout that request ev.req() learns
// of at ev.t, and schedules its retry.
func (e *overloadEngine) failure(ev olEvent, timeout bool) {
	k, t := ev.req(), ev.t
	e.state[k] |= 1
	if timeout {
		e.r.Timeouts++
	} else {
		e.r.Rejections++
	}
	e.r.Series.Failures[t/nsPerSec]++
	o := kit.Rejection
	if timeout {
		o = kit.Timeout
	}
	if b := e.bud.of(e.dev[k]); b != nil {
		b.ended(t, o, ev.attempt() > 1, e.ticket[k])
	}
	e.retry(t, k, o)
}

// retry schedules the retry of request k, whose attempt failed with o at
// t, if it has one left, its budget grants it, and its policy's delay
// falls before the horizon.
func (e *overloadEngine) retry(t int64, k int, o kit.Outcome) {
	if !e.observe(t, k, o) {
		return
	}
	a := int(e.state[k] >> 1)
	if a > e.o.Retries {
		e.r.Exhausted++
		e.release(k)
		return
	}
	b := e.bud.of(e.dev[k])
	var ticket float64
	if b != nil {
		var ok bool
		if ok, ticket = b.retry(t, o); !ok {
			e.r.Refused++
			e.r.Series.Refused[t/nsPerSec]++
			e.release(k)
			return
		}
	}
	d, ok := e.delay(k, a+1, t)
	if !ok || d >= e.horizon-t {
		if b != nil {
			b.abandon(ticket)
		}
		e.release(k)
		return
	}
	if b != nil {
		e.ticket[k] = ticket
	}
	e.retries.push(olEvent{t + d, olKey(olSend, k, a+1)})
}

// observe tells request k's policy, when it is a kit.Observer, how its
// attempt ended. A built-in policy's delays do not depend on it: a
// request's schedule ends with its success.
// It returns false when the policy panicked (e.err).
func (e *overloadEngine) observe(t int64, k int, o kit.Outcome) bool {
	if e.builtin {
		return true
	}
	if p, ok := e.pol[k].(kit.Observer); ok {
		if err := callObserve(p, o); err != nil {
			e.fail(k, int(e.state[k]>>1)+1, t, StopPanic, err)
			return false
		}
	}
	return true
}

// release drops request k's policy once it has no use.
func (e *overloadEngine) release(k int) {
	if !e.builtin {
		e.pol[k] = nil
	}
}

// delay returns the delay before attempt of request k, asked for at t, and
// false when the policy stops (counted in Stopped) or fails (e.err).
func (e *overloadEngine) delay(k, attempt int, t int64) (int64, bool) {
	var d int64
	var err error
	if e.builtin {
		d, err = e.deviceDelay(e.dev[k], attempt-2)
	} else {
		d, err = nextDelay(e.pol[k])
	}
	switch {
	case err == nil:
		return d, true
	case errors.Is(err, kit.ErrStop):
		e.r.Stopped++
	default:
		e.fail(k, attempt, t, causeOf(err), err)
	}
	return 0, false
}

// deviceDelay returns the j-th delay (from 0) of device dev's policy, with
// a built-in factory, whose policies are functions of the device: every
// request of the device gets the same delays, which its policy gives once
// and the engine keeps. The requests ask for them in order.
func (e *overloadEngine) deviceDelay(dev uint32, j int) (int64, error) {
	i := int(dev)*e.o.Retries + j
	if j < int(e.devHave[dev]) {
		if d := e.devDelay[i]; d >= 0 {
			return d, nil
		}
		return 0, kit.ErrStop
	}
	if e.devPol[dev] == nil {
		// A Spec's factory, kit's own code, makes a policy for any
		// device.
		e.devPol[dev] = e.f(kit.Device{ID: e.id(dev), Boot: e.boot})
	}
	d, err := nextDelay(e.devPol[dev])
	switch {
	case err == nil:
		e.devDelay[i] = d
	case errors.Is(err, kit.ErrStop):
		e.devDelay[i] = -1
	default:
		return 0, err
	}
	e.devHave[dev]++
	return d, err
}

// nextDelay asks p for its next delay, turning a panic or a negative delay
// into an error.
func nextDelay(p kit.Policy) (int64, error) {
	d, err := callPolicy(p)
	if err == nil && d < 0 {
		err = negativeDelay(d)
	}
	return int64(d), err
}

// id returns the id of device dev.
func (e *overloadEngine) id(dev uint32) string {
	if e.o.ids != nil {
		return e.o.ids[dev]
	}
	if e.ids[dev] == "" {
		e.ids[dev] = serialID(e.prefix, int(dev))
	}
	return e.ids[dev]
}

// fail records the error of request k's policy at t, asked for the delay
// before attempt (0 when making it).
func (e *overloadEngine) fail(k, attempt int, t int64, cause StopCause, err error) {
	if e.err == nil {
		e.err = overloadError(e.run, e.seed, e.id(e.dev[k]), k, attempt, t, cause, err)
	}
}

// overloadError is the error of a request's policy: a DeviceError whose Err
// says which request, and when.
func overloadError(run int, seed uint64, id string, k, attempt int, t int64, cause StopCause, err error) error {
	return &DeviceError{Run: run, Seed: seed, Device: id, Attempt: attempt, Cause: cause,
		Err: fmt.Errorf("request %d at %v: %w", k, time.Duration(t), err)}
}

// makePolicy calls the factory, turning a panic or a nil policy into an
// error and its cause.
func makePolicy(f kit.Factory, d kit.Device) (p kit.Policy, cause StopCause, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, cause, err = nil, StopPanic, fmt.Errorf("the factory panicked: %v", r)
		}
	}()
	if p = f(d); p == nil {
		return nil, StopSourceError, errors.New("the factory returned a nil policy")
	}
	return p, 0, nil
}

// An olHeap is a 4-ary min-heap of events, in the order of olEvent.before:
// the queue of the events whose time a policy chooses (an overload's
// retries, a reconnect's sends). Four children a node halve the depth of
// a binary heap, and a pop's sift-down compares siblings that share a
// cache line.
type olHeap []olEvent

// min returns the first event, or olNone.
func (h olHeap) min() olEvent {
	if len(h) == 0 {
		return olNone
	}
	return h[0]
}

func (h *olHeap) push(ev olEvent) {
	*h = append(*h, ev)
	h.up(len(*h)-1, ev)
}

// up puts ev in the hole at i, moving the hole up past the events that
// come after ev.
func (h olHeap) up(i int, ev olEvent) {
	for i > 0 {
		p := (i - 1) / 4
		if !ev.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

// pop removes the first event. The last event takes its place, and as a
// leaf's event it mostly belongs near the bottom again: rather than
// compare it with the earliest child at every level, pop moves the hole
// down the path of the earliest children to a leaf, choosing each by a
// tournament without branches, and sifts the last event up from there
// (Floyd's bottom-up sift). Events that compare equal are the same event,
// so the order they come out in is the same whatever the heap's layout.
func (h *olHeap) pop() {
	a := *h
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	*h = a
	if n == 0 {
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c+3 >= n {
			if c < n {
				m := c
				for j := c + 1; j < n; j++ {
					m += (j - m) * a[m].after(a[j])
				}
				a[i] = a[m]
				i = m
			}
			break
		}
		x := c + a[c].after(a[c+1])
		y := c + 2 + a[c+2].after(a[c+3])
		m := x + (y-x)*a[x].after(a[y])
		a[i] = a[m]
		i = m
	}
	a.up(i, last)
}

func (m overloadRunner) progress() *tracker { return &m.e.track }
