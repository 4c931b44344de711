package gate

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// A Policy is what a gate judges: a factory, what the report calls it and
// where it comes from.
type Policy struct {
	// Name is what the report calls the policy: its spec, the command that
	// runs it, its trace file, or a name of the caller's.
	Name string
	// Source is where the policy comes from; the zero value is
	// kit.SourceGo.
	Source kit.Source
	// Factory makes each device's policy.
	Factory kit.Factory
	// Spec describes a built-in strategy: conformance holds the policy to
	// it, its cap bounds every delay unless the checks declare their own,
	// and the comparison replays the other strategies with its backoff.
	Spec *kit.Spec
	// Command is the command line of an exec policy, for the report.
	Command string
	// IDs are the devices of a recording: the checks examine them and
	// every run of the replay replays them, instead of drawn ones.
	IDs []string
	// Again makes the same policy from a second process, for
	// reproducibility across processes; nil when there is none.
	Again func() (kit.Factory, error)
	// Err returns the failure of the policy's source so far, such as an
	// external program that broke the protocol, or nil. The gate asks it
	// after each step, so that a report names the source's own failure
	// rather than what it caused.
	Err func() error
	// Close ends the policy's source once the gate is done with it, before
	// the verdict, and returns its failure: an external program's replies
	// belong to their requests only if it wrote no line too many, which
	// shows once it is closed.
	Close func() error

	// reuse returns a factory of the policy that asks an external program
	// each request once, keeping its replies within budget bytes; nil for
	// other sources (see reuseReplies).
	reuse func(budget int64) kit.Factory
	// processes makes an external program's devices in fresh processes,
	// one per device, for the checks (see properties.Processes); nil for
	// other sources.
	processes *processes
}

// SpecPolicy returns the built-in strategy s describes, named by its spec.
func SpecPolicy(s kit.Spec) Policy {
	return Policy{Name: s.String(), Source: kit.SourceSpec, Factory: s.Factory(), Spec: &s}
}

// GoPolicy returns the policy f makes, named name.
func GoPolicy(name string, f kit.Factory) Policy {
	return Policy{Name: name, Source: kit.SourceGo, Factory: f}
}

// tracePolicy returns the delays t recorded, named name (its file, say).
func tracePolicy(name string, t *kit.Trace) Policy {
	return Policy{Name: name, Source: kit.SourceTrace, Factory: t.Factory(), IDs: t.IDs()}
}

// report returns how the report names the policy.
func (p Policy) report() reports.Policy {
	r := reports.Policy{Name: p.Name, Source: p.Source.OrGo(), Command: p.Command}
	if p.Spec != nil {
		r.Spec = p.Spec.String()
	}
	return r
}

// err returns the source's own failure, or nil.
func (p Policy) err() error {
	if p.Err == nil {
		return nil
	}
	return p.Err()
}

// A Step is one step of a gate.
type Step int

// The steps.
const (
	// Checks runs the property checks.
	Checks Step = 1 << iota
	// Replay replays the fleet failing together.
	Replay
	// Comparison replays the four built-in strategies beside the policy
	// on the same scenario.
	Comparison
	// Fix searches, when the policy fails, the smallest changes that pass
	// on the same scenario (see Report.Fixes): its base and cap, its
	// strategy, its seed, or its own delays slowed down. Each is replayed
	// on the same fleet with the gate's replications and more, so that it
	// passes on other seeds too, and checked when the change could fail
	// the checks, against the cap it needs, before it is suggested. A
	// change is probed on as few runs as decide it, each only until it is
	// over the threshold, before the winners are confirmed in full.
	Fix

	// All is every step, what the zero Steps means.
	All = Checks | Replay | Comparison | Fix
)

// DefaultSeed is the seed of a gate that sets none.
const DefaultSeed = 1

// Config says what a gate runs and on what. Its zero value runs every step
// with each package's defaults.
type Config struct {
	// Steps are the steps to run; zero means All.
	Steps Step
	// Seed is the only seed of a gate (default DefaultSeed): the checks
	// and the replay both run on it, so that one seed gives one report.
	// Checks.Seed and Replay.Seed must be left zero; Validate, Run and
	// Compare refuse a Config that sets either, with an *InputError.
	//
	// The memory limits are not the gate's: Checks.MemoryLimit bounds the
	// checks and Scenario.MemoryLimit every replay (each package's
	// DefaultMemoryLimit when zero), and replays run side by side only
	// while together they fit within the smallest of their scenarios'
	// limits. The CLI's --memory-limit sets both.
	Seed uint64
	// Checks configures the property checks. Its Claim and Cap default to
	// the policy's spec, its IDs to a recording's devices, and its Source
	// to what the policy's source allows.
	Checks properties.Config
	// Scenario is the fleet replay's scenario; with a recording, its
	// Clients is how many of the recorded devices to replay (default all).
	Scenario sim.Scenario
	// Replay sets the replications. Only the representative run keeps its
	// histograms, as the report draws only those.
	Replay sim.Config
	// Reproduce says how to find a counterexample again from its seed, in
	// the words of the caller: the CLI writes its command line. Nil says it
	// in Go's terms.
	Reproduce func(step Step, seed uint64) string
	// Progress, when set, is told for each step how many devices it will
	// make (0 when it cannot tell), and then each device made.
	Progress func(step string, total int64) Meter
	// KitVersion is the version the report names; default Version().
	KitVersion string
	// ReportDir is where Check writes the report's files (report.json,
	// report.md, report.html, junit.xml); empty writes none. Run writes
	// nothing: its caller writes what it wants.
	ReportDir string
	// FailWarnings makes every warning fail the gate, as a failure does,
	// rather than pass: each check or replay that warns (a check's, such
	// as reproducibility, which Checks.RequireReproducible fails alone;
	// the replay's, see sim.Result.Warnings; a sample's pass near the
	// threshold) fails, saying so, and so does each replay of the search
	// for a fix (it sets Replay.FailWarnings). The CLI's --warnings fail
	// sets it.
	FailWarnings bool
	// Sample, above 1, replays a fleet too large for one machine as 1/Sample
	// of its devices against 1/Sample of its accept rate: the replay's
	// figures depend on the fleet through the ratio of the two. In
	// measurements of samples of 10,000 devices and more (sim's
	// TestSampling, and near the threshold), a sample's peak ratio was
	// never more than 0.1% below the whole fleet's; it can be well above
	// it when the sample's budget a window is small, since the peak of a
	// small count is the peak of more noise. So a sample's pass stands for
	// the fleet, and its fail near the threshold may be the sample's own.
	// The time until the last device is served is the latest of the
	// fleet's, which fewer devices put earlier: a sample understates it.
	// The sample must hold at least 10,000 devices; the report says it is
	// one, and a pass within SampleError of the threshold warns. A
	// recording is replayed whole.
	Sample int
}

// minSampleDevices is the fewest devices a sample holds (see
// Config.Sample): the sampling error was measured down to that size, and
// grows as the sample shrinks.
const minSampleDevices = 10_000

// SampleError is the margin a sample's pass keeps under the threshold
// before it warns: well above the largest shortfall of a sample's peak
// ratio under the whole fleet's seen in the measurements (0.1%).
const SampleError = 0.02

// Sampled returns s as the gate replays it under c.Sample: 1/Sample of its
// fleet against 1/Sample of its accept rate, s itself without a sample.
// A sample of fewer than 10,000 devices is an *InputError.
func (c Config) Sampled(s sim.Scenario) (sim.Scenario, error) {
	if c.Sample <= 1 || len(s.IDs) > 0 {
		return s, nil
	}
	d := s.WithDefaults()
	if d.Kind.ServerModel() {
		// A queue, a broker or a row does not scale down with the fleet:
		// their figures were measured whole.
		return s, &InputError{fmt.Errorf("a sample replays the fleet kinds only, not --scenario %s: replay the whole fleet", d.Kind)}
	}
	n := d.Clients / c.Sample
	if d.Clients%c.Sample != 0 {
		n++
	}
	if n < minSampleDevices {
		return s, &InputError{fmt.Errorf("a sample of 1/%d of %d devices holds %d, fewer than the %d whose sampling error was measured: sample less, or replay the whole fleet", c.Sample, d.Clients, n, minSampleDevices)}
	}
	s.Clients, s.AcceptRate = n, d.AcceptRate/float64(c.Sample)
	return s, nil
}

// A Meter counts the devices of one step, for a progress bar.
type Meter interface {
	Add(n int64)
	Finish()
}

// An InputError is a gate's refusal of what it was given: a configuration
// out of range, refused before any work, or a policy's source that failed.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// An InterruptedError reports a gate that its context stopped, and where.
type InterruptedError struct {
	// During says where: "during the property checks", "during the
	// replay".
	During string
	// Err is the context's error, or the error it caused.
	Err error
}

func (e *InterruptedError) Error() string {
	return "gate: interrupted " + e.During + ": " + e.Err.Error()
}
func (e *InterruptedError) Unwrap() error { return e.Err }

// A DefectError reports a policy whose defect stopped a replay of a
// comparison: a comparison has no figures for it.
type DefectError struct {
	Policy string
	Err    *sim.DeviceError
}

func (e *DefectError) Error() string {
	return fmt.Sprintf("%s: the replay stopped: %v", e.Policy, e.Err)
}

func (e *DefectError) Unwrap() error { return e.Err }

// Version returns the version of jitterkit that is running: the module's
// version when the program was built from one, as the main module or as a
// dependency, and "devel" otherwise.
func Version() string {
	const module = "github.com/jitterkit/jitterkit"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	m := &bi.Main
	for _, d := range bi.Deps {
		if d.Path == module {
			m = d
		}
	}
	if m.Path != module || m.Version == "" || m.Version == "(devel)" {
		return "devel"
	}
	return m.Version
}

// Run judges the policy p as cfg says, and returns the report: the
// verdict, the checks, the replay, the comparison and what to change. See
// the package's documentation for its steps and errors.
func Run(ctx context.Context, p Policy, cfg Config) (reports.Report, error) {
	return run(ctx, p, cfg, properties.Run)
}

// A checker runs the property checks: properties.Run, or RunFrozen in a
// test.
type checker func(context.Context, kit.Factory, properties.Config) (properties.Outcome, error)

func run(ctx context.Context, p Policy, cfg Config, check checker) (rep reports.Report, err error) {
	if p.Factory == nil {
		return rep, &InputError{fmt.Errorf("gate: policy %q has no factory", p.Name)}
	}
	if err := cfg.oneSeed(); err != nil {
		return rep, err
	}
	g := &gate{ctx: ctx, p: p, cfg: cfg.withDefaults(), check: check, memo: &replays{}}
	if err := g.validate(); err != nil {
		return rep, err
	}
	rep, err = g.run()
	// The source is closed before the verdict, whatever the steps gave.
	if p.Close != nil {
		if cerr := p.Close(); cerr != nil && err == nil {
			err = &InputError{cerr}
		}
	}
	if err != nil {
		return reports.Report{}, err
	}
	g.failWarnings(&rep)
	rep.Verdict = judge(rep)
	rep.Advice = reports.Advise(rep)
	return rep, nil
}

// judge returns the gate's verdict on the report's checks and replay.
func judge(rep reports.Report) verdict.Status {
	var parts []verdict.Status
	for _, c := range rep.Checks {
		parts = append(parts, c.Status)
	}
	if rep.Replay != nil {
		parts = append(parts, rep.Replay.Status)
	}
	return verdict.Gate(parts...)
}

// A gate holds one run of Run.
type gate struct {
	ctx   context.Context
	p     Policy
	cfg   Config
	check checker
	memo  *replays // nil: every replay is made
	// reserved is the memory the replies of the policy's program kept for
	// reuse may take, with the garbage collector's room: the replays that
	// run side by side plan within the limit less it.
	reserved int64
	// searched counts the devices the search for a fix replayed, for its
	// progress; nil outside the search.
	searched Meter
}

// replays holds the replays of built-in specs a gate made, by what
// decides their figures, so that the comparison and the search for a fix
// do not replay again what the other replayed: a spec's replay depends on
// the spec, the scenario and the replications alone.
type replays struct {
	mu   sync.Mutex
	done map[string]sim.Result
	// first holds, by runsKey, the runs of the replay of the most runs.
	first map[string][]sim.Run
}

// key returns what decides the replay of spec on s with cfg, or "" when
// it cannot be told: the JSON of each, and whether cfg leaves the runs to
// the replay, which stops once its verdict is decided (see sim.Stop),
// rather than making the runs it writes.
func (r *replays) key(spec kit.Spec, s sim.Scenario, cfg sim.Config) string {
	if r == nil || len(s.IDs) > 0 {
		return ""
	}
	sj, err1 := s.MarshalJSON()
	cj, err2 := cfg.MarshalJSON()
	if err1 != nil || err2 != nil {
		return ""
	}
	return fmt.Sprint(spec.String(), "\x00", string(sj), "\x00", string(cj), "\x00", cfg.Runs == 0)
}

func (r *replays) get(key string) (sim.Result, bool) {
	if key == "" {
		return sim.Result{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.done[key]
	return res, ok
}

// runsKey returns what decides each run of a replay of spec on s with cfg,
// or "" when it cannot be told or spec is nil: run i of every replay with
// that key is the same run, whatever their number of runs (see
// sim.Config.Seed).
func (r *replays) runsKey(spec *kit.Spec, s sim.Scenario, cfg sim.Config) string {
	if spec == nil {
		return ""
	}
	cfg.Runs = 1
	return r.key(*spec, s, cfg)
}

// put keeps res, the replay of key, and its runs as those of runsKey.
func (r *replays) put(key, runsKey string, res sim.Result) {
	if key == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done, r.first = map[string]sim.Result{}, map[string][]sim.Run{}
	}
	r.done[key] = res
	if runsKey != "" && len(res.Runs) > len(r.first[runsKey]) {
		r.first[runsKey] = res.Runs
	}
}

// runs returns the most runs, from run 0, of the replays kept under
// runsKey.
func (r *replays) runs(runsKey string) []sim.Run {
	if r == nil || runsKey == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[runsKey]
}

// oneSeed refuses a seed of the checks or of the replay: the gate's Seed
// is the only one.
func (c Config) oneSeed() error {
	switch {
	case c.Checks.Seed != 0:
		return &InputError{fmt.Errorf("Checks.Seed is %d: a gate's checks run on its own Seed; set Config.Seed instead", c.Checks.Seed)}
	case c.Replay.Seed != 0:
		return &InputError{fmt.Errorf("Replay.Seed is %d: a gate's replay runs on its own Seed; set Config.Seed instead", c.Replay.Seed)}
	}
	return nil
}

// enoughRuns refuses replications too few to make an interval: a
// replay's verdict, and a comparison's cell, is the median over the runs
// with its interval, and fewer than sim.MinRunsToPass runs make none, so
// that the work would end with no verdict.
func enoughRuns(cfg sim.Config) error {
	if n := cfg.Runs; n > 0 && n < sim.MinRunsToPass {
		return &InputError{fmt.Errorf("runs %d makes no interval: a replay judges, and compare shows, the median over the runs with its interval, and fewer than %d runs make none", n, sim.MinRunsToPass)}
	}
	return nil
}

// withDefaults returns c with its zero fields set.
func (c Config) withDefaults() Config {
	if c.Steps == 0 {
		c.Steps = All
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.KitVersion == "" {
		c.KitVersion = Version()
	}
	c.Checks.Seed, c.Replay.Seed = c.Seed, c.Seed
	c.Replay.RepresentativeOnly = true
	if c.FailWarnings {
		// A change the search for a fix offers must not warn either.
		c.Replay.FailWarnings = true
	}
	return c
}

// ReplayConfig returns the configuration of the replays the gate runs on
// c: c.Replay with the gate's seed, keeping only each run's representative
// histograms. Validate a scenario against it to refuse, before any work,
// what Run would refuse.
func (c Config) ReplayConfig() sim.Config { return c.withDefaults().Replay }

// checksConfig returns the configuration of the property checks of p.
func (g *gate) checksConfig() properties.Config {
	cfg := g.cfg.Checks
	if g.p.IDs != nil {
		cfg.IDs = g.p.IDs
	}
	cfg.Source = g.p.Source
	if cfg.Source == kit.SourceExec {
		// The program's own silence timeout decides whether it answers
		// in time; a second watch on each call would make machine speed
		// a verdict.
		cfg.CallTimeout = -1
		if g.p.processes != nil {
			cfg.Processes = g.p.processes
		}
	}
	if s := g.p.Spec; s != nil {
		claim := *s
		cfg.Claim = &claim
		if cfg.Cap == 0 {
			cfg.Cap = specCap(claim)
		}
	}
	return cfg
}

// specCap returns the cap of s after its default.
func specCap(s kit.Spec) time.Duration {
	if s.Cap > 0 {
		return s.Cap
	}
	return max(kit.DefaultCap, s.Base)
}

// scenario returns the replay's scenario of the gate's policy with clients
// devices (0 for the configured fleet), with a recording's devices in
// place of drawn ones.
func (g *gate) scenario(clients int) (sim.Scenario, error) {
	return g.scenarioOf(g.p, clients)
}

// cellScenario returns the replay's scenario of the cell c: p's with its
// devices, and its budget when it has one.
func (g *gate) cellScenario(c cell) (sim.Scenario, error) {
	s, err := g.scenarioOf(c.p, c.clients)
	if c.budget.Kind != sim.NoBudget {
		s.Budget = c.budget
	}
	return s, err
}

// scenarioOf returns the replay's scenario of p with clients devices.
func (g *gate) scenarioOf(p Policy, clients int) (sim.Scenario, error) {
	s := g.cfg.Scenario
	if clients > 0 {
		s.Clients = clients
	}
	if p.IDs == nil {
		var err error
		if s, err = g.cfg.Sampled(s); err != nil {
			return s, err
		}
	}
	if ids := p.IDs; ids != nil {
		switch {
		case s.Clients == 0:
			s.IDs = ids
		case s.Clients > len(ids):
			return s, &InputError{fmt.Errorf("a fleet of %d devices: the recording %s holds %d", s.Clients, p.Name, len(ids))}
		default:
			s.IDs, s.Clients = ids[:s.Clients], 0
		}
	}
	return s, nil
}

// validate refuses, before any work, a configuration out of range: the
// checks' and the replay's scenario at each fleet size of sizes (none, or
// 0, for the configured fleet). A recording not yet read (a Trace policy
// without IDs) has its devices checked once it is read, and its own
// fleet's scenario validated then.
func (g *gate) validate(sizes ...int) error {
	unread := g.p.Source == kit.SourceTrace && g.p.IDs == nil
	if g.p.Source == kit.SourceTrace && g.cfg.Checks.Devices != 0 && g.cfg.Steps&Checks != 0 {
		return &InputError{errors.New("devices does not apply to a recorded trace: its own devices are checked")}
	}
	if g.cfg.Steps&Checks != 0 && !unread {
		if err := g.checksConfig().Validate(); err != nil {
			return &InputError{err}
		}
	}
	if g.cfg.Steps&Replay == 0 {
		return nil
	}
	if err := enoughRuns(g.cfg.Replay); err != nil {
		return err
	}
	if len(sizes) == 0 {
		sizes = []int{0}
	}
	for _, n := range sizes {
		if unread && n == 0 {
			continue
		}
		s, err := g.scenarioOf(g.p, n)
		if err != nil {
			return err
		}
		if err := s.Validate(g.p.Factory, g.cfg.Replay); err != nil {
			return &InputError{err}
		}
	}
	return nil
}

// run runs the steps and fills the report.
func (g *gate) run() (reports.Report, error) {
	rep := reports.Report{Policy: g.p.report(), KitVersion: g.cfg.KitVersion, Seed: g.cfg.Seed}
	if g.cfg.Steps&Checks != 0 {
		out, err := g.checks()
		if err != nil {
			return rep, err
		}
		rep.AddChecks(out)
		for i := range rep.Checks {
			if x := rep.Checks[i].Counterexample; x != nil {
				x.Replay = g.reproduce(Checks, x.Seed)
			}
		}
		if out.Hung || out.Shared {
			// Nothing more can be learnt by replaying: a replay would wait
			// on the call that hung, or replay one instance as a fleet. The
			// checks' findings are the verdict.
			return rep, nil
		}
		g.reuseReplies(out)
	}
	if g.cfg.Steps&Replay == 0 {
		return rep, g.fix(&rep)
	}
	res, stopped, err := g.replay(g.p, 0)
	if err != nil {
		return rep, err
	}
	if stopped != nil {
		s, _ := g.scenario(0)
		rep.AddStopped(s, res.Config, stopped, g.reproduce(Replay, stopped.Seed))
		return rep, nil
	}
	rep.AddReplay(res)
	if c := rep.Replay.Collapses; c != nil && c.Collapsed > 0 {
		rep.Replay.Reproduce = g.reproduce(Replay, c.Seed)
	}
	if g.cfg.Sample > 1 && g.p.IDs == nil {
		rep.Replay.MarkSample(g.cfg.Scenario.WithDefaults(), g.cfg.Sample, SampleError)
	}
	if g.cfg.Steps&Comparison != 0 {
		c, err := g.compare(rep, res)
		if err != nil {
			return rep, err
		}
		rep.Comparisons = []reports.Comparison{c}
	}
	return rep, g.fix(&rep)
}

// failWarnings turns every warning of rep, of a check or of the replay,
// into a failure of its part when the gate's Config.FailWarnings asks.
func (g *gate) failWarnings(rep *reports.Report) {
	if !g.cfg.FailWarnings {
		return
	}
	const failed = "; a warning, which fails since every warning does"
	for i := range rep.Checks {
		if c := &rep.Checks[i]; c.Status == verdict.Warn {
			c.Status, c.Detail = verdict.Fail, c.Detail+failed
		}
	}
	if p := rep.Replay; p != nil && p.Status == verdict.Warn {
		p.Status, p.Detail = verdict.Fail, p.Detail+failed
	}
}

// fix adds the fixes of a failing policy, when the Fix step runs.
func (g *gate) fix(rep *reports.Report) error {
	g.failWarnings(rep)
	if g.cfg.Steps&Fix == 0 {
		rep.FixesNotSearched = judge(*rep) == verdict.Fail
		return nil
	}
	fixes, skipped, err := g.fixes(*rep)
	rep.Fixes, rep.FixesSkipped = fixes, skipped
	return err
}

// reproduce says how to find again what the step found with seed: the
// gate's own seed finds it again, since the checks and the replay depend
// on the policy and that seed alone; a replay stopped in one of its runs
// can also be replayed as that run alone.
func (g *gate) reproduce(step Step, seed uint64) string {
	if g.cfg.Reproduce != nil {
		return g.cfg.Reproduce(step, seed)
	}
	again := fmt.Sprintf("gate.Config{Seed: %d}", g.cfg.Seed)
	if step == Replay && seed != g.cfg.Seed {
		return fmt.Sprintf("%s; that run alone: sim.Check with sim.Config{Runs: 1, Seed: %d}", again, seed)
	}
	return again
}

// meter starts the progress of a step.
func (g *gate) meter(step string, total int64) Meter {
	if g.cfg.Progress == nil {
		return nopMeter{}
	}
	return g.cfg.Progress(step, total)
}

type nopMeter struct{}

func (nopMeter) Add(int64) {}
func (nopMeter) Finish()   {}

// progress returns ctx, whose replays report their progress on m (see
// sim.WithProgress).
func progress(ctx context.Context, m Meter) context.Context {
	if _, ok := m.(nopMeter); ok {
		return ctx
	}
	return sim.WithProgress(ctx, m.Add)
}

// counted returns f, counting on m the devices it makes.
func counted(f kit.Factory, m Meter) kit.Factory {
	if _, ok := m.(nopMeter); ok {
		return f
	}
	return func(d kit.Device) kit.Policy {
		m.Add(1)
		return f(d)
	}
}

// nearTestDeadline reports whether the gate's context ended because go
// test's deadline was near (see RunFrozen).
func (g *gate) nearTestDeadline() bool {
	return errors.Is(context.Cause(g.ctx), errTestDeadline)
}

// stopped wraps err, or the context's error, with where the gate stopped.
func (g *gate) stopped(where string, err error) error {
	if err == nil {
		err = context.Cause(g.ctx)
	}
	return &InterruptedError{During: where, Err: err}
}

// checks runs the property checks.
func (g *gate) checks() (properties.Outcome, error) {
	cfg := g.checksConfig()
	if g.p.Again != nil {
		second, err := g.p.Again()
		if err != nil {
			return properties.Outcome{}, &InputError{err}
		}
		cfg.Second = second
	}
	m := g.meter("checks: devices", 0)
	out, err := g.check(g.ctx, counted(g.p.Factory, m), cfg)
	m.Finish()
	switch {
	case err != nil:
		return out, &InputError{err}
	case g.ctx.Err() != nil && !(out.Hung && g.nearTestDeadline()):
		return out, g.stopped("during the property checks", nil)
	}
	if err := g.p.err(); err != nil {
		return out, &InputError{err}
	}
	if out.Err != nil {
		return out, &InputError{out.Err}
	}
	return out, nil
}

// replay replays p on the scenario with clients devices (0 for the
// configured fleet). A policy's defect that stopped it is returned as
// stopped, with the result holding only the configuration.
func (g *gate) replay(p Policy, clients int) (res sim.Result, stopped *sim.DeviceError, err error) {
	c := cell{p: p, clients: clients}
	m := g.meter("replay: devices", g.devices([]cell{c}, g.cfg.Replay))
	defer m.Finish()
	return g.replayOn(c, g.cfg.Replay, m)
}

// devices counts the devices the cells' replays make with cfg, in every
// fleet they replay (see sim.Scenario.Fleets), for the progress: at most,
// since a replay of the default runs may stop before the last (see
// sim.Stop).
func (g *gate) devices(cells []cell, cfg sim.Config) int64 {
	var n int64
	for _, c := range cells {
		if s, err := g.cellScenario(c); err == nil {
			s = s.WithDefaults()
			n += int64(s.Clients) * int64(cfg.WithDefaults().Runs) * int64(s.Fleets())
		}
	}
	return n
}

// replayCells replays the cells, side by side when the plan lets them
// (see plan), with runs runs each (0 for the gate's own), and returns
// their results in the order of the cells. step names the progress shown,
// none when it is empty. A replay a policy's defect stopped is a
// *DefectError naming the policy; the error returned is the first cell's
// in their order.
func (g *gate) replayCells(step string, cells []cell, runs int) ([]sim.Result, error) {
	atOnce, cfg := g.plan(cells, runs)
	var m Meter = nopMeter{}
	if step != "" {
		m = g.meter(step, g.devices(cells, cfg))
	}
	defer m.Finish()
	results := make([]sim.Result, len(cells))
	err := each(len(cells), atOnce, func(i int) error {
		res, stopped, err := g.replayOn(cells[i], cfg, m)
		if stopped != nil {
			return &DefectError{Policy: cells[i].p.Name, Err: stopped}
		}
		results[i] = res
		return err
	})
	return results, err
}

// replayOn replays the cell c with cfg, counting the devices on m.
func (g *gate) replayOn(c cell, cfg sim.Config, m Meter) (res sim.Result, stopped *sim.DeviceError, err error) {
	p := c.p
	s, cfg, err := g.prepare(c, cfg)
	if err != nil {
		return res, nil, err
	}
	var key string
	if p.Spec != nil {
		key = g.memo.key(*p.Spec, s, cfg)
		if done, ok := g.memo.get(key); ok {
			m.Add(int64(s.WithDefaults().Clients) * int64(len(done.Runs)))
			return done, nil, nil
		}
	}
	res, err = sim.Replay(progress(g.ctx, m), p.Factory, s, cfg)
	res.Config = cfg.WithDefaults()
	if res.Stop != nil {
		// A replay that stops by a rule made at most Stop.MaxRuns: a
		// bound on the chance of collapse asks for more than the default.
		res.Config.Runs = res.Stop.MaxRuns
	}
	if stopped, err = g.outcome(p, err); stopped != nil || err != nil {
		return res, stopped, err
	}
	g.memo.put(key, g.memo.runsKey(p.Spec, s, cfg), res)
	return res, nil, nil
}

// prepare returns the scenario and the configuration of the cell c's
// replays with cfg.
func (g *gate) prepare(c cell, cfg sim.Config) (sim.Scenario, sim.Config, error) {
	s, err := g.cellScenario(c)
	if err != nil {
		return s, cfg, err
	}
	if c.p.IDs == nil {
		s.IDs = nil
	}
	switch {
	case c.p.Source == kit.SourceExec:
		// As in the checks, the program's own silence timeout decides
		// whether it answers in time.
		cfg.CallTimeout = 0
	case cfg.CallTimeout == 0:
		cfg.CallTimeout = properties.DefaultCallTimeout
	}
	return s, cfg, nil
}

// outcome sorts the error of a replay of p: a defect of the policy that
// stopped it is returned as stopped, anything else as the gate's error.
func (g *gate) outcome(p Policy, err error) (stopped *sim.DeviceError, _ error) {
	if perr := p.err(); perr != nil {
		return nil, &InputError{perr}
	}
	var de *sim.DeviceError
	switch {
	case g.nearTestDeadline() && errors.As(err, &de) && de.Cause == sim.StopHung:
		// Go test's deadline, not the user, stopped the replay, on a call
		// that never returned: the policy's defect, named with its device.
		return de, nil
	case g.ctx.Err() != nil:
		return nil, g.stopped("during the replay", err)
	case errors.As(err, &de) && de.PolicyDefect():
		return de, nil
	case errors.As(err, &de):
		return nil, &InputError{fmt.Errorf("the policy's source failed: %w", err)}
	case err != nil:
		return nil, &InputError{err}
	}
	return nil, nil
}

// overOn reports, for each run of the cell c from from up to to−1 with
// cfg, whether its peak ratio is over limit (see sim.Over), after the
// runs of earlier replays of the same spec that the gate still holds.
func (g *gate) overOn(c cell, cfg sim.Config, limit float64, from, to int) (over []bool, stopped *sim.DeviceError, err error) {
	s, cfg, err := g.prepare(c, cfg)
	if err != nil {
		return nil, nil, err
	}
	if known := g.memo.runs(g.memo.runsKey(c.p.Spec, s, cfg)); from < len(known) {
		for _, r := range known[from:min(to, len(known))] {
			over = append(over, r.PeakRatio > limit)
			from++
		}
	}
	if from == to {
		return over, nil, nil
	}
	more, err := sim.Over(progress(g.ctx, g.searchMeter()), c.p.Factory, s, cfg, limit, from, to)
	if stopped, err = g.outcome(c.p, err); stopped != nil || err != nil {
		return nil, stopped, err
	}
	return append(over, more...), nil, nil
}
