package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// A Kind is the shape of a scenario: how the fleet's attempts begin.
type Kind string

// The scenarios.
const (
	// Outage: every device fails together at t0 and retries until it is
	// served, its policy stops or the horizon ends. The server is down for
	// the first Down seconds.
	Outage Kind = "outage"
	// LongOutage is an Outage whose server stays down long enough (an hour
	// by default) for every device to reach its cap, as after a site loses
	// its uplink for an afternoon: a fleet without jitter then retries in
	// perfect unison at the cap, the whole fleet in one window every cap,
	// which Run.RetryArrivals shows window by window. Its peak is often
	// still the first second's burst of quick retries, as in an Outage.
	LongOutage Kind = "long-outage"
	// Storm: every device fails at once and keeps failing for Retries
	// retries, whatever the server. Nothing is served; the replay counts
	// arrivals only, and the peak is the largest number of retries in one
	// window. The peak comes from the first retries, so it scales with the
	// window over the policy's base: with base 1s, 20ms windows and ten
	// retries, no jitter peaks at the whole fleet while full, equal and
	// decorrelated jitter peak at about N/32, N/24 and N/74.
	Storm Kind = "storm"
	// Periodic: each device fires a timer every Period (a sync window, an
	// update poll, a metric push), offset by a stable per-device value: the
	// 64-bit FNV-1a hash of its id ([kit.HashID]) modulo the period, or,
	// with TimerOffset OffsetPolicy, its policy's first delay. A rejected
	// firing is retried on the device's policy until it is served, the
	// policy stops, or the next firing supersedes it.
	//
	// Firings are not retries. The timers' own load, the most firings in
	// one window, is Run.PeakFirings, judged against the budget as
	// Run.TimerLoadRatio; the retries are the re-sends of rejected
	// firings only, and Run.PeakRatio judges them. The policy times those
	// re-sends and nothing else, unless it also gives the offsets
	// (OffsetPolicy): each device keeps one policy for the whole replay,
	// whose delays time its re-sends in order, from firing to firing.
	Periodic Kind = "periodic"
	// PeriodicAligned is Periodic without the per-device offset: every
	// timer fires on the period's boundary (within StartSpread), as a fleet
	// configured to sync "every hour on the hour" does. With TimerOffset
	// OffsetPolicy, each device's policy's first delay is added to its
	// start within StartSpread.
	PeriodicAligned Kind = "periodic-aligned"
	// Overload: an open-loop Poisson stream of Rate requests a second,
	// each sent by a device chosen at random, into a server with one FIFO
	// queue served at AcceptRate jobs a second that never cancels work. A
	// client waits at most Timeout for each attempt and retries up to
	// Retries times on its policy, each request starting the policy
	// afresh. The trigger is a dip of the capacity to Dip of AcceptRate
	// for DipFor from DipAt, after which it returns at once or over Ramp;
	// QueueLimit and DropExpired are the server-side fixes. Retries of
	// timed-out work can keep the queue full of work nobody waits for long
	// after the capacity is back, a metastable storm. It is judged on
	// recovery (see [Result.Status]), and its defaults show the storm: 200
	// devices, 100 jobs a second, 70 requests a second, a 10ms round
	// trip, 1s timeouts, 3 retries and a dip to 10% for 5s from 30s, over
	// 300s. The model's semantics, event by event, are those of the
	// package's overload engine, documented in its source (overload.go).
	Overload Kind = "overload"
	// Reconnect: every device loses its session at t0 and reconnects to a
	// broker that is down for Down, then has CPU units a second. A
	// handshake costs Handshake units, a refusal 1; the units left at the
	// end of each second warm the broker up, and until WarmUp units have
	// done so it drops each session ColdDrop after accepting it (or, with
	// RefuseCold, refuses it). OnDrop is how a device reacts to a drop. It
	// is judged on recovery and on the devices served by the horizon.
	// Defaults: 2,000 devices over 10ms, a 50ms round trip, 5s down, 2,000
	// units a second, handshakes of 10, a warm-up of 4,000, drops after
	// 100ms, OnDrop reset, over 300s.
	Reconnect Kind = "reconnect"
	// Contention: optimistic concurrency on one row, the model of the AWS
	// Architecture Blog's backoff simulator. Clients each read the row and
	// write it conditionally on its version; a client whose write failed
	// backs off on its policy and reads again, until it succeeds. Each
	// message takes |Normal(Latency, LatencySD)|. The figures are the
	// writes (the work, Run.Attempts) and the time until the last client
	// succeeds (Run.AllServed), beside the simulator's own strategies and
	// no backoff at all (Result.Baselines). Defaults: 100 clients, 10ms
	// and 2ms, a horizon of 1h; the simulator's strategies use a base of
	// 5ms and a cap of 2s, and its first backoff is twice the base.
	Contention Kind = "contention"
)

// An Offset says where the offset of a periodic device's timer within the
// period comes from.
type Offset string

// The offsets of the periodic kinds.
const (
	// OffsetScenario is the kind's own offset, the default: the hash of
	// the device's id modulo the period in Periodic, the start spread
	// alone in PeriodicAligned. The policy then times the re-sends of
	// rejected firings only, and the timers' load is none of its doing.
	OffsetScenario Offset = "scenario"
	// OffsetPolicy takes each device's offset from its policy: the
	// policy's first delay, modulo the period, is when the device's timer
	// first fires after t0 (after its start within StartSpread in
	// PeriodicAligned), and its later delays time the re-sends. This
	// judges the offset a fleet ships, such as a sync timer that waits a
	// jittered delay after boot: the timers' load is then the policy's
	// doing, and judged as its retries are (see [Result.Status]). A
	// policy that stops before its first delay fires on the boundary.
	OffsetPolicy Offset = "policy"
)

// Offsets returns the offsets of the periodic kinds, in the order of
// their constants.
func Offsets() []Offset { return []Offset{OffsetScenario, OffsetPolicy} }

// A DropRule is how a Reconnect device reacts when the broker drops the
// session it has just accepted.
type DropRule string

// The drop rules.
const (
	// DropReset resets the backoff and reconnects at once, as several
	// MQTT clients do after a successful connect: the default.
	DropReset DropRule = "reset"
	// DropResetJitter resets the backoff and reconnects after a uniform
	// draw from zero to the reset policy's first delay, which the next
	// failure's delay follows.
	DropResetJitter DropRule = "reset-jitter"
	// DropContinue counts the drop as a failure, as a refusal is: the
	// backoff goes on growing.
	DropContinue DropRule = "continue"
)

// DropRules returns the drop rules, in the order of their constants.
func DropRules() []DropRule { return []DropRule{DropReset, DropResetJitter, DropContinue} }

// DipStall is the Dip of an Overload whose capacity dips to nothing: the
// worker stalls, and the work in progress resumes when the capacity
// returns. The zero Dip is the default, a dip to 10%.
const DipStall = -1.0

// Limits beyond which a scenario is refused.
const (
	// maxClients is the largest fleet a replay holds: devices are numbered
	// with 32 bits.
	maxClients = math.MaxUint32
	// maxHorizon is the longest stretch of simulated time a replay covers,
	// and the longest Down, Window, StartSpread and Period.
	maxHorizon = 31 * 24 * time.Hour
	// maxWindows is the most windows a run's histograms hold: the horizon
	// over the window (in a Storm, the horizon or the start spread,
	// whichever is longer). A month in 1s windows is 2.7 million; an hour
	// in 1ms windows 3.6 million. Finer histograms are more than a chart
	// or a peak needs, and take 16 bytes a window in every run replayed at
	// once.
	maxWindows = 10_000_000
	// maxRetries is the most retries of each device in a Storm.
	maxRetries = 100_000
	// defaultMemoryLimit is the default of Scenario.MemoryLimit.
	defaultMemoryLimit = 4 << 30
)

// Limits of fields without a constant of their own.
const (
	minAcceptRate = 1e-9 // per second
	maxAcceptRate = 1e12 // per second
	maxThreshold  = 1e12
	// maxMaxAttempts keeps a device's count of attempts, 32 bits, from
	// wrapping: a periodic device's served firings add to it.
	maxMaxAttempts = 1_000_000_000
	// maxFirings is the most timer firings of one device over the horizon
	// in the periodic kinds.
	maxFirings = 1_000_000
)

// A Scenario describes one fleet replay. Every field left zero takes the
// default given beside it; negative values are refused by
// [Scenario.Validate]. Times are measured from t0, the instant the fleet
// fails.
type Scenario struct {
	// Kind is the scenario; default Outage.
	Kind Kind
	// Server is the server model; default PerSecond, or RetryAfter when
	// RetryAfter, that server's hint, is set. Storm has no server.
	Server Server
	// Clients is the number of devices; default 400, or len(IDs).
	Clients int
	// IDs, when set, are the fleet's device ids, the same in every run:
	// device i of every run is IDs[i], its policy is made with that id, and
	// a [DeviceError] names it. A fleet of recorded devices (a trace) is
	// replayed this way. Clients must then be zero or len(IDs). Without
	// IDs, each run's fleet is a serial range chosen by the run's seed,
	// such as dev-5f0e2a91-0000017 for device 17. The ids are not copied;
	// do not change them during a replay.
	IDs []string
	// AcceptRate is the number of requests the server accepts per second;
	// default 50. In a Storm it only sets the budget that PeakRatio is
	// measured against.
	AcceptRate float64
	// Burst is the TokenBucket's capacity; default AcceptRate (one second's
	// worth), and at least 1. Another server refuses it.
	Burst float64
	// Down is how long the server is down from t0; default 2s for Outage,
	// 1h for LongOutage, and no outage for the other kinds.
	Down time.Duration
	// Window is the width of the histogram's windows and of the peaks;
	// default 1s, and 20ms for Storm. The horizon may hold at
	// most maxWindows of them.
	Window time.Duration
	// StartSpread is the window over which the devices' first attempts
	// (first timer firings in PeriodicAligned) are spread, uniformly at
	// random; default 10ms, and none for Storm.
	StartSpread time.Duration
	// Horizon is when the replay stops: a device that would retry later is
	// counted as pending. Default 1h for Outage and Storm, Down+1h for
	// LongOutage, and 5 periods for the periodic kinds; at most maxHorizon.
	Horizon time.Duration
	// RetryAfter is the RetryAfter server's hint; default 1s. Another
	// server refuses it.
	RetryAfter time.Duration
	// Retries is the number of retries of each device in a Storm; default
	// 10, at most maxRetries.
	Retries int
	// Period is the timer period of the periodic kinds; default 1m. The
	// horizon may hold at most a million periods. The other kinds, which
	// fire no timers, refuse it.
	Period time.Duration
	// TimerOffset is where the periodic kinds' timer offsets come from;
	// default OffsetScenario. The other kinds fire no timers, and refuse
	// OffsetPolicy.
	TimerOffset Offset
	// Threshold is the highest peak ratio that passes; default 0.6, the
	// peak of retries comfortably under the accept budget; at most 1e12.
	Threshold float64
	// MaxAttempts bounds the attempts of one device: a device that reaches
	// it gives up, so that a policy returning zero delays cannot hold the
	// replay in one instant. Default 10,000; at most 1,000,000,000.
	MaxAttempts int
	// MemoryLimit is the most memory, in bytes, that a replay may need, by
	// the estimate of [Scenario.Memory]: the runs replayed at once and the
	// results kept of every run. Default 4 GiB. Replay
	// runs fewer runs at once when several would not fit, and
	// [Scenario.Validate] refuses a replay that does not fit even one run
	// at a time.
	MemoryLimit int64

	// The fields below are the server models' (Overload, Reconnect and
	// Contention); the other kinds refuse them.

	// Rate is an Overload's offered load: requests a second over the
	// whole fleet, a Poisson stream; default 70. AcceptRate is then the
	// server's capacity, jobs a second (default 100), and Clients the
	// devices that send the requests (default 200).
	Rate float64
	// RTT is the network's round trip in an Overload or a Reconnect, half
	// each way; default 10ms and 50ms.
	RTT time.Duration
	// Timeout is how long an Overload's client waits for each attempt's
	// answer; default 1s. An answer later than that is ignored, though the
	// server still does the work. Retries is then the most retries of one
	// request, default 3.
	Timeout time.Duration
	// Dip is an Overload's capacity during the dip, as a fraction of
	// AcceptRate, in (0, 1); default 0.1. DipStall stalls the worker.
	Dip float64
	// DipFor is how long the dip lasts, the trigger; default 5s.
	DipFor time.Duration
	// DipAt is when the dip starts; default 30s.
	DipAt time.Duration
	// Ramp is how long the capacity takes after the dip to return,
	// linearly, to AcceptRate; default none, at once.
	Ramp time.Duration
	// QueueLimit, when positive, bounds an Overload's queue: an attempt
	// that arrives while as many jobs are waiting or in service is
	// rejected at once. Default none.
	QueueLimit int
	// DropExpired makes an Overload's server skip, at no cost, a job whose
	// answer could no longer reach its client before the deadline.
	DropExpired bool
	// OnDrop is how a Reconnect device reacts to a dropped session;
	// default DropReset.
	OnDrop DropRule
	// RefuseCold makes a Reconnect broker refuse connects until it is
	// warm, instead of accepting and dropping them. OnDrop and ColdDrop
	// may still be set, as the devices' rule and the broker's drop they
	// describe, and then have no effect: a broker that refuses until it
	// is warm drops no session. So the change to RefuseCold is gated
	// with the rest of a scenario as it was.
	RefuseCold bool
	// CPU is a Reconnect broker's CPU units a second once it is up;
	// default 2,000. AcceptRate is then its handshakes a second, the
	// budget of the peak ratio: CPU over Handshake, which it must equal
	// when set.
	CPU float64
	// Handshake is what a Reconnect's accepted connect costs, in CPU
	// units; default 10. A refusal costs 1.
	Handshake float64
	// WarmUp is the CPU units a Reconnect broker must spend on warming up,
	// from the units left at the end of each second, before it keeps the
	// sessions it accepts; default 4,000.
	WarmUp float64
	// ColdDrop is how long after accepting a session a cold Reconnect
	// broker drops it; default 100ms.
	ColdDrop time.Duration
	// Latency and LatencySD are the mean and the standard deviation of the
	// normal distribution whose absolute value is a Contention message's
	// network delay; default 10ms and 2ms.
	Latency, LatencySD time.Duration
	// Budget limits an Overload's retries, or a Reconnect's reconnects
	// after a failure: a retry budget, a throttle or a circuit breaker,
	// held by each device or shared by the fleet (see [BudgetKind]).
	// Default none.
	Budget Budget
}

// Defaults of the Scenario fields left zero.
const (
	defaultClients    = 400
	defaultAcceptRate = 50.0
	defaultDown       = 2 * time.Second
	defaultLongDown   = time.Hour
	defaultWindow     = time.Second
	// defaultStormWindow is a Storm's default window. Nothing is served in
	// a storm, so its figure is how tightly the retries bunch: with the
	// fleet failing at one instant, the first retries of full jitter from a
	// base of 1s land within that second, and a 1s window would count them
	// all whatever the jitter. At 20ms, no jitter peaks at the whole fleet
	// while full, equal and decorrelated jitter peak at about N/32, N/24 and
	// N/74.
	defaultStormWindow = 20 * time.Millisecond
	defaultStartSpread = 10 * time.Millisecond
	defaultHorizon     = time.Hour
	defaultRetryAfter  = time.Second
	defaultRetries     = 10
	defaultPeriod      = time.Minute
	defaultThreshold   = 0.6
	defaultMaxAttempts = 10000
)

// Defaults of the server models' fields, and of the shared fields where
// the models' differ.
const (
	defaultOverloadClients    = 200
	defaultOverloadAcceptRate = 100.0
	defaultRate               = 70.0
	defaultOverloadRTT        = 10 * time.Millisecond
	defaultTimeout            = time.Second
	defaultOverloadRetries    = 3
	defaultDip                = 0.1
	defaultDipFor             = 5 * time.Second
	defaultDipAt              = 30 * time.Second
	defaultModelHorizon       = 300 * time.Second
	defaultReconnectClients   = 2000
	defaultReconnectRTT       = 50 * time.Millisecond
	defaultReconnectDown      = 5 * time.Second
	defaultCPU                = 2000.0
	defaultHandshake          = 10.0
	defaultWarmUp             = 4000.0
	defaultColdDrop           = 100 * time.Millisecond
)

// WithDefaults returns s with every zero field set to its default.
func (s Scenario) WithDefaults() Scenario {
	def(&s.Kind, Outage)
	s.Server = s.server()
	m := s.Kind.model()
	s = m.defaults(s)
	if s.Clients == 0 {
		s.Clients = defaultClients
		if len(s.IDs) > 0 {
			s.Clients = len(s.IDs)
		}
	}
	def(&s.Window, defaultWindow)
	switch {
	case s.TimerOffset == "" && m.timers():
		s.TimerOffset = OffsetScenario
	case s.TimerOffset == OffsetScenario && !m.timers():
		// The other kinds fire no timers: their own offset is none.
		s.TimerOffset = ""
	}
	def(&s.MemoryLimit, defaultMemoryLimit)
	if len(s.IDs) == 0 {
		s.IDs = nil
	}
	return s
}

// Validate reports the first field of s or cfg, after defaults, that is
// out of range, saying which and what range it must be in, and refuses a
// replay with the policies f makes that would need more memory than
// s.MemoryLimit even one run at a time, saying how much it would need and
// what to change ([Scenario.Memory]). f may be nil when the policies are
// not known yet (a program not yet started): the memory is then that of a
// factory the replay knows nothing of, the most any needs. Validate(f,
// cfg) is what [Replay](ctx, f, s, cfg) refuses before any work: a replay
// that Validate accepts produces finite figures and needs no more than its
// limit. Its error is a *[kit.ConfigError].
func (s Scenario) Validate(f kit.Factory, cfg Config) error {
	if err := s.validateFields(); err != nil {
		return err
	}
	if err := cfg.WithDefaults().validate(); err != nil {
		return err
	}
	if kind := s.WithDefaults().Kind; cfg.TippingPoint && !kind.model().tips() {
		return invalid("tipping-point applies to the overload scenario only, not to the %s scenario", kind)
	}
	switch kind := s.WithDefaults().Kind; {
	case cfg.CollapseBound != 0 && !kind.Recovers():
		return invalid("collapse-bound applies to the overload and reconnect scenarios only, not to the %s scenario", kind)
	case cfg.CollapseBound != 0 && cfg.Runs != 0:
		return invalid("collapse-bound sets the runs itself: leave runs unset, not %d", cfg.Runs)
	}
	b := s.WithDefaults().budget(f, cfg.WithDefaults())
	if b.workers == 0 {
		return b.refusal()
	}
	return nil
}

// validateFields reports the first field of s, after defaults, that is out
// of range.
func (s Scenario) validateFields() error {
	if len(s.IDs) > 0 && s.Clients != 0 && s.Clients != len(s.IDs) {
		return invalid("clients %d but %d ids: leave clients zero when the ids set the fleet", s.Clients, len(s.IDs))
	}
	if s.Kind != "" && !slices.Contains(Kinds(), s.Kind) {
		return invalid("unknown scenario %q (want %s)", string(s.Kind), kindNames())
	}
	if err := s.modelFieldsApply(); err != nil {
		return err
	}
	s = s.WithDefaults()
	return s.Kind.model().validate(s)
}

// validateFleet reports the first field of s, a fleet kind's scenario
// after defaults, out of range, on its own or with the others: m is the
// kind's model, and check, when not nil, the kind's own check of the
// fields together.
func validateFleet(s Scenario, m model, check func(Scenario) error) error {
	if err := s.validateRanges(m); err != nil {
		return err
	}
	if err := s.validateCombination(m, check); err != nil {
		return err
	}
	for i, id := range s.IDs {
		if id == "" {
			return invalid("IDs[%d] is empty", i)
		}
	}
	return nil
}

// validateRanges checks each field of s, after defaults, that a fleet
// kind reads, on its own; m is the kind's model.
func (s Scenario) validateRanges(m model) error {
	switch {
	case s.Server.model() == nil:
		return invalid("unknown server %q (want %s)", string(s.Server), serverNames())
	case s.TimerOffset != "" && s.TimerOffset != OffsetScenario && s.TimerOffset != OffsetPolicy:
		return invalid("unknown timer offset %q (want scenario or policy)", string(s.TimerOffset))
	case s.TimerOffset == OffsetPolicy && !m.timers():
		return invalid("timer offset %q is for the periodic kinds, not %s", string(s.TimerOffset), s.Kind)
	case s.Clients < 0:
		return invalid("clients %d is negative", s.Clients)
	case s.Clients > maxClients:
		return invalid("clients %d is more than a replay holds (%d)", s.Clients, maxClients)
	case !(s.AcceptRate > 0) || math.IsInf(s.AcceptRate, 0):
		return invalid("accept rate %v per second is not a positive number", s.AcceptRate)
	case s.AcceptRate > maxAcceptRate:
		return invalid("accept rate %v per second is beyond 1e12", s.AcceptRate)
	case s.AcceptRate < minAcceptRate:
		return invalid("accept rate %v per second is below 1e-9", s.AcceptRate)
	case !(s.Burst >= 1) || math.IsInf(s.Burst, 0):
		return invalid("burst %v is not a number of at least 1", s.Burst)
	case s.Down < 0:
		return invalid("down %v is negative", s.Down)
	case s.Down > maxHorizon:
		return invalid("down %v is beyond the longest replay, %v (%d days)", s.Down, maxHorizon, maxHorizon/(24*time.Hour))
	case s.Window < 0:
		return invalid("window %v is negative", s.Window)
	case s.Window > maxHorizon:
		return invalid("window %v is beyond the longest replay, %v (%d days)", s.Window, maxHorizon, maxHorizon/(24*time.Hour))
	case s.StartSpread < 0:
		return invalid("start spread %v is negative", s.StartSpread)
	case s.StartSpread > maxHorizon:
		return invalid("start spread %v is beyond the longest replay, %v (%d days)", s.StartSpread, maxHorizon, maxHorizon/(24*time.Hour))
	case s.Period < 0:
		return invalid("period %v is negative", s.Period)
	case s.Period > maxHorizon:
		return invalid("period %v is beyond the longest replay, %v (%d days)", s.Period, maxHorizon, maxHorizon/(24*time.Hour))
	case s.Horizon < 0:
		return invalid("horizon %v is negative", s.Horizon)
	case s.Horizon > maxHorizon:
		return invalid("horizon %v is beyond the longest replay, %v (%d days)", s.Horizon, maxHorizon, maxHorizon/(24*time.Hour))
	case s.RetryAfter < 0:
		return invalid("retry-after %v is negative", s.RetryAfter)
	case s.Retries < 0:
		return invalid("retries %d is negative", s.Retries)
	case s.Retries > maxRetries:
		return invalid("retries %d is more than a storm replays (%d)", s.Retries, maxRetries)
	}
	return nil
}

// validateCombination checks the fields of s, after defaults, that a fleet
// kind reads, against each other: m is the kind's model, and check, when
// not nil, its own check of them.
func (s Scenario) validateCombination(m model, check func(Scenario) error) error {
	switch {
	case m.timers() && s.Horizon/s.Period > maxFirings:
		return invalid("a %v period fires %d times over the %v horizon, more than 1,000,000: use a longer period or a shorter horizon", s.Period, s.Horizon/s.Period, s.Horizon)
	case s.Window > 0 && s.Window > s.Horizon/10:
		// The peak of one window that spans most of the replay is its
		// average, and a storm would pass unseen.
		return invalid("window %v leaves fewer than 10 windows in the %v horizon: use a narrower window or a longer horizon", s.Window, s.Horizon)
	case s.StartSpread > m.span(s):
		return invalid("start spread %v is longer than the %v horizon: devices would make their first attempt after the replay ends", s.StartSpread, s.Horizon)
	}
	if check != nil {
		if err := check(s); err != nil {
			return err
		}
	}
	switch {
	case !(s.Threshold > 0) || math.IsInf(s.Threshold, 0):
		return invalid("threshold %v is not a positive number", s.Threshold)
	case s.Threshold > maxThreshold:
		return invalid("threshold %v is beyond 1e12", s.Threshold)
	case s.MaxAttempts < 0:
		return invalid("max attempts %d is negative", s.MaxAttempts)
	case s.MaxAttempts > maxMaxAttempts:
		return invalid("max attempts %d is beyond 1,000,000,000", s.MaxAttempts)
	case s.MemoryLimit < 0:
		return invalid("memory limit %d is negative", s.MemoryLimit)
	case s.windows() > maxWindows:
		return invalid("%v windows over %v make %s windows, more than %s: use wider windows or a shorter horizon", s.Window, s.span(), prose.FormatCount(s.windows()), prose.FormatCount(maxWindows))
	}
	return nil
}

// span returns the stretch of simulated time the arrivals of a run of s,
// after defaults, fall in: before the horizon, and in a Storm, whose first
// attempts are counted wherever they fall, before the start spread too.
func (s Scenario) span() time.Duration { return s.Kind.model().span(s) }

// windows returns the number of windows a run's histograms hold: those
// that the span's arrivals can fall in.
func (s Scenario) windows() int64 {
	return int64((max(s.span(), 1)-1)/s.Window) + 1
}

// firings returns the most timer firings of one device over the horizon
// in the periodic kinds, and 1 in the others: the most times a device is
// served.
func (s Scenario) firings() int64 { return s.Kind.model().firings(s) }

// windowBudget returns the number of requests the server accepts in one
// window while it is up.
func (s Scenario) windowBudget() float64 { return s.AcceptRate * s.Window.Seconds() }

// MarshalJSON writes s after defaults, with times in seconds. The fields
// of the server models (Overload, Reconnect, Contention) are written when
// they are not zero, so that the other kinds' JSON has none of them; a
// missing one reads as zero. An Overload's "dip" is the fraction of the
// capacity left during the dip, 0 for a stall (DipStall); its "retries"
// is -1 for clients that never retry (NoRetries).
func (s Scenario) MarshalJSON() ([]byte, error) {
	d := s.WithDefaults()
	var dip *float64
	if d.Dip != 0 {
		// Written as the fraction it is: a stall leaves none.
		f := d.Dip
		if f == DipStall {
			f = 0
		}
		dip = &f
	}
	return json.Marshal(scenarioJSON{
		Kind:         d.Kind,
		Server:       d.Server,
		Clients:      d.Clients,
		AcceptRate:   d.AcceptRate,
		Burst:        d.Burst,
		DownS:        d.Down.Seconds(),
		WindowS:      d.Window.Seconds(),
		StartSpreadS: d.StartSpread.Seconds(),
		HorizonS:     d.Horizon.Seconds(),
		RetryAfterS:  d.RetryAfter.Seconds(),
		Retries:      d.Retries,
		PeriodS:      d.Period.Seconds(),
		TimerOffset:  d.TimerOffset,
		Threshold:    d.Threshold,
		MaxAttempts:  d.MaxAttempts,
		Rate:         d.Rate,
		RTTS:         d.RTT.Seconds(),
		TimeoutS:     d.Timeout.Seconds(),
		Dip:          dip,
		DipForS:      d.DipFor.Seconds(),
		DipAtS:       d.DipAt.Seconds(),
		RampS:        d.Ramp.Seconds(),
		QueueLimit:   d.QueueLimit,
		DropExpired:  d.DropExpired,
		OnDrop:       d.OnDrop,
		RefuseCold:   d.RefuseCold,
		CPU:          d.CPU,
		Handshake:    d.Handshake,
		WarmUp:       d.WarmUp,
		ColdDropS:    d.ColdDrop.Seconds(),
		LatencyS:     d.Latency.Seconds(),
		LatencySDS:   d.LatencySD.Seconds(),
		Budget:       d.Budget.String(),
		BudgetScope:  d.Budget.Scope,
	})
}

type scenarioJSON struct {
	Kind         Kind    `json:"kind"`
	Server       Server  `json:"server"`
	Clients      int     `json:"clients"`
	AcceptRate   float64 `json:"accept_rate"`
	Burst        float64 `json:"burst"`
	DownS        float64 `json:"down_s"`
	WindowS      float64 `json:"window_s"`
	StartSpreadS float64 `json:"start_spread_s"`
	HorizonS     float64 `json:"horizon_s"`
	RetryAfterS  float64 `json:"retry_after_s"`
	Retries      int     `json:"retries"`
	PeriodS      float64 `json:"period_s"`
	TimerOffset  Offset  `json:"timer_offset,omitempty"`
	Threshold    float64 `json:"threshold"`
	MaxAttempts  int     `json:"max_attempts"`

	// The server models' fields.
	Rate        float64  `json:"rate,omitzero"`
	RTTS        float64  `json:"rtt_s,omitzero"`
	TimeoutS    float64  `json:"timeout_s,omitzero"`
	Dip         *float64 `json:"dip,omitzero"` // nil: no dip; 0: a stall
	DipForS     float64  `json:"dip_for_s,omitzero"`
	DipAtS      float64  `json:"dip_at_s,omitzero"`
	RampS       float64  `json:"ramp_s,omitzero"`
	QueueLimit  int      `json:"queue_limit,omitzero"`
	DropExpired bool     `json:"drop_expired,omitzero"`
	OnDrop      DropRule `json:"on_drop,omitzero"`
	RefuseCold  bool     `json:"refuse_cold,omitzero"`
	CPU         float64  `json:"cpu,omitzero"`
	Handshake   float64  `json:"handshake,omitzero"`
	WarmUp      float64  `json:"warm_up,omitzero"`
	ColdDropS   float64  `json:"cold_drop_s,omitzero"`
	LatencyS    float64  `json:"latency_s,omitzero"`
	LatencySDS  float64  `json:"latency_sd_s,omitzero"`
	// The budget, as ParseBudget reads it, and its scope.
	Budget      string      `json:"budget,omitzero"`
	BudgetScope BudgetScope `json:"budget_scope,omitzero"`
}

// invalid returns a *kit.ConfigError saying what is wrong.
func invalid(format string, args ...any) error {
	return &kit.ConfigError{Package: "sim", Err: fmt.Errorf(format, args...)}
}

// server returns the server s names, or its default: RetryAfter when
// that server's hint is set (the hint is that server's), else PerSecond.
func (s Scenario) server() Server {
	switch {
	case s.Server != "":
		return s.Server
	case s.RetryAfter != 0:
		return RetryAfter
	}
	return PerSecond
}

// A FleetPart is a part of the fleet a scenario describes: a field, by
// the name a refusal gives it, and its value, in words.
type FleetPart struct {
	Field, Text string
}

// DefaultedParts returns the parts of the fleet s, as described before
// defaults, leaves to its kind's defaults, with the defaults' values: the
// devices (unless s lists their ids), and the server's capacity and the
// trigger where the kind has them — the accept rate (but in a storm,
// which judges arrivals alone) and the down time; an overload's offered
// rate; a reconnect's CPU. A figure of a fleet that is in part a default
// says little of the user's fleet, and the parts say what to describe.
func (s Scenario) DefaultedParts() []FleetPart {
	d := s.WithDefaults()
	var parts []FleetPart
	add := func(unset bool, field, text string) {
		if unset {
			parts = append(parts, FleetPart{field, text})
		}
	}
	add(s.Clients == 0 && len(s.IDs) == 0, "clients", fmt.Sprintf("%d clients", d.Clients))
	return append(parts, d.Kind.model().parts(s, d)...)
}
