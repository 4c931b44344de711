package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NoRetries is the Retries of an Overload whose clients never retry: the
// baseline a fleet's recovery is compared with. The zero Retries is the
// default, 3.
const NoRetries = -1

// kindNames lists the scenarios for a refusal.
func kindNames() string {
	names := make([]string, 0, len(Kinds()))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// modelField is a field that only some kinds have: its name as a reader
// (and the CLI's flag) calls it, whether a scenario sets it, and the kinds
// it applies to.
type modelField struct {
	name  string
	set   func(Scenario) bool
	kinds []Kind
}

var (
	onlyOverload  = []Kind{Overload}
	onlyReconnect = []Kind{Reconnect}
	fleetKinds    = []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned}
)

// modelFields are the fields that apply to some kinds only, before
// defaults: a scenario of another kind that sets one is refused, naming
// it, rather than replayed as if it did not.
var modelFields = []modelField{
	{"rate", func(s Scenario) bool { return s.Rate != 0 }, onlyOverload},
	{"rtt", func(s Scenario) bool { return s.RTT != 0 }, []Kind{Overload, Reconnect}},
	{"timeout", func(s Scenario) bool { return s.Timeout != 0 }, onlyOverload},
	{"dip", func(s Scenario) bool { return s.Dip != 0 }, onlyOverload},
	{"dip-for", func(s Scenario) bool { return s.DipFor != 0 }, onlyOverload},
	{"dip-at", func(s Scenario) bool { return s.DipAt != 0 }, onlyOverload},
	{"ramp", func(s Scenario) bool { return s.Ramp != 0 }, onlyOverload},
	{"queue-limit", func(s Scenario) bool { return s.QueueLimit != 0 }, onlyOverload},
	{"drop-expired", func(s Scenario) bool { return s.DropExpired }, onlyOverload},
	{"on-drop", func(s Scenario) bool { return s.OnDrop != "" }, onlyReconnect},
	{"refuse-cold", func(s Scenario) bool { return s.RefuseCold }, onlyReconnect},
	{"cpu", func(s Scenario) bool { return s.CPU != 0 }, onlyReconnect},
	{"handshake", func(s Scenario) bool { return s.Handshake != 0 }, onlyReconnect},
	{"warm-up", func(s Scenario) bool { return s.WarmUp != 0 }, onlyReconnect},
	{"cold-drop", func(s Scenario) bool { return s.ColdDrop != 0 }, onlyReconnect},
	{"latency", func(s Scenario) bool { return s.Latency != 0 || s.LatencySD != 0 }, []Kind{Contention}},
	{"budget", func(s Scenario) bool { return s.Budget.Kind != NoBudget }, []Kind{Overload, Reconnect}},
	{"budget-scope", func(s Scenario) bool { return s.Budget != Budget{} }, []Kind{Overload, Reconnect}},
	// The servers' own fields first: a flag that sets one picks its
	// server too, and is the one to name.
	{"burst", func(s Scenario) bool { return s.Burst != 0 }, fleetKinds},
	{"retry-after", func(s Scenario) bool { return s.RetryAfter != 0 }, fleetKinds},
	{"server", func(s Scenario) bool { return s.Server != "" && s.Server != PerSecond }, fleetKinds},
	{"window", func(s Scenario) bool { return s.Window != 0 && s.Window != DefaultWindow }, fleetKinds},
	{"period", func(s Scenario) bool { return s.Period != 0 }, fleetKinds},
	{"timer-offset", func(s Scenario) bool { return s.TimerOffset != "" && s.TimerOffset != OffsetScenario }, fleetKinds},
	{"down", func(s Scenario) bool { return s.Down != 0 }, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned, Reconnect}},
	{"start-spread", func(s Scenario) bool { return s.StartSpread != 0 }, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned, Reconnect}},
	{"accept-rate", func(s Scenario) bool { return s.AcceptRate != 0 }, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned, Overload, Reconnect}},
	{"retries", func(s Scenario) bool { return s.Retries != 0 }, []Kind{Storm, Overload}},
	// The recovery kinds are judged on recovery, and report their peak
	// ratio without a threshold: their default, which WithDefaults sets,
	// stands for no choice.
	{"threshold", func(s Scenario) bool {
		return s.Threshold != 0 && !(s.Kind.Recovers() && s.Threshold == DefaultThreshold)
	}, fleetKinds},
	// An overload's requests are bounded by Retries, a contention's
	// clients by their success: neither has an attempt limit.
	{"max-attempts", func(s Scenario) bool { return s.MaxAttempts != 0 }, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned, Reconnect}},
}

// modelFieldsApply refuses a field, set before defaults, that s's kind
// does not have.
func (s Scenario) modelFieldsApply() error {
	kind := s.Kind
	if kind == "" {
		kind = Outage
	}
	for _, f := range modelFields {
		if !f.set(s) || slices.Contains(f.kinds, kind) {
			continue
		}
		if f.name == "threshold" && kind.ServerModel() {
			return invalid("threshold does not apply to the %s scenario: it is judged on %s, not on a peak ratio", kind, map[bool]string{true: "recovery", false: "its clients' success"}[kind.Recovers()])
		}
		if len(f.kinds) == 1 {
			return invalid("%s is a field of the %s scenario, not of %s", f.name, f.kinds[0], kind)
		}
		return invalid("%s does not apply to the %s scenario", f.name, kind)
	}
	// The fields of one server or of some fleet kinds, which the others
	// would replay as if they were not set.
	server := s.server()
	switch {
	case s.Retries == NoRetries && kind != Overload:
		return invalid("retries 0 applies to the overload scenario only: a %s replay retries at least once", kind)
	case s.Burst != 0 && server != TokenBucket:
		return invalid("burst applies to the %s server only, not to the %s server", TokenBucket, server)
	case s.RetryAfter != 0 && server != RetryAfter:
		return invalid("retry-after applies to the %s server only, not to the %s server", RetryAfter, server)
	case s.Period != 0 && !kind.periodic():
		return invalid("period applies to the periodic scenarios only, not to the %s scenario", kind)
	}
	return nil
}

// validateModel reports the first field of a server model's scenario,
// after defaults, that is out of range, naming it as the CLI's flag does.
func (s Scenario) validateModel() error {
	if s.Clients < 0 {
		return invalid("clients %d is negative", s.Clients)
	}
	if s.Threshold < 0 || math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) || s.Threshold > maxThreshold {
		return invalid("threshold %v is not a positive number up to 1e12", s.Threshold)
	}
	if s.Horizon < 0 || s.Horizon > maxHorizon {
		return invalid("horizon %v is not between 0 and %v", s.Horizon, maxHorizon)
	}
	if err := s.validateModelRanges(); err != nil {
		return err
	}
	switch s.Kind {
	case Overload:
		return s.validateOverload()
	case Reconnect:
		return s.validateReconnect()
	}
	if floor := 4 * (s.Latency + 3*s.LatencySD); s.Horizon < floor {
		// A client's read and write are four messages: a horizon shorter
		// than four of the longest leaves no client a chance to finish.
		return invalid("horizon %v is shorter than four messages of the network, %v (4 × (latency + 3 × latency-sd)): no client could finish a read and a write", s.Horizon, floor)
	}
	return s.contention().validate()
}

// validateModelRanges refuses, naming the flag, the fields a model's
// engine bounds: the fleet, the round trip, the spread, the cold drop and
// the latencies.
func (s Scenario) validateModelRanges() error {
	// The negative values of all but the latencies are refused as
	// negative later.
	between := func(name string, d, hi time.Duration, what string) error {
		if d > hi || d < 0 && strings.HasPrefix(name, "latency") {
			return invalid("%s %v is not between 0 and %s%v", name, d, what, hi)
		}
		return nil
	}
	switch s.Kind {
	case Overload:
		if s.Clients < 1 || s.Clients > maxClients {
			return invalid("clients %d is not between 1 and %d", s.Clients, maxClients)
		}
		return between("rtt", s.RTT, maxHorizon, "")
	case Reconnect:
		if s.Clients < 1 || s.Clients > maxReconnectDevices {
			return invalid("clients %d is not between 1 and %s", s.Clients, prose.FormatCount(maxReconnectDevices))
		}
		for _, err := range []error{
			between("rtt", s.RTT, maxHorizon, ""),
			between("cold-drop", s.ColdDrop, maxHorizon, ""),
			between("start-spread", s.StartSpread, s.Horizon, "the horizon "),
		} {
			if err != nil {
				return err
			}
		}
	case Contention:
		if s.Clients < 1 || s.Clients > maxContentionClients {
			return invalid("clients %d is not between 1 and %s", s.Clients, prose.FormatCount(maxContentionClients))
		}
		if err := between("latency", s.Latency, maxContentionNet, ""); err != nil {
			return err
		}
		return between("latency-sd", s.LatencySD, maxContentionNet, "")
	}
	return nil
}

func (s Scenario) validateOverload() error {
	window := recoveryWindow * time.Second
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"dip-at", s.DipAt}, {"dip-for", s.DipFor}, {"ramp", s.Ramp}, {"timeout", s.Timeout}} {
		if d.d > maxHorizon {
			return invalid("%s %v is beyond the longest replay, %v", d.name, d.d, maxHorizon)
		}
	}
	end := s.DipAt + s.DipFor + s.Ramp
	switch {
	case !(s.Rate > 0) || math.IsInf(s.Rate, 0):
		return invalid("rate %v requests a second is not a positive number", s.Rate)
	case s.Rate < minOverloadRate:
		// A request a thousand seconds apart is no stream to judge, and
		// the gaps of a slower one overflow the clock.
		return invalid("rate %v requests a second is below %v", s.Rate, minOverloadRate)
	case !(s.AcceptRate >= minOverloadCapacity && s.AcceptRate <= maxOverloadCapacity):
		return invalid("accept-rate %v jobs a second is not between 1e-6 and 1e6", s.AcceptRate)
	case s.Rate >= s.AcceptRate:
		return invalid("rate %v requests a second is at or over the accept-rate of %v jobs a second: the server is overloaded without a dip, and no fleet recovers from that", s.Rate, s.AcceptRate)
	case s.Timeout <= 0:
		return invalid("timeout %v is not positive", s.Timeout)
	case s.RTT < 0:
		return invalid("rtt %v is negative", s.RTT)
	case s.RTT >= s.Timeout:
		return invalid("rtt %v is not shorter than the %v timeout: every attempt would time out", s.RTT, s.Timeout)
	case s.Retries < NoRetries || s.Retries > maxOverloadRetries:
		return invalid("retries %d is not between 0 and %d", s.Retries, maxOverloadRetries)
	case s.Dip != DipStall && !(s.Dip > 0 && s.Dip < 1):
		return invalid("dip %v is not a fraction of the capacity above 0 and below 1 (a dip to 0 stalls the server)", s.Dip)
	case s.DipFor <= 0:
		return invalid("dip-for %v is not positive: without a dip there is nothing to recover from", s.DipFor)
	case s.DipAt < 0:
		return invalid("dip-at %v is negative", s.DipAt)
	case s.Ramp < 0:
		return invalid("ramp %v is negative", s.Ramp)
	case s.QueueLimit < 0:
		return invalid("queue-limit %d is negative", s.QueueLimit)
	case end > s.Horizon-window:
		return invalid("the dip ends at %v (dip-at %v, dip-for %v, ramp %v), less than %v before the %v horizon: recovery could not be judged", end, s.DipAt, s.DipFor, s.Ramp, window, s.Horizon)
	case s.Budget.Kind != NoBudget && s.Budget.Kind != Adaptive && s.Budget.Kind != Breaker && s.Retries == NoRetries:
		return invalid("budget %s limits retries, and the clients make none (retries 0)", s.Budget)
	case s.Rate*(s.Horizon-s.recoveryStart()).Seconds() < recoveryShare:
		// A window passes when at most 1% of the outcomes learned in it
		// are failures: with fewer requests than that after the
		// trigger, no failure share other than none can be told apart,
		// and a fleet that sends nothing would pass.
		return invalid("rate %v requests a second offers %.1f requests from the dip's end to the %v horizon, fewer than %d: too few to judge whether 1%% of them fail; raise the rate or the horizon", s.Rate, s.Rate*(s.Horizon-s.recoveryStart()).Seconds(), s.Horizon, recoveryShare)
	}
	if err := s.Budget.validate(); err != nil {
		return err
	}
	return s.overload().validate()
}

// minOverloadRate is the slowest stream of requests an overload replays.
const minOverloadRate = 1e-3

func (s Scenario) validateReconnect() error {
	window := recoveryWindow * time.Second
	switch {
	case !(s.CPU >= 1 && s.CPU <= maxReconnectUnits) || s.CPU != math.Trunc(s.CPU):
		return invalid("cpu %v units a second is not a whole number from 1 to 1e12", s.CPU)
	case !(s.Handshake >= 1 && s.Handshake <= maxReconnectUnits) || s.Handshake != math.Trunc(s.Handshake):
		return invalid("handshake %v units is not a whole number from 1 to 1e12", s.Handshake)
	case !(s.WarmUp >= 0 && s.WarmUp <= maxReconnectUnits) || s.WarmUp != math.Trunc(s.WarmUp):
		return invalid("warm-up %v units is not a whole number from 0 to 1e12", s.WarmUp)
	case s.ColdDrop < 0:
		return invalid("cold-drop %v is negative", s.ColdDrop)
	case s.RTT < 0:
		return invalid("rtt %v is negative", s.RTT)
	case s.Down < 0:
		return invalid("down %v is negative", s.Down)
	case s.StartSpread < 0:
		return invalid("start-spread %v is negative", s.StartSpread)
	case s.AcceptRate != s.CPU/s.Handshake:
		return invalid("accept-rate %v is not the broker's handshakes a second, cpu over handshake (%v): set cpu and handshake instead", s.AcceptRate, s.CPU/s.Handshake)
	case !slices.Contains(DropRules(), s.OnDrop):
		return invalid("unknown on-drop %q (want reset, reset-jitter or continue)", string(s.OnDrop))
	case s.Down > s.Horizon-window:
		return invalid("down %v ends less than %v before the %v horizon: recovery could not be judged", s.Down, window, s.Horizon)
	case s.CPU < s.Handshake:
		return invalid("cpu %v units a second is less than one handshake of %v units: the broker could accept no connect", s.CPU, s.Handshake)
	case s.RTT >= s.Horizon-s.recoveryStart()-window:
		return invalid("rtt %v is not shorter than the %v from the broker's return to the last recovery window: no device could connect in time to judge recovery", s.RTT, s.Horizon-s.recoveryStart()-window)
	case s.ColdDrop >= s.Horizon-s.recoveryStart():
		return invalid("cold-drop %v is not shorter than the %v from the broker's return to the horizon: no session accepted cold would be dropped within the replay", s.ColdDrop, s.Horizon-s.recoveryStart())
	}
	if err := s.Budget.validate(); err != nil {
		return err
	}
	return s.reconnect().validate()
}

// overload returns the overload model of s, after defaults.
func (s Scenario) overload() overload {
	o := overload{
		Devices:     s.Clients,
		Rate:        s.Rate,
		RTT:         s.RTT,
		Capacity:    s.AcceptRate,
		DipStart:    s.DipAt,
		DipLength:   s.DipFor,
		DipFraction: max(s.Dip, 0),
		Ramp:        s.Ramp,
		Timeout:     s.Timeout,
		Retries:     max(s.Retries, 0),
		QueueLimit:  s.QueueLimit,
		DropExpired: s.DropExpired,
		Horizon:     s.Horizon,
		Budget:      s.Budget,
		ids:         s.IDs,
	}
	return o
}

// reconnect returns the reconnect model of s, after defaults.
func (s Scenario) reconnect() reconnect {
	rule := dropReset
	switch s.OnDrop {
	case DropResetJitter:
		rule = dropResetJitter
	case DropContinue:
		rule = dropContinue
	}
	return reconnect{
		Devices:     s.Clients,
		Spread:      s.StartSpread,
		RTT:         s.RTT,
		Down:        s.Down,
		CPU:         int64(s.CPU),
		Handshake:   int64(s.Handshake),
		Refusal:     1,
		WarmUp:      int64(s.WarmUp),
		ColdDrop:    s.ColdDrop,
		RefuseCold:  s.RefuseCold,
		OnDrop:      rule,
		MaxAttempts: s.MaxAttempts,
		Horizon:     s.Horizon,
		Budget:      s.Budget,
		ids:         s.IDs,
	}
}

// contention returns the contention model of s, after defaults.
func (s Scenario) contention() contention {
	return contention{Clients: s.Clients, NetMean: s.Latency, NetSD: s.LatencySD, Horizon: s.Horizon, ids: s.IDs}
}

// trigger returns when the trigger of a recovery kind ends: the dip's end
// (before its ramp) in an Overload, the end of the broker's downtime in a
// Reconnect.
func (s Scenario) triggerEnd() time.Duration {
	if s.Kind == Overload {
		return s.DipAt + s.DipFor
	}
	return s.Down
}

// RecoveryFrom returns, for a recovery kind after defaults, the instant
// from which recovery is judged: the trigger's end, rounded up to a whole
// second. A run that did not recover counts as recovering after
// Horizon−RecoveryFrom (see [RecoveryTime]).
func (s Scenario) RecoveryFrom() time.Duration { return s.recoveryStart() }

// recoveryStart returns the instant from which recovery is judged: the
// trigger's end, rounded up to a whole second.
func (s Scenario) recoveryStart() time.Duration {
	return (s.triggerEnd() + time.Second - 1).Truncate(time.Second)
}

// A modelEngine replays runs of one of the server models.
type modelEngine interface {
	run(run int, seed uint64) (Run, error)
}

// newModelEngine returns the engine of s, after defaults, for policies
// of f; f is nil for a Contention's NoBackoff.
func newModelEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	switch s.Kind {
	case Overload:
		o := s.overload()
		o.room = room
		e, err := newOverloadEngine(o, f)
		if err != nil {
			return nil, err
		}
		return overloadModel{e, s}, nil
	case Reconnect:
		return newReconnectModel(s, f, room)
	}
	e, err := newContentionEngine(s.contention(), f)
	if err != nil {
		return nil, err
	}
	return contentionModel{e}, nil
}

type overloadModel struct {
	e *overloadEngine
	s Scenario
}

func (m overloadModel) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	out := Run{
		Seed:                     r.Seed,
		Attempts:                 r.Attempts,
		Served:                   r.Successes,
		GaveUp:                   r.Stopped + r.Exhausted,
		Timeouts:                 r.Timeouts,
		Rejections:               r.Rejections,
		JobsAtEnd:                r.JobsAtEnd,
		BudgetRefused:            r.Refused,
		BudgetThrottled:          r.Throttled,
		Amplification:            r.Amplification,
		AmplificationFromTrigger: r.AmplificationFromTrigger,
		Goodput:                  r.GoodputAfterTrigger,
	}
	out.setSeries(m.s, r.Series, r.Recovery, r.RecoveredAt)
	return out, nil
}

// setSeries sets, from a recovery kind's run of s with the series
// series, its Series, its recovery (recovered, or not, at at, measured
// from t0), its histograms and its peaks.
func (r *Run) setSeries(s Scenario, series Series, recovery verdict.Status, at time.Duration) {
	r.Series = &series
	r.Recovered = recovery == verdict.Pass
	if r.Recovered {
		r.RecoveredAfter = at - s.recoveryStart()
	}
	r.setPeaks(s, series.Arrivals, series.RetryArrivals)
}

// setPeaks sets the run's histograms, in whole seconds, and its peaks.
func (r *Run) setPeaks(s Scenario, arrivals, retries []int) {
	r.Arrivals, r.RetryArrivals = append([]int{}, trim(arrivals)...), append([]int{}, trim(retries)...)
	for i := range arrivals {
		r.BusiestWindowArrivals = max(r.BusiestWindowArrivals, arrivals[i])
		r.PeakRetryArrivals = max(r.PeakRetryArrivals, retries[i])
	}
	r.PeakRatio = float64(r.PeakRetryArrivals) / s.windowBudget()
}

type reconnectModel struct {
	e *reconnectEngine
	s Scenario
}

// newReconnectModel returns the engine of a Reconnect's runs.
func newReconnectModel(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	c := s.reconnect()
	c.room = room
	e, err := newReconnectEngine(c, f)
	if err != nil {
		return nil, err
	}
	return reconnectModel{e, s}, nil
}

func (m reconnectModel) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	out := Run{
		Seed:            r.Seed,
		AllServed:       r.AllServed,
		Attempts:        r.Attempts,
		Served:          r.Served,
		GaveUp:          r.GaveUp,
		AttemptLimited:  r.AtLimit,
		Pending:         r.Devices - r.Served - r.GaveUp,
		Accepted:        r.Accepted,
		Dropped:         r.Dropped,
		Refused:         r.Refused,
		Warm:            r.WarmAt >= 0,
		WarmAt:          max(r.WarmAt, 0),
		Amplification:   r.Amplification,
		Goodput:         r.GoodputAfterTrigger,
		BudgetRefused:   r.BudgetRefused,
		BudgetThrottled: r.Throttled,
	}
	out.setSeries(m.s, r.Series, r.Recovery, r.RecoveredAt)
	return out, nil
}

type contentionModel struct{ e *contentionEngine }

func (m contentionModel) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	return Run{
		Seed:      r.Seed,
		AllServed: r.LastSuccess,
		Attempts:  r.Calls,
		Reads:     r.Reads,
		Served:    r.Successes,
		GaveUp:    r.Stopped,
		Pending:   r.Unfinished,
	}, nil
}

// replayModel replays the runs of a server model's scenario s (after
// defaults, validated) with cfg (after defaults), its baselines and, when
// asked, its tipping point.
func replayModel(ctx context.Context, f kit.Factory, s Scenario, cfg Config) (Result, error) {
	var res Result
	var err error
	if cfg.CollapseBound > 0 && s.Kind.Recovers() {
		res, err = replayToBound(ctx, f, s, cfg)
	} else {
		res, err = replayModelRuns(ctx, f, s, cfg)
	}
	if err != nil {
		return Result{}, err
	}
	made := cfg
	made.Runs = len(res.Runs)
	if res.Baselines, err = baselines(ctx, s, made); err != nil {
		return Result{}, err
	}
	if cfg.TippingPoint && s.Kind == Overload {
		tp, err := tippingPoint(ctx, f, s, cfg)
		if err != nil {
			return Result{}, err
		}
		res.TippingPoint = &tp
	}
	return res, nil
}

// replayToBound replays a recovery kind's runs in batches until none of
// them collapsed bounds the chance of collapse at cfg.CollapseBound, or one
// of them collapsed (see [Collapses]): the result of a replay of as many
// runs, whose Stop says where it stopped, and whose Config.Runs is the
// most it would have made.
func replayToBound(ctx context.Context, f kit.Factory, s Scenario, cfg Config) (Result, error) {
	looks := collapseLooks(cfg.CollapseBound, cfg.Level)
	most := looks[len(looks)-1]
	var runs []Run
	var err error
	st := &Stop{MaxRuns: most, Reason: StopBound, Limit: cfg.CollapseBound}
	for _, n := range looks {
		c := cfg
		c.Runs = n
		if runs, err = replayModelBatch(ctx, f, s, c, runs); err != nil {
			return Result{}, err
		}
		if slices.ContainsFunc(runs, func(r Run) bool { return !r.Recovered }) {
			st.Reason, st.Limit = StopCollapsed, 0
			break
		}
	}
	st.Runs = len(runs)
	res := finishModel(runs, s, cfg)
	res.Config.Runs, res.Stop = most, st
	return res, nil
}

// replayModelRuns replays the runs of s with cfg, workers at a time, and
// summarizes them. The runs, and the error of the lowest-numbered run that
// fails, depend only on f, s and cfg.Seed. A policy's call that does not
// return is named as the fleet kinds name it: within Config.CallTimeout
// when it is set, or StuckGrace after ctx is done, as a *DeviceError of
// cause StopHung.
func replayModelRuns(ctx context.Context, f kit.Factory, s Scenario, cfg Config) (Result, error) {
	runs, err := replayModelBatch(ctx, f, s, cfg, nil)
	if err != nil {
		return Result{}, err
	}
	return finishModel(runs, s, cfg), nil
}

// finishModel returns the result of a server model's runs: their summary,
// and the series of the representative run alone.
func finishModel(runs []Run, s Scenario, cfg Config) Result {
	rep := representativeBy(runs, func(r Run) float64 { return modelKey(s, r) })
	for i := range runs {
		if i != rep {
			runs[i].Series = nil
			if cfg.RepresentativeOnly {
				runs[i].Arrivals, runs[i].RetryArrivals = nil, nil
			}
		}
	}
	cfg.Runs = len(runs)
	return Result{Scenario: s, Config: cfg, Runs: runs, Representative: rep, Summary: summarize(runs, s, cfg)}
}

// replayModelBatch replays the runs of s with cfg numbered from len(made)
// up to cfg.Runs, workers at a time, and returns made with them appended.
func replayModelBatch(ctx context.Context, f kit.Factory, s Scenario, cfg Config, made []Run) ([]Run, error) {
	from := len(made)
	b := s.budget(f, cfg)
	workers := max(1, min(cfg.Workers, cfg.Runs-from, b.workers))
	runs := append(made, make([]Run, cfg.Runs-from)...)
	errs := make([]error, cfg.Runs)
	var next atomic.Int64
	next.Store(int64(from))
	var failed atomic.Int64
	failed.Store(int64(cfg.Runs))
	_, builtin := builtinSpec(f)
	calls := make([]*modelCall, workers)
	engines := make([]modelEngine, workers)
	for w := range engines {
		calls[w] = &modelCall{}
		calls[w].run.Store(-1)
		wf := f
		if !builtin && f != nil {
			// A built-in policy always returns; any other is watched.
			wf = calls[w].factory(f)
		}
		e, err := newModelEngine(s, wf, b.room())
		if err != nil {
			return nil, err
		}
		engines[w] = e
	}
	var wg sync.WaitGroup
	for w, e := range engines {
		call := calls[w]
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= cfg.Runs || int64(i) > failed.Load() {
					return
				}
				call.run.Store(int64(i))
				if !runModel(e, call, i, runSeed(cfg.Seed, i), &runs[i], &errs[i]) {
					return
				}
				call.run.Store(-1)
				if errs[i] != nil {
					for {
						old := failed.Load()
						if int64(i) >= old || failed.CompareAndSwap(old, int64(i)) {
							break
						}
					}
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var hung <-chan error
	if cfg.CallTimeout > 0 {
		hung = watchModel(done, calls, cfg)
	}
	select {
	case <-done:
	case err := <-hung:
		return nil, err
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(stuckGrace):
			if err := stuckModel(calls, cfg, fmt.Errorf("did not return within %v of the replay being stopped (%w)", stuckGrace, context.Cause(ctx))); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("sim: replay stopped, and its runs did not stop within %v: %w", stuckGrace, context.Cause(ctx))
		}
	}
	for i := range errs {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: replay stopped: %w", context.Cause(ctx))
	}
	return runs, nil
}

// runModel replays run i on e into *run or *err, and reports false when a
// call of the policy ended the goroutine (runtime.Goexit) instead of
// returning: the run is then the policy's failure, naming the device and
// the attempt call was asking for.
func runModel(e modelEngine, call *modelCall, i int, seed uint64, run *Run, err *error) (returned bool) {
	defer func() {
		if !returned {
			id, attempt, observing := call.where()
			*err = &DeviceError{Run: i, Seed: seed, Device: id, Attempt: attempt, Cause: StopPanic, Err: inCall(observing, errGoexit)}
		}
	}()
	*run, *err = e.run(i, seed)
	return true
}

// A modelCall records which call of the factory or of a policy a worker of
// a server model's replay is in: the run, the device and the attempt whose
// delay it asks for (0 for the factory), the outcome when the call is
// Observe's, and a count of calls begun and ended, odd while one is in
// progress.
type modelCall struct {
	run       atomic.Int64
	calls     atomic.Uint64
	mu        sync.Mutex
	device    string
	attempt   int
	observing kit.Outcome
}

// enter records a call of the factory or of Next (observing 0), or of
// Observe told observing.
func (c *modelCall) enter(id string, attempt int, observing kit.Outcome) {
	c.mu.Lock()
	c.device, c.attempt, c.observing = id, attempt, observing
	c.mu.Unlock()
	c.calls.Add(1)
}

func (c *modelCall) leave() { c.calls.Add(1) }

// where returns the device, the attempt and the outcome observed (0 but in
// Observe) of the last call begun.
func (c *modelCall) where() (string, int, kit.Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.device, c.attempt, c.observing
}

// factory returns f, whose calls and whose policies' calls c records.
func (c *modelCall) factory(f kit.Factory) kit.Factory {
	return func(d kit.Device) kit.Policy {
		c.enter(d.ID, 0, 0)
		defer c.leave()
		p := f(d)
		if p == nil {
			return nil
		}
		w := &watchedPolicy{p: p, c: c, id: d.ID}
		if _, ok := p.(kit.Observer); ok {
			return watchedObserver{w}
		}
		return w
	}
}

// A watchedObserver is a watchedPolicy whose policy is a kit.Observer,
// and which passes the outcomes on.
type watchedObserver struct{ *watchedPolicy }

func (w watchedObserver) Observe(o kit.Outcome) {
	w.c.enter(w.id, w.n+1, o)
	defer w.c.leave()
	w.p.(kit.Observer).Observe(o)
}

// A watchedPolicy is a policy whose calls a modelCall records: its n-th
// delay is asked for before attempt n+1.
type watchedPolicy struct {
	p  kit.Policy
	c  *modelCall
	id string
	n  int
}

func (w *watchedPolicy) Next() (time.Duration, error) {
	w.n++
	w.c.enter(w.id, w.n+1, 0)
	defer w.c.leave()
	return w.p.Next()
}

// watchModel names, on the channel it returns, the call of the
// lowest-numbered run that has gone cfg.CallTimeout without returning,
// checking every quarter of it until done is closed.
func watchModel(done <-chan struct{}, calls []*modelCall, cfg Config) <-chan error {
	limit := cfg.CallTimeout
	out := make(chan error, 1)
	go func() {
		t := time.NewTicker(max(limit/4, time.Millisecond))
		defer t.Stop()
		last := make([]uint64, len(calls))
		idle := make([]int, len(calls))
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			var stuck []*modelCall
			for i, c := range calls {
				n := c.calls.Load()
				if n%2 == 0 || n != last[i] {
					last[i], idle[i] = n, 0
					continue
				}
				// Four quarters without a change: the call began at
				// least limit ago.
				if idle[i]++; idle[i] >= 4 {
					stuck = append(stuck, c)
				}
			}
			if stuck != nil {
				out <- stuckModel(stuck, cfg, fmt.Errorf("did not return within %v", limit))
				return
			}
		}
	}()
	return out
}

// stuckModel returns the StopHung error of the lowest-numbered run among
// calls that is in a call, or nil when none is.
func stuckModel(calls []*modelCall, cfg Config, err error) error {
	var found *modelCall
	best := int64(-1)
	for _, c := range calls {
		run := c.run.Load()
		if run < 0 || c.calls.Load()%2 == 0 || best >= 0 && run > best {
			continue
		}
		found, best = c, run
	}
	if found == nil {
		return nil
	}
	id, attempt, observing := found.where()
	return &DeviceError{Run: int(best), Seed: runSeed(cfg.Seed, int(best)), Device: id, Attempt: attempt, Cause: StopHung, Err: inCall(observing, err)}
}

// modelKey is the figure by which the representative run of a server
// model is chosen: the time to recover, in the recovery kinds, and the
// work in a Contention.
func modelKey(s Scenario, r Run) float64 {
	if s.Kind.Recovers() {
		return RecoveryTime.Of(r, s)
	}
	return float64(r.Attempts)
}
