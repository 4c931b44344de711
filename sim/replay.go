package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// Config sets the replications of a replay.
type Config struct {
	// Runs is the number of runs, at most 1,000,000. Zero replays a fleet
	// kind's runs in batches until its verdict is decided, at most
	// 20 (see [StopMargin], and Result.Stop for where it
	// stopped), and a server model's 20 runs: their verdicts,
	// and their baselines and tipping point, are judged on every run. Any
	// other number replays exactly that many.
	Runs int
	// Seed is the seed every run's seed derives from. Run 0's seed is Seed
	// itself, and run i's is a hash of Seed and i, so any run replays
	// alone with Config{Runs: 1, Seed: run.Seed}.
	Seed uint64
	// Workers is the most runs replayed at once; default the number of
	// CPUs, fewer when the scenario's MemoryLimit does not fit that many
	// (see [Scenario.Memory]). The figures, and the error of a replay that
	// fails, do not depend on it.
	Workers int
	// Level is the confidence level of the summary's intervals; default
	// 0.95.
	Level float64
	// Resamples is the number of bootstrap resamples behind each
	// interval; default 2,000, at most 1,000,000.
	Resamples int
	// RepresentativeOnly keeps the arrival histograms (Run.Arrivals and
	// Run.RetryArrivals) of the representative run only (see
	// [Result.Representative]); the other runs keep their figures, and nil
	// histograms. Every run's histograms take 16 bytes a window until the
	// replay returns, which dominates the memory of replays of many runs
	// of small fleets; with RepresentativeOnly a run's histograms are kept,
	// at 8 bytes a window, only while the run may still be the
	// representative one, which is never more than half of the runs.
	RepresentativeOnly bool
	// Thresholds are the limits of the warnings that are shares of the
	// fleet; each zero field takes its default.
	Thresholds Thresholds
	// CallTimeout, when positive, is how long one call of a factory or of
	// a policy's Next may go without returning: a call that takes longer
	// (found within a quarter more) stops the replay with a [*DeviceError]
	// of cause StopHung, naming the run, the device and the attempt,
	// whether or not the context has a deadline. Zero or negative sets no
	// watch: a call that never returns is then named only once the
	// context is done (see [StuckGrace]). A watch reads the wall clock but
	// changes no figure; set it well above what a call can take on a
	// loaded machine.
	CallTimeout time.Duration
	// TippingPoint asks an Overload's replay for its tipping point
	// ([Result.TippingPoint]): about 16 replays more, of the fleet and of
	// its baseline. The other kinds, which have no dip, refuse it.
	TippingPoint bool
	// CollapseBound, when positive, is the chance of collapse that a
	// recovery kind's replay of the default runs (Runs zero) must bound
	// at Level: it makes its runs in batches, doubling from 20,
	// until none of them collapsed gives a bound at most CollapseBound, or
	// one collapsed (see [Collapses] and [Result.Stop]). It is between
	// MinCollapseBound and 1; 0.01 makes 299 runs of a fleet that
	// passes. The other kinds refuse it, and so does a Runs set.
	CollapseBound float64
	// FailWarnings makes every warning fail: a replay that would warn
	// (see [Result.Warnings]) fails instead, with the same detail.
	FailWarnings bool
	// AllowWideWindow lets a window wider than a second average a storm
	// away: a replay whose 1s peak ratio is over the threshold in the
	// median run while its window's is within it (see [AveragedAway])
	// then warns instead of failing.
	AllowWideWindow bool
}

// Defaults of Config.
const (
	defaultRuns      = 20
	defaultLevel     = 0.95
	defaultResamples = 2000
)

// Limits of Config.
const (
	maxRuns      = 1_000_000
	maxResamples = 1_000_000
)

// WithDefaults returns c with every zero field set to its default; Workers
// becomes the number of CPUs.
func (c Config) WithDefaults() Config {
	if c.Runs == 0 {
		c.Runs = defaultRuns
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Level == 0 {
		c.Level = defaultLevel
	}
	if c.Resamples == 0 {
		c.Resamples = defaultResamples
	}
	c.Thresholds = c.Thresholds.WithDefaults()
	return c
}

// validate reports the first field of c, after defaults, that is out of
// range.
func (c Config) validate() error {
	switch {
	case c.Runs < 0:
		return invalid("runs %d is negative", c.Runs)
	case c.Runs > maxRuns:
		return invalid("runs %d is more than 1,000,000", c.Runs)
	case c.Workers < 0:
		return invalid("workers %d is negative", c.Workers)
	case !(c.Level > 0 && c.Level < 1):
		return invalid("confidence level %v is not between 0 and 1", c.Level)
	case c.Resamples < 0 || c.Resamples > maxResamples:
		return invalid("resamples %d is not between 0 and 1,000,000", c.Resamples)
	case c.CollapseBound != 0 && !(c.CollapseBound >= MinCollapseBound && c.CollapseBound <= 1):
		return invalid("collapse bound %v is not between %v and 1", c.CollapseBound, MinCollapseBound)
	}
	return c.Thresholds.validate()
}

// runSeed returns the seed of run i of a replay seeded with seed.
func runSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return splitmix64(seed ^ splitmix64(uint64(i)))
}

// splitmix64 is the output function of SplitMix64.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// A Run holds the figures of one replication. Times are measured from t0,
// the instant the fleet fails; in the periodic kinds a time to success is
// measured from the timer's firing.
type Run struct {
	// Seed is the run's seed: it chooses the offsets of the first attempts,
	// the devices' boot time and, unless the scenario sets IDs, the
	// fleet's ids.
	Seed uint64
	// AllServed is when the last device was served (the last firing, in
	// the periodic kinds). Every device was served only if Served equals
	// the scenario's Clients.
	AllServed time.Duration
	// BusiestWindowArrivals is the most arrivals in one window, first
	// attempts included.
	BusiestWindowArrivals int
	// PeakRetryArrivals is the most retry arrivals in one window: every
	// arrival but each device's first; in the periodic kinds, the re-sends
	// of rejected firings, and no firing itself.
	PeakRetryArrivals int
	// PeakRatio is PeakRetryArrivals over the window's accept budget,
	// AcceptRate·Window.
	PeakRatio float64
	// Attempts counts every attempt, first ones included.
	Attempts int
	// Served counts the devices served (the firings served, in the
	// periodic kinds).
	Served int
	// GaveUp counts the devices whose policy stopped, or that reached
	// MaxAttempts, before they were served; in the periodic kinds, the
	// devices that missed at least one firing (FiringsMissed counts the
	// firings). It is never more than the fleet.
	GaveUp int
	// AttemptLimited counts those of GaveUp that reached MaxAttempts.
	AttemptLimited int
	// Pending counts the devices still retrying at the horizon.
	Pending int
	// PeakFirings is, in the periodic kinds, the most timer firings in one
	// window: the timers' own load, which no retry policy changes (unless
	// the policy gives the offsets, OffsetPolicy). It is zero in the other
	// kinds.
	PeakFirings int
	// TimerLoadRatio is PeakFirings over the window's accept budget. Over
	// 1, the server rejects firings in that window whatever the policy.
	TimerLoadRatio float64
	// FiringsMissed counts, in the periodic kinds, the firings never
	// served: their policy stopped, the device reached MaxAttempts (and
	// fires no more), or the next firing came first.
	FiringsMissed int
	// PeakRetryArrivals1s is, when the Window is wider than 1s and the
	// scenario is not a Storm, the most retry arrivals in one whole
	// second; zero otherwise. A wide window averages a burst: this is the
	// burst the server meets.
	PeakRetryArrivals1s int
	// PeakRatio1s is PeakRetryArrivals1s over one second's accept budget,
	// AcceptRate (see [AveragedAway]).
	PeakRatio1s float64
	// P50 and P99 are the median and 99th percentile of the time to
	// success of the served devices (nearest rank).
	P50, P99 time.Duration
	// Arrivals counts all arrivals per window: window i covers
	// [i·Window, (i+1)·Window). Trailing empty windows are left off. It
	// is nil when the run's histograms were not kept
	// (Config.RepresentativeOnly), and empty, not nil, when the run had
	// no arrivals.
	Arrivals []int
	// RetryArrivals counts the retry arrivals per window, as Arrivals.
	RetryArrivals []int

	// The figures of the server models (Overload, Reconnect, Contention),
	// zero in the other kinds. In an Overload, Served counts the requests
	// answered in time, GaveUp those that failed their last attempt or
	// whose policy stopped; in a Reconnect, Served counts the devices
	// connected at the horizon and Pending those still reconnecting; in a
	// Contention, Attempts counts the writes (the work), Served the
	// clients that succeeded, AllServed when the last of them learned it,
	// and Pending those unfinished at the horizon.

	// Recovered says whether the service recovered after the trigger (the
	// dip's end in an Overload, the broker's return in a Reconnect): from
	// the trigger's end, rounded up to a whole second, time is cut into 5s
	// windows, and the service has recovered from the start of the first
	// window from which on every window's failed attempts (timeouts,
	// rejections and drops) are at most 1% of the outcomes learned in it:
	// of the failures and successes its clients learned in the window, the
	// error rate of the attempts whose fate became known then, as an
	// error-rate objective counts it, so never above 100% (the attempts
	// sent in a window are no denominator: a timeout or a drop is learned
	// seconds after its attempt was sent). See [Scenario.RecoveryWindows]
	// for the windows. It has not when the last whole
	// window before the horizon still fails. RecoveredAfter is that start,
	// measured from the trigger's end rounded up; zero when it did not.
	Recovered      bool
	RecoveredAfter time.Duration
	// Amplification is the attempts over the first attempts (the requests
	// offered, or the devices), and AmplificationFromTrigger the same of
	// those sent from the trigger's start on, in an Overload.
	Amplification, AmplificationFromTrigger float64
	// Goodput is a share between 0 and 1: in an Overload, of the requests
	// offered from the dip's end to the horizon, those that succeeded by
	// the horizon (a request offered before the dip's end counts in
	// neither, though it is answered after); in a Reconnect, of the fleet,
	// the devices served by the horizon, all of them from the broker's
	// return on.
	Goodput float64
	// Timeouts and Rejections count an Overload's failed attempts as the
	// clients learned of them; JobsAtEnd the jobs in its system at the
	// horizon.
	Timeouts, Rejections, JobsAtEnd int
	// Accepted counts the sessions a Reconnect broker accepted, Dropped
	// those it dropped while cold and Refused the connects it refused;
	// WarmAt is when it became warm, and Warm whether it did.
	Accepted, Dropped, Refused int
	WarmAt                     time.Duration
	Warm                       bool
	// Reads counts a Contention's reads that reached the server.
	Reads int
	// BudgetRefused counts the retries an Overload's budget refused, and
	// BudgetThrottled the attempts it rejected at the client.
	BudgetRefused, BudgetThrottled int
	// Series is the time series of an Overload's or a Reconnect's
	// representative run (see [Result.Representative]); nil in the other
	// runs and kinds.
	Series *Series
}

// A StopCause says why a replay stopped at a device: what went wrong with
// its policy or with the policy's source. It is not the root cause of a check's
// finding, which package properties names.
type StopCause int

// The causes of a [DeviceError].
const (
	// StopPanic: the policy or its factory panicked.
	StopPanic StopCause = iota + 1
	// StopBadDelay: the policy returned a negative delay, or one a
	// time.Duration cannot hold ([*kit.DelayError]).
	StopBadDelay
	// StopSourceError: the policy's source failed, for example an external
	// program that stopped answering, or the factory returned no policy.
	StopSourceError
	// StopHung: the policy or its factory did not return within the
	// replay's Config.CallTimeout, or before its context was done (see
	// StuckGrace).
	StopHung
)

// String returns the cause as a DeviceError's reader sees it: "panic",
// "bad delay", "source error" or "hung".
func (c StopCause) String() string {
	switch c {
	case StopPanic:
		return "panic"
	case StopBadDelay:
		return "bad delay"
	case StopSourceError:
		return "source error"
	case StopHung:
		return "hung"
	}
	return fmt.Sprintf("StopCause(%d)", int(c))
}

// A DeviceError reports the device and the attempt at which a replay
// stopped because of its policy.
type DeviceError struct {
	Run    int    // the run's number, from 0
	Seed   uint64 // the run's seed
	Device string // the device's id
	// Attempt is the attempt whose delay was asked for, counting the
	// first attempt as 1; 0 when making the device's policy failed.
	Attempt int
	Cause   StopCause
	Err     error
}

func (e *DeviceError) Error() string {
	if e.Attempt == 0 {
		return fmt.Sprintf("sim: run %d (seed %d): device %s: making its policy: %v", e.Run, e.Seed, e.Device, e.Err)
	}
	return fmt.Sprintf("sim: run %d (seed %d): device %s: delay before attempt %d: %v", e.Run, e.Seed, e.Device, e.Attempt, e.Err)
}

func (e *DeviceError) Unwrap() error { return e.Err }

// PolicyDefect reports whether the error is the policy's own defect (a
// panic, a bad delay, a call that never returns) rather than a failure of
// its source.
func (e *DeviceError) PolicyDefect() bool {
	return e.Cause == StopPanic || e.Cause == StopBadDelay || e.Cause == StopHung
}

// Replay replays the scenario s cfg.Runs times, each run with its own fleet
// of s.Clients devices whose policies f makes, and returns every run's
// figures and their summary. With cfg.Runs zero, a fleet replay stops
// before 20 runs once its verdict is decided (see [StopMargin]), and
// says where in Result.Stop. Runs are replayed in parallel, and the result
// depends only on f, s and cfg.Seed, and so does the error of a replay
// that fails: the error of the lowest-numbered run that fails.
//
// Replay returns an error, and no result, when s or cfg is out of range or
// would not fit in s.MemoryLimit (see [Scenario.Validate]), when a policy
// fails (a [*DeviceError] naming the run, the device and the attempt), or
// when ctx is done (saying where the replay stopped).
func Replay(ctx context.Context, f kit.Factory, s Scenario, cfg Config) (Result, error) {
	if ctx == nil {
		panic("sim: Replay with a nil context")
	}
	if f == nil {
		panic("sim: Replay with a nil factory")
	}
	if err := s.Validate(f, cfg); err != nil {
		return Result{}, err
	}
	sequential := cfg.Runs == 0
	s, cfg = s.WithDefaults(), cfg.WithDefaults()
	b := s.budget(f, cfg)
	b.collect()
	if s.Kind.ServerModel() {
		return replayModel(ctx, f, s, cfg)
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := newReplay(ctx, f, s, cfg, cfg.Runs, b.workers)
	if cfg.RepresentativeOnly {
		r.keep = newShortlist(cfg.Runs)
	}
	looks := []int{cfg.Runs}
	if sequential {
		looks = stopLooks(cfg.Level, cfg.Runs)
	}
	var st *Stop
	made := 0
	for _, n := range looks {
		if err := r.replayRuns(ctx, stop, made, n); err != nil {
			return Result{}, err
		}
		made = n
		if !sequential {
			break
		}
		reason, open := stopAt(r.runs[:n], s, cfg)
		if reason != "" || n == cfg.Runs {
			st = &Stop{Runs: n, MaxRuns: cfg.Runs, Reason: reason}
			if reason == "" {
				st.Reason, st.Undecided, st.Limit = StopMaxRuns, open.f, open.limit
			}
			break
		}
	}
	r.slots = nil // the engines: garbage, before the summary's lists
	runs := r.runs[:made]
	rep := representative(runs)
	if r.keep != nil {
		runs[rep].Arrivals, runs[rep].RetryArrivals = r.keep.histogram(rep).ints()
	}
	return Result{Scenario: s, Config: cfg, Runs: runs, Representative: rep, Summary: summarize(runs, s, cfg), Stop: st}, nil
}

// newReplay returns the replay of runs runs of s with cfg, on workers
// engines of their own.
func newReplay(ctx context.Context, f kit.Factory, s Scenario, cfg Config, runs, workers int) *replay {
	r := &replay{
		f:      f,
		s:      s,
		cfg:    cfg,
		runs:   make([]Run, runs),
		failed: runs,
		slots:  make([]slot, workers),
	}
	for w := range r.slots {
		r.slots[w].e = newEngine(f, s)
		r.slots[w].e.track = newTracker(ctx, s)
		r.slots[w].run.Store(-1)
	}
	return r
}

// replayRuns replays the runs numbered from from up to to on the slots'
// engines, and returns once every one has finished; it returns the error
// of the lowest-numbered run that failed, or where ctx stopped it. stop
// cancels ctx.
func (r *replay) replayRuns(ctx context.Context, stop context.CancelCauseFunc, from, to int) error {
	r.next.Store(int64(from))
	r.limit = to
	var wg sync.WaitGroup
	for w := range r.slots {
		wg.Go(func() { r.work(ctx, &r.slots[w]) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var hung <-chan error
	if r.cfg.CallTimeout > 0 {
		hung = r.watch(done, r.cfg.CallTimeout)
	}
	select {
	case <-done:
	case err := <-hung:
		// The hung call's goroutine stays blocked, since Go cannot stop
		// it; the other runs stop with the replay.
		stop(errHung)
		return err
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(stuckGrace):
			return r.stuck(ctx)
		}
	}
	if r.err != nil {
		return r.err
	}
	if r.finished < to-r.first {
		return fmt.Errorf("sim: replay stopped after %d of %d runs: %w", r.finished, r.cfg.Runs, context.Cause(ctx))
	}
	return nil
}

// collectFirst is the estimate above which a replay collects the garbage
// already on the heap before it starts: 64 MiB, about a million devices
// of a kit.Spec's, whose replay takes seconds beside the collection's
// milliseconds.
const collectFirst = 64 << 20

// collect collects the garbage on the heap before a replay whose
// estimate is over collectFirst. The estimate is what the replay adds to
// the heap. The garbage of what ran before it, such as the last of a
// gate's replays, would stay beside it until the collector's next cycle,
// which the heap that garbage was part of sets: it is collected first.
func (b budget) collect() {
	if b.need > collectFirst {
		runtime.GC()
	}
}

// A replay holds the state its workers share.
type replay struct {
	f   kit.Factory
	s   Scenario // with defaults
	cfg Config   // with defaults

	next  atomic.Int64 // the number of the next run to start
	limit int          // the number past the last run of the batch

	mu       sync.Mutex
	runs     []Run      // from run number first on
	first    int        // Over's first run; 0 in Replay
	keep     *shortlist // with RepresentativeOnly, the histograms kept
	finished int        // runs finished without error
	failed   int        // the lowest-numbered run that failed, or cfg.Runs
	err      error      // its error
	slots    []slot
	// figuresOnly keeps no run's histograms, and no shortlist (see Over).
	figuresOnly bool
}

// A slot is a worker: its engine, the run it replays, and the cancel
// function of that run's context.
type slot struct {
	e      *engine
	run    atomic.Int64 // the run being replayed, or -1
	cancel context.CancelCauseFunc
}

// errSuperseded stops a run once a lower-numbered run has failed: the
// replay reports the lower run's error, and needs nothing of the higher
// runs.
var errSuperseded = errors.New("a lower-numbered run failed")

// work replays runs on w's engine, in the order of their numbers, until
// every run of the batch has started, ctx is done, or a lower-numbered run
// has failed.
func (r *replay) work(ctx context.Context, w *slot) {
	for ctx.Err() == nil {
		i := int(r.next.Add(1) - 1)
		if i >= r.limit {
			return
		}
		rctx, cancel := context.WithCancelCause(ctx)
		r.mu.Lock()
		if i > r.failed {
			r.mu.Unlock()
			cancel(nil)
			return
		}
		w.cancel = cancel
		w.run.Store(int64(i))
		r.mu.Unlock()

		w.e.reset(i, runSeed(r.cfg.Seed, i))
		if !r.runOn(rctx, w, i) {
			cancel(nil)
			return
		}
		cancel(nil)
	}
}

// runOn replays run i on w and records its figures or its error. It
// reports false when a call of the policy ended the worker's goroutine
// (runtime.Goexit, which t.FailNow and t.SkipNow call) rather than
// returning: the run is then the policy's failure, with its device and
// attempt, and the goroutine ends as it was told.
func (r *replay) runOn(ctx context.Context, w *slot, i int) (returned bool) {
	defer func() {
		if !returned {
			r.finish(w, i, Run{}, r.deviceError(i, w.e.asking.Load(), StopPanic, inCall(kit.Outcome(w.e.observing.Load()), errGoexit)))
		}
	}()
	run, err := w.e.replayRun(ctx)
	w.e.release()
	r.finish(w, i, run, err)
	return true
}

// errGoexit is the error of a call of the policy that ended its goroutine.
var errGoexit = errors.New("the call ended its goroutine instead of returning (runtime.Goexit, which t.FailNow and t.SkipNow call)")

// inCall returns err, the error of a call of a policy that did not return
// (errGoexit, or a hang's), naming the call when it is Observe, told the
// outcome observing; err itself when observing is 0, a call of Next or of
// the factory.
func inCall(observing kit.Outcome, err error) error {
	if observing == 0 {
		return err
	}
	return &observeError{observing, err}
}

// An observeError is the error of a policy's Observe that did not return.
type observeError struct {
	observing kit.Outcome
	err       error
}

func (e *observeError) Error() string {
	msg := e.err.Error()
	if errors.Is(e.err, errGoexit) {
		msg = strings.TrimPrefix(msg, "the call ")
	}
	return fmt.Sprintf("the policy's Observe(%v) %s", e.observing, msg)
}

func (e *observeError) Unwrap() error { return e.err }

// finish records the figures of run i, or its error.
func (r *replay) finish(w *slot, i int, run Run, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w.cancel = nil
	w.run.Store(-1)
	switch {
	case err != nil && i < r.failed:
		r.failed, r.err = i, err
		for j := range r.slots {
			if o := &r.slots[j]; o.cancel != nil && o.run.Load() > int64(i) {
				o.cancel(errSuperseded)
			}
		}
		return
	case err != nil || i > r.failed:
		return
	}
	r.finished++
	r.runs[i-r.first] = run
	switch {
	case r.figuresOnly:
	case r.keep == nil:
		r.runs[i-r.first].Arrivals, r.runs[i-r.first].RetryArrivals = w.e.histograms()
	default:
		r.keep.add(run.PeakRetryArrivals, i, w.e.compact)
	}
}

// representative returns the number of the representative run: the run
// whose peak of retry arrivals is the median run's, the lower median
// between two, and the lowest-numbered of the runs with that peak.
func representative(runs []Run) int {
	return representativeBy(runs, func(r Run) float64 { return float64(r.PeakRetryArrivals) })
}

// representativeBy returns the number of the run whose key is the median
// run's, the lower median between two, and the lowest-numbered of the runs
// with that key.
func representativeBy(runs []Run, key func(Run) float64) int {
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(runs[a]), key(runs[b])) })
	return order[(len(order)-1)/2]
}

// StuckGrace is how long Replay waits, once its context is done, for its
// runs to stop by themselves. A run that has not stopped by then is inside
// a policy (or a factory) that does not return: Replay returns a
// [*DeviceError] naming it, with cause StopHung, and leaves its goroutine
// blocked, since Go cannot stop it. This is the only use of the wall clock
// in the package besides Config.CallTimeout, and it does not change any
// figure.
const StuckGrace = 2 * time.Second

// stuckGrace is StuckGrace, shortened by the tests.
var stuckGrace = StuckGrace

// stuck reports the lowest-numbered run that did not stop: the device
// whose policy it was asking, and the attempt.
func (r *replay) stuck(ctx context.Context) error {
	run, asking, observing := int64(-1), uint64(0), kit.Outcome(0)
	for i := range r.slots {
		w := &r.slots[i]
		n := w.run.Load()
		a, o := w.e.asking.Load(), kit.Outcome(w.e.observing.Load())
		if n < 0 || w.run.Load() != n || run >= 0 && n > run {
			continue
		}
		run, asking, observing = n, a, o
	}
	if run < 0 {
		return fmt.Errorf("sim: replay stopped, and its runs did not stop within %v: %w", stuckGrace, context.Cause(ctx))
	}
	return r.deviceError(int(run), asking, StopHung, inCall(observing, fmt.Errorf("did not return within %v of the replay being stopped (%w)", stuckGrace, context.Cause(ctx))))
}

// errHung stops the runs of a replay in which a call did not return.
var errHung = errors.New("a policy's call did not return")

// watch names, on the channel it returns, the call of the lowest-numbered
// run that has gone limit without returning, checking every quarter of
// limit until done is closed. It reads the slots' engines only, which
// outlive it.
func (r *replay) watch(done <-chan struct{}, limit time.Duration) <-chan error {
	slots := r.slots
	out := make(chan error, 1)
	go func() {
		t := time.NewTicker(max(limit/4, time.Millisecond))
		defer t.Stop()
		last := make([]uint64, len(slots))
		idle := make([]int, len(slots))
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			run, asking, observing := int64(-1), uint64(0), kit.Outcome(0)
			for i := range slots {
				w := &slots[i]
				n, a, c := w.run.Load(), w.e.asking.Load(), w.e.calls.Load()
				o := kit.Outcome(w.e.observing.Load())
				if c%2 == 0 || c != last[i] {
					last[i], idle[i] = c, 0
					continue
				}
				// Four quarters without a change: the call began at
				// least limit ago.
				if idle[i]++; idle[i] < 4 || n < 0 || run >= 0 && n > run {
					continue
				}
				run, asking, observing = n, a, o
			}
			if run >= 0 {
				out <- r.deviceError(int(run), asking, StopHung, inCall(observing, fmt.Errorf("did not return within %v", limit)))
				return
			}
		}
	}()
	return out
}

// deviceError returns the error of run's call of the device and attempt
// in asking (see engine.asking), which did not return.
func (r *replay) deviceError(run int, asking uint64, cause StopCause, err error) *DeviceError {
	dev, attempt := int(asking>>32), int(uint32(asking))
	seed := runSeed(r.cfg.Seed, run)
	id := deviceID(seed, dev)
	if r.s.IDs != nil {
		id = r.s.IDs[dev]
	}
	return &DeviceError{Run: run, Seed: seed, Device: id, Attempt: attempt, Cause: cause, Err: err}
}

// replayRun replays the engine's run.
func (e *engine) replayRun(ctx context.Context) (Run, error) {
	var err error
	if e.s.Kind.model().arrivalsOnly() {
		err = e.storm(ctx)
	} else {
		err = e.replay(ctx)
	}
	if err != nil {
		return Run{}, err
	}
	e.track.end()
	return e.result(), nil
}

// result returns the figures of a finished run, without its histograms.
func (e *engine) result() Run {
	r := Run{
		Seed:           e.seed,
		AllServed:      time.Duration(e.last),
		Attempts:       int(e.attempts),
		Served:         e.served,
		GaveUp:         e.gaveUp,
		AttemptLimited: e.limited,
		Pending:        e.pending,
	}
	touched := e.touched()
	r.BusiestWindowArrivals = int(peak(e.hist[:touched]))
	r.PeakRetryArrivals = int(peak(e.rhist[:touched]))
	r.PeakRatio = float64(r.PeakRetryArrivals) / e.s.windowBudget()
	if e.periodic {
		var firings int64
		for w := range touched {
			firings = max(firings, e.hist[w]-e.rhist[w])
		}
		r.PeakFirings = int(firings)
		r.TimerLoadRatio = float64(firings) / e.s.windowBudget()
		r.FiringsMissed = e.missed
	}
	if e.fine {
		r.PeakRetryArrivals1s = int(e.peak1s)
		r.PeakRatio1s = float64(e.peak1s) / e.s.AcceptRate
	}
	if n := len(e.success); n > 0 {
		r.P50 = time.Duration(nearestRank(e.success, 0.50))
		r.P99 = time.Duration(nearestRank(e.success, 0.99))
	}
	return r
}

// histograms returns the run's histograms as a Run holds them, without
// their trailing empty windows.
func (e *engine) histograms() (arrivals, retries []int) {
	return ints(trim(e.hist[:e.touched()])), ints(trim(e.rhist[:e.touched()]))
}

// compact returns the run's histograms as a shortlist keeps them.
func (e *engine) compact() *histogram {
	return newHistogram(trim(e.hist[:e.touched()]), trim(e.rhist[:e.touched()]))
}

// peak returns the largest count of h, or 0.
func peak(h []int64) int64 {
	var m int64
	for _, c := range h {
		m = max(m, c)
	}
	return m
}

// trim returns h without its trailing zeros.
func trim[T int | int64](h []T) []T {
	n := len(h)
	for n > 0 && h[n-1] == 0 {
		n--
	}
	return h[:n]
}

// ints returns a copy of h as ints, never nil.
func ints[T int32 | int64](h []T) []int {
	out := make([]int, len(h))
	for i, c := range h {
		out[i] = int(c)
	}
	return out
}

// nearestRank returns the q-quantile of x by nearest rank, reordering x.
func nearestRank(x []int64, q float64) int64 {
	k := int(math.Ceil(float64(len(x))*q)) - 1
	k = min(max(k, 0), len(x)-1)
	selectFirst(x, k)
	return x[k]
}
