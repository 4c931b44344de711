package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// A check is one property of the suite, as one row of it: its name, why it
// matters to a fleet, where it stands in a report, how it is judged and
// what causes its findings. Each check lives in a file of its own, beside
// the code that judges it, and registers its row there (see register).
type check struct {
	// name is the check's short name, a Name constant.
	name string
	// why says in one sentence why the property matters to a fleet.
	why string
	// position places the check in a run's report and in Checks, lowest
	// first; no two checks share one. The checks stand ten apart, so that
	// a new one goes between two without moving the others.
	position int
	// applies reports whether the check runs under cfg; nil when it
	// always does.
	applies func(cfg Config) bool
	// after names the checks to judge before this one, in order: a check
	// that makes devices again runs after reproducibility.
	after []string
	// run judges the check on the run's devices.
	run func(r *runner) Result
	// cause returns the root cause of a finding of the check, a failure
	// or a warning; it may read other checks' results through the runner,
	// and may write in res.Remedy a remedy that names what it found, in
	// place of the cause's own.
	cause func(r *runner, res *Result) Cause
}

// registered holds the rows of the checks, in the order their files
// registered them, until init sorts them into suite.
var registered []check

// register adds c to the suite and returns true. A check's file calls it
// in a package-level declaration,
//
//	var _ = register(check{name: NameSpread, position: 10, ...})
//
// which Go runs before any init function, so that init sees every row
// whatever the files are named.
func register(c check) bool {
	registered = append(registered, c)
	return true
}

// suite holds the checks in the order a run reports them.
var suite []check

func init() { suite = ordered(registered) }

// ordered returns rows sorted by position. It panics, naming the check,
// on a row without a name, a run or a cause, on two rows that share a
// name or a position, and on an after that names no check, or that makes
// a check run after itself.
func ordered(rows []check) []check {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b check) int { return cmp.Compare(a.position, b.position) })
	byName := make(map[string]check, len(rows))
	for i, c := range rows {
		switch {
		case c.name == "":
			panic(fmt.Sprintf("properties: a check at position %d has no name", c.position))
		case c.run == nil || c.cause == nil:
			panic(fmt.Sprintf("properties: check %q has no run or no cause", c.name))
		case i > 0 && rows[i-1].position == c.position:
			panic(fmt.Sprintf("properties: checks %q and %q share position %d", rows[i-1].name, c.name, c.position))
		}
		if _, dup := byName[c.name]; dup {
			panic(fmt.Sprintf("properties: check %q is registered twice", c.name))
		}
		byName[c.name] = c
	}
	for _, c := range rows {
		for _, a := range c.after {
			if _, ok := byName[a]; !ok {
				panic(fmt.Sprintf("properties: check %q runs after %q, which is no check", c.name, a))
			}
		}
		if runsAfter(byName, c.name, c.after, len(rows)) {
			panic(fmt.Sprintf("properties: check %q runs after itself", c.name))
		}
	}
	return rows
}

// runsAfter reports whether the checks named in after, or those they run
// after in turn, within depth steps, include the check named name.
func runsAfter(byName map[string]check, name string, after []string, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, a := range after {
		if a == name || runsAfter(byName, name, byName[a].after, depth-1) {
			return true
		}
	}
	return false
}

// An Info names one check of the suite and says why it matters to a
// fleet, as its Result does.
type Info struct {
	Name, Why string
}

// Checks returns the checks of the suite, in the order a run reports them.
// Conformance runs only when Config.Claim names a strategy.
func Checks() []Info {
	out := make([]Info, len(suite))
	for i, c := range suite {
		out[i] = Info{Name: c.name, Why: c.why}
	}
	return out
}

// Run runs the whole suite on the policy f makes, over the population cfg
// describes, and returns every check's result. It returns an error, and
// runs nothing, when f is nil, cfg is out of range or the run would need
// more memory than cfg.MemoryLimit (see [Config.Validate]).
//
// Run never panics on a policy that panics. A call that makes no progress
// for cfg.CallTimeout is reported by the bounds check as a hang, with the
// device and the attempt, and the other checks run on the devices that
// answered; the call's goroutine is left behind. A check passes only on
// the evidence it asks for: when the run could not examine the whole
// population (a deadline, a cancelled context, a policy that hangs again
// and again), a check that found a failure among the devices read still
// fails, and the others are Inconclusive, with the reason and the count.
//
// Run draws rapid's id populations with the seed cfg.Seed and with rapid's
// fail files turned off, through rapid's settings in the standard flag set.
// Outside go test it first registers the testing flags (testing.Init) and,
// unless the program has done so, parses the standard flag set with no
// arguments: a program that calls Run keeps its own flags on a flag set of
// its own, and passes its seed in cfg.Seed.
func Run(ctx context.Context, f kit.Factory, cfg Config) (Outcome, error) {
	return run(ctx, f, cfg, nil)
}

// An inBubble runs fn inside a testing/synctest bubble, where time.Now stands
// still while goroutines run and moves on only when they all wait.
type inBubble func(fn func())

// run is Run with an optional bubble for the frozen-clock check.
func run(ctx context.Context, f kit.Factory, cfg Config, frozen inBubble) (Outcome, error) {
	r, err := start(ctx, f, cfg)
	if err != nil {
		return Outcome{}, err
	}
	defer r.cancel()
	return r.outcome(frozen), nil
}

// errNilFactory is the error of a run without a factory to make policies.
var errNilFactory = errors.New("properties: nil factory: want a kit.Factory that makes each device's policy")

// start validates cfg and reads the population's delays, or returns the
// error of a config that Validate refuses. The caller calls r.cancel when
// the run is over.
func start(ctx context.Context, f kit.Factory, cfg Config) (*runner, error) {
	if f == nil {
		return nil, errNilFactory
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newRunner(ctx, f, cfg), nil
}

// newRunner reads the population's delays for the checks to share, and
// holds the checks that apply to cfg. The caller calls r.cancel when the
// run is over.
func newRunner(ctx context.Context, f kit.Factory, cfg Config) *runner {
	cfg = cfg.withDefaults()
	r := &runner{cfg: cfg, f: f, seed: resolveSeed(cfg.Seed), judging: map[string]*judgement{}}
	for _, c := range suite {
		if c.applies == nil || c.applies(cfg) {
			r.suite = append(r.suite, c)
		}
	}
	if cfg.Timeout > 0 {
		r.ctx, r.cancel = context.WithTimeout(ctx, cfg.Timeout)
	} else {
		r.ctx, r.cancel = context.WithCancel(ctx)
	}
	r.ids = cfg.IDs
	if len(r.ids) == 0 {
		r.ids = population(r.seed, cfg.Devices)
	}
	main := f
	if n := cfg.freshDevices(len(r.ids)); n > 0 {
		devs := make([]kit.Device, n)
		for i, id := range r.ids[:n] {
			devs[i] = kit.Device{ID: id, Boot: cfg.Boot}
		}
		fresh, err := cfg.Processes.Fresh(r.ctx, devs, cfg.CapAttempts, false)
		if err != nil {
			// A program that breaks the protocol in a process of its own
			// is asked nothing more: each further process would wait out
			// its silence again.
			r.freshErr = err
			return r
		}
		main, r.fresh = fresh, n
	}
	r.main = collect(r.ctx, main, r.ids, boots{at: cfg.Boot}, cfg.CapAttempts, cfg)
	r.clean = cleanDevices(r.main)
	return r
}

// outcome runs every check: it judges them all, in the suite's order (and
// each after the checks it runs after), then gives each finding its
// cause, which may read the results of others.
func (r *runner) outcome(frozen inBubble) Outcome {
	r.frozen = frozen
	if r.freshErr != nil {
		return Outcome{Err: r.freshErr}
	}
	var out Outcome
	out.Err = sourceErrors(r.main)
	out.Hung, out.Shared = r.main.hangs > 0, r.main.shared > 0
	for _, c := range r.suite {
		r.judged(c.name)
	}
	for _, c := range r.suite {
		out.Results = append(out.Results, r.diagnosed(c.name))
	}
	out.EarlyDelays = make([][]time.Duration, r.cfg.Attempts)
	for a := range out.EarlyDelays {
		for _, d := range r.clean {
			if a < len(d.delays) {
				out.EarlyDelays[a] = append(out.EarlyDelays[a], d.delays[a])
			}
		}
	}
	return out
}

// A judgement is one check's result as far as the run has taken it.
type judgement struct {
	res       Result
	done      bool // res is judged
	diagnosed bool // res has its cause
}

// judged returns the result of the check named name, without its cause,
// judging it (after the checks it runs after) the first time: a check is
// judged once in a run, whichever check asks for it.
func (r *runner) judged(name string) Result {
	j := r.judgement(name)
	if j.done {
		return j.res
	}
	if j.res.Name != "" {
		panic(fmt.Sprintf("properties: check %q runs after itself", name))
	}
	j.res.Name = name
	c := r.check(name)
	for _, a := range c.after {
		r.judged(a)
	}
	res := r.settle(c.run(r))
	res.Why = c.why
	r.noteProcesses(&res)
	j.res, j.done = res, true
	return res
}

// diagnosed returns the result of the check named name with the cause and
// remedy of its finding, judging it the first time.
func (r *runner) diagnosed(name string) Result {
	res := r.judged(name)
	j := r.judgement(name)
	if !j.diagnosed {
		j.res, j.diagnosed = r.diagnose(r.check(name), res), true
	}
	return j.res
}

// anyFailed reports whether a check of the run failed, judging in the
// suite's order the checks not judged yet until one has.
func (r *runner) anyFailed() bool {
	for _, c := range r.suite {
		if j := r.judging[c.name]; j != nil && j.done && j.res.Status == verdict.Fail {
			return true
		}
	}
	for _, c := range r.suite {
		if r.judged(c.name).Status == verdict.Fail {
			return true
		}
	}
	return false
}

// judgement returns the judgement of the check named name.
func (r *runner) judgement(name string) *judgement {
	j := r.judging[name]
	if j == nil {
		j = &judgement{}
		r.judging[name] = j
	}
	return j
}

// check returns the check named name. A check that does not apply to the
// run's config has no result to read: asking for one is the kit's bug.
func (r *runner) check(name string) check {
	for _, c := range r.suite {
		if c.name == name {
			return c
		}
	}
	panic(fmt.Sprintf("properties: no check %q in this run", name))
}
