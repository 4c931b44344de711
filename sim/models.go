package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NoRetries is the Retries of an Overload whose clients never retry: the
// baseline a fleet's recovery is compared with. The zero Retries is the
// default, 3.
const NoRetries = -1

// modelField is a field that only some kinds take: its name as a reader
// (and the CLI's flag) calls it, and whether a scenario sets it.
type modelField struct {
	name string
	set  func(Scenario) bool
}

// modelFields are the fields that apply to some kinds only, before
// defaults: a scenario of another kind that sets one is refused, naming
// it, rather than replayed as if it did not.
var modelFields = []modelField{
	{"rate", func(s Scenario) bool { return s.Rate != 0 }},
	{"rtt", func(s Scenario) bool { return s.RTT != 0 }},
	{"timeout", func(s Scenario) bool { return s.Timeout != 0 }},
	{"dip", func(s Scenario) bool { return s.Dip != 0 }},
	{"dip-for", func(s Scenario) bool { return s.DipFor != 0 }},
	{"dip-at", func(s Scenario) bool { return s.DipAt != 0 }},
	{"ramp", func(s Scenario) bool { return s.Ramp != 0 }},
	{"queue-limit", func(s Scenario) bool { return s.QueueLimit != 0 }},
	{"drop-expired", func(s Scenario) bool { return s.DropExpired }},
	{"on-drop", func(s Scenario) bool { return s.OnDrop != "" }},
	{"refuse-cold", func(s Scenario) bool { return s.RefuseCold }},
	{"cpu", func(s Scenario) bool { return s.CPU != 0 }},
	{"handshake", func(s Scenario) bool { return s.Handshake != 0 }},
	{"warm-up", func(s Scenario) bool { return s.WarmUp != 0 }},
	{"cold-drop", func(s Scenario) bool { return s.ColdDrop != 0 }},
	{"latency", func(s Scenario) bool { return s.Latency != 0 || s.LatencySD != 0 }},
	{"budget", func(s Scenario) bool { return s.Budget.Kind != NoBudget }},
	{"budget-scope", func(s Scenario) bool { return s.Budget != Budget{} }},
	// The servers' own fields first: a flag that sets one picks its
	// server too, and is the one to name.
	{"burst", func(s Scenario) bool { return s.Burst != 0 }},
	{"retry-after", func(s Scenario) bool { return s.RetryAfter != 0 }},
	{"server", func(s Scenario) bool { return s.Server != "" && s.Server != PerSecond }},
	{"window", func(s Scenario) bool { return s.Window != 0 && s.Window != defaultWindow }},
	{"period", func(s Scenario) bool { return s.Period != 0 }},
	{"timer-offset", func(s Scenario) bool { return s.TimerOffset != "" && s.TimerOffset != OffsetScenario }},
	{"down", func(s Scenario) bool { return s.Down != 0 }},
	{"start-spread", func(s Scenario) bool { return s.StartSpread != 0 }},
	{"accept-rate", func(s Scenario) bool { return s.AcceptRate != 0 }},
	{"retries", func(s Scenario) bool { return s.Retries != 0 }},
	// The recovery kinds are judged on recovery, and report their peak
	// ratio without a threshold: their default, which WithDefaults sets,
	// stands for no choice.
	{"threshold", func(s Scenario) bool {
		return s.Threshold != 0 && !(s.Kind.Recovers() && s.Threshold == defaultThreshold)
	}},
	// An overload's requests are bounded by Retries, a contention's
	// clients by their success: neither has an attempt limit.
	{"max-attempts", func(s Scenario) bool { return s.MaxAttempts != 0 }},
}

// modelFieldsApply refuses a field, set before defaults, that s's kind
// does not take.
func (s Scenario) modelFieldsApply() error {
	kind := s.Kind
	if kind == "" {
		kind = Outage
	}
	m, known := kind.registered()
	for _, f := range modelFields {
		if !f.set(s) || known && m.takes(f.name) {
			continue
		}
		if f.name == "threshold" && kind.ServerModel() {
			return invalid("threshold does not apply to the %s scenario: it is judged on %s, not on a peak ratio", kind, map[bool]string{true: "recovery", false: "its clients' success"}[kind.Recovers()])
		}
		if kinds := takers(f.name); len(kinds) == 1 {
			return invalid("%s is a field of the %s scenario, not of %s", f.name, kinds[0], kind)
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
	case s.Period != 0 && !m.timers():
		return invalid("period applies to the periodic scenarios only, not to the %s scenario", kind)
	}
	return nil
}

// triggerEnd returns when the trigger of a recovery kind ends: the dip's
// end (before its ramp) in an Overload, the end of the broker's downtime
// in a Reconnect.
func (s Scenario) triggerEnd() time.Duration {
	if m, ok := s.Kind.model().(engineModel); ok {
		return m.triggerEnd(s)
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

// newModelEngine returns the engine of s, a server model's scenario after
// defaults, for policies of f; f is nil for a Contention's NoBackoff.
func newModelEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	return s.Kind.model().(engineModel).newEngine(s, f, room)
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
	if cfg.TippingPoint && s.Kind.model().tips() {
		tp, err := tippingPoint(withoutProgress(ctx), f, s, cfg)
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
	calls, engines, err := newModelEngines(ctx, s, f, workers, b.room())
	if err != nil {
		return nil, err
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
				if errs[i] == nil {
					e.progress().end()
				} else {
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
	if err := awaitModel(ctx, done, calls, cfg); err != nil {
		return nil, err
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

// newModelEngines makes the engines of s for workers workers, reporting
// to the progress ctx asks for, each with the call it watches: a built-in
// policy always returns, and any other is watched through the call.
func newModelEngines(ctx context.Context, s Scenario, f kit.Factory, workers int, room int64) ([]*modelCall, []modelEngine, error) {
	_, builtin := builtinSpec(f)
	calls := make([]*modelCall, workers)
	engines := make([]modelEngine, workers)
	for w := range engines {
		calls[w] = &modelCall{}
		calls[w].run.Store(-1)
		wf := f
		if !builtin && f != nil {
			wf = calls[w].factory(f)
		}
		e, err := newModelEngine(s, wf, room)
		if err != nil {
			return nil, nil, err
		}
		*e.progress() = newTracker(ctx, s)
		engines[w] = e
	}
	return calls, engines, nil
}

// awaitModel waits until done is closed, the workers' runs over, and
// returns the error of a call of the policy that hung, or of runs that
// did not stop within stuckGrace of ctx's end.
func awaitModel(ctx context.Context, done <-chan struct{}, calls []*modelCall, cfg Config) error {
	var hung <-chan error
	if cfg.CallTimeout > 0 {
		hung = watchModel(done, calls, cfg)
	}
	select {
	case <-done:
	case err := <-hung:
		return err
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(stuckGrace):
			if err := stuckModel(calls, cfg, fmt.Errorf("did not return within %v of the replay being stopped (%w)", stuckGrace, context.Cause(ctx))); err != nil {
				return err
			}
			return fmt.Errorf("sim: replay stopped, and its runs did not stop within %v: %w", stuckGrace, context.Cause(ctx))
		}
	}
	return nil
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
