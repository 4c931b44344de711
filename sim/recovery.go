package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Names of the baselines.
const (
	// BaselineNoRetries is an Overload's baseline: the same fleet, whose
	// requests never retry, and so with no budget of retries.
	BaselineNoRetries = "no retries"
	// BaselineNoBackoff is a Contention's baseline without backoff: a
	// client reads again as soon as its write fails.
	BaselineNoBackoff = "no backoff"
)

// The rule of SlowRecovery: recovery is much longer than the baseline's
// when it takes at least slowFactor times as long, and slowMargin more.
const (
	slowFactor = 2
	slowMargin = 2 * recoveryWindow * time.Second
)

// Recovered returns how many of the runs recovered after the trigger.
func (r Result) Recovered() int {
	n := 0
	for _, run := range r.Runs {
		if run.Recovered {
			n++
		}
	}
	return n
}

// A baselineFleet is a fleet a server model replays beside the policy's,
// for comparison: its name, its scenario and its policies.
type baselineFleet struct {
	name string
	s    Scenario
	f    kit.Factory
}

// baselines replays the baselines of s's model with cfg, each once in the
// process for its scenario and configuration (see baselineMemo). A
// baseline replayed reports its runs' devices to the progress ctx asks
// for, as the policy's runs do, and one kept reports them at once: the
// progress of a replay counts every fleet of [Scenario.Fleets].
func baselines(ctx context.Context, s Scenario, cfg Config) ([]Baseline, error) {
	var out []Baseline
	for _, b := range fleetsOf(s) {
		base, err := memo.baseline(ctx, b, cfg)
		if err != nil {
			return nil, fmt.Errorf("sim: the %s baseline: %w", b.name, err)
		}
		out = append(out, base)
	}
	return out, nil
}

// Fleets returns how many fleets a replay of s replays, each with the
// replay's runs: the policy's, and the baselines its model compares it
// with (the overload's fleet without retries, the contention's five
// strategies of the simulator). A replay's progress (see [WithProgress])
// reports the devices of every run of each.
func (s Scenario) Fleets() int { return 1 + len(fleetsOf(s)) }

// fleetsOf returns the baseline fleets of s's model, none for a fleet kind.
func fleetsOf(s Scenario) []baselineFleet {
	if m, ok := s.Kind.model().(engineModel); ok {
		return m.baselines(s)
	}
	return nil
}

// replayBaseline replays the baseline fleet b with cfg.
func replayBaseline(ctx context.Context, b baselineFleet, cfg Config) (Baseline, error) {
	res, err := replayModelRuns(ctx, b.f, b.s, cfg)
	if err != nil {
		return Baseline{}, err
	}
	base := Baseline{Name: b.name, Recovered: res.Recovered(), Summary: res.Summary}
	if b.s.Kind.Recovers() {
		for i, run := range res.Runs {
			if !run.Recovered {
				base.Unrecovered = append(base.Unrecovered, i)
			}
		}
	}
	return base, nil
}

// memo keeps the baselines replayed in the process.
var memo = &baselineMemo{}

// A baselineMemo keeps the baselines replayed, by their fleet and
// configuration, so that a baseline that does not depend on the policy is
// replayed once however many replays of one scenario ask for it: the
// gate's replay, its comparison's cells, its fix search's budgets and the
// tipping point's search share one. A baseline's fleet is a model's
// policies on a scenario, and its runs are drawn from the configuration's
// seed, so the same key always replays to the same baseline. The memo
// forgets everything once it holds maxMemo baselines; a baseline whose
// replay failed is not kept.
type baselineMemo struct {
	mu   sync.Mutex
	kept map[[sha256.Size]byte]*memoEntry
}

// maxMemo is how many baselines the memo keeps before it forgets them all:
// each is its name, its summary and the runs that did not recover, a few
// kilobytes.
const maxMemo = 1024

// A memoEntry is one baseline, replayed or being replayed: ready is closed
// once base and err are set.
type memoEntry struct {
	ready chan struct{}
	base  Baseline
	err   error
}

// baseline returns the baseline of fleet b with cfg, replayed once.
func (m *baselineMemo) baseline(ctx context.Context, b baselineFleet, cfg Config) (Baseline, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%#v\x00%#v", b.name, b.s, cfg)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	m.mu.Lock()
	if m.kept == nil || len(m.kept) >= maxMemo {
		m.kept = map[[sha256.Size]byte]*memoEntry{}
	}
	e, ok := m.kept[key]
	if !ok {
		e = &memoEntry{ready: make(chan struct{})}
		m.kept[key] = e
	}
	m.mu.Unlock()
	if ok {
		select {
		case <-e.ready:
		case <-ctx.Done():
			return Baseline{}, context.Cause(ctx)
		}
		if e.err == nil {
			if add := progressOf(ctx); add != nil {
				add(int64(b.s.Clients) * int64(cfg.Runs))
			}
			return cloneBaseline(e.base), nil
		}
		// The replay that was asked first failed (it may have been
		// stopped): this one replays the baseline itself.
		return replayBaseline(ctx, b, cfg)
	}
	e.base, e.err = replayBaseline(ctx, b, cfg)
	if e.err != nil {
		m.mu.Lock()
		if m.kept[key] == e {
			delete(m.kept, key)
		}
		m.mu.Unlock()
	}
	close(e.ready)
	return cloneBaseline(e.base), e.err
}

// cloneBaseline returns a copy of b that shares nothing with it, so that
// a caller may change what it was given.
func cloneBaseline(b Baseline) Baseline {
	b.Unrecovered = slices.Clone(b.Unrecovered)
	b.Summary = maps.Clone(b.Summary)
	return b
}

// noRetryPolicy is the factory of a baseline whose requests never retry:
// its policies are made and never asked for a delay.
var noRetryPolicy = kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory()

// awsBaselineNames are the names of the simulator's strategies as
// baselines.
var awsBaselineNames = [...]string{BaselineNoBackoff, "exponential", "full jitter", "equal jitter", "decorrelated jitter"}

// Baseline returns the baseline named name, or nil.
func (r Result) Baseline(name string) *Baseline {
	for i := range r.Baselines {
		if r.Baselines[i].Name == name {
			return &r.Baselines[i]
		}
	}
	return nil
}

// medianUnrecovered reports whether the median of runs, of which
// recovered recovered, did not recover: at most half of them did.
func medianUnrecovered(recovered, runs int) bool { return runs > 0 && 2*recovered <= runs }

// NeverRecovered reports whether the replay's median run did not recover
// after the trigger: at most half of its runs did, so that the median time
// to recover is a lower bound. The verdict reads every run: one that did
// not recover fails the replay (see [Collapses]).
func (r Result) NeverRecovered() bool { return medianUnrecovered(r.Recovered(), len(r.Runs)) }

// NeverRecovered reports whether the baseline's median run, of runs,
// did not recover.
func (b Baseline) NeverRecovered(runs int) bool { return medianUnrecovered(b.Recovered, runs) }

// tippingPoint searches the shortest dip, in whole seconds, from which
// some run of s's fleet, and some run of its baseline without retries,
// does not recover: the rule of a collapse (see [Collapses]), on the
// replay's runs.
func tippingPoint(ctx context.Context, f kit.Factory, s Scenario, cfg Config) (TippingPoint, error) {
	longest := (s.Horizon - s.DipAt - s.Ramp - recoveryWindow*time.Second).Truncate(time.Second)
	tp := TippingPoint{Longest: longest}
	search := func(s Scenario, f kit.Factory) (time.Duration, error) {
		fails := func(d time.Duration) (bool, error) {
			s := s
			s.DipFor = d
			res, err := replayModelRuns(ctx, f, s, cfg)
			if err != nil {
				return false, err
			}
			return res.Recovered() < len(res.Runs), nil
		}
		hi := longest / time.Second
		if bad, err := fails(hi * time.Second); err != nil || !bad {
			return 0, err
		}
		lo := time.Duration(0) // the longest dip known to recover, or 0
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			bad, err := fails(mid * time.Second)
			if err != nil {
				return 0, err
			}
			if bad {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi * time.Second, nil
	}
	var err error
	if tp.Dip, err = search(s, f); err != nil {
		return TippingPoint{}, err
	}
	b := s
	b.Retries, b.Budget = NoRetries, Budget{}
	if tp.BaselineDip, err = search(b, noRetryPolicy); err != nil {
		return TippingPoint{}, fmt.Errorf("sim: the tipping point of the %s baseline: %w", BaselineNoRetries, err)
	}
	return tp, nil
}

// modelStatus judges a server model's replay. The recovery kinds fail
// when a run that judges the policy never recovered (see [Collapses]), and
// a Reconnect, or a Contention, when the median run leaves devices
// unserved at the horizon; the peak ratio is reported and does not
// decide. Fewer than MinRunsToPass runs, or judged runs, are
// inconclusive; a warning (see [Result.Warnings]) warns, or fails with
// Config.FailWarnings.
func (r Result) modelStatus() verdict.Status {
	s := r.Scenario
	c := r.Collapses()
	switch {
	case len(r.Runs) == 0 || r.Unjudged() != "":
		return verdict.Inconclusive
	case c != nil && c.Collapsed > 0:
		return verdict.Fail
	case s.Kind.model().(engineModel).servesAll() && r.Summary[Served].Median < float64(s.Clients):
		return verdict.Fail
	case len(r.Runs) < MinRunsToPass || c != nil && c.Runs < MinRunsToPass:
		return verdict.Inconclusive
	case len(r.Warnings()) > 0:
		return r.warned()
	}
	return verdict.Pass
}

// Unjudged says why a server model's replay judged nothing of its policy,
// or returns "" when it did: its clients made no retries, none of the
// median run's retries reached the server and no run collapsed, or no
// write of a Contention conflicted, so that the policy's delays were never
// used; or no run collapsed and fewer than MinRunsToPass were judged,
// since in the others the same Overload without retries never recovers
// either: the scenario, not the policy, keeps the service down. The
// replay is then Inconclusive.
func (r Result) Unjudged() string {
	if m, ok := r.Scenario.Kind.model().(engineModel); ok {
		return m.unjudged(r)
	}
	return ""
}

// recoveryUnjudged says why a recovery kind's replay r judged nothing of
// its policy, as Unjudged does, and whether that is decided: a run that
// collapsed judged the policy, and a median run whose retries never
// reached the server did not.
func recoveryUnjudged(r Result) (string, bool) {
	sum := r.Summary
	switch {
	case r.Collapses().Collapsed > 0:
		return "", true
	case len(r.Runs) > 0 && sum[PeakRetryArrivals].Median == 0 && sum[BudgetThrottled].Median == 0:
		return "no retry reached the server in the median run, so that the policy's delays were never judged", true
	}
	return "", false
}

// modelWarnings returns a server model's warnings.
func (r Result) modelWarnings() []Warning {
	var out []Warning
	s, sum := r.Scenario, r.Summary
	if s.Kind.Recovers() {
		rec := sum[RecoveryTime]
		never := (s.Horizon - s.recoveryStart()).Seconds()
		if b := r.Baseline(BaselineNoRetries); b != nil && slowerThan(rec.Median, b.Summary[RecoveryTime].Median) {
			out = append(out, SlowRecovery)
		}
		if !r.NeverRecovered() && rec.High >= never {
			out = append(out, RecoveryUncertain)
		}
	}
	if b := r.Baseline(BaselineNoBackoff); b != nil && sum[Attempts].Median > b.Summary[Attempts].Median {
		out = append(out, MoreWork)
	}
	for _, w := range []Warning{BudgetNeverBinds, BudgetNoHeadroom} {
		if s.BudgetWarning(w) != "" {
			out = append(out, w)
		}
	}
	return out
}

// slowerThan reports whether a recovery of got seconds is much longer than
// the baseline's base (see SlowRecovery).
func slowerThan(got, base float64) bool {
	return got >= slowFactor*base && got >= base+slowMargin.Seconds()
}

// modelDetail says what a server model's replay judged and found.
func (r Result) modelDetail() string {
	s, sum := r.Scenario, r.Summary
	var b strings.Builder
	runs := len(r.Runs)
	ci := fmt.Sprintf("median of %d runs, %g%% CI", runs, 100*r.Config.Level)
	if why := r.Unjudged(); why != "" {
		fmt.Fprintf(&b, "nothing of the policy judged: %s; ", why)
	}
	m, ok := s.Kind.model().(recoveryModel)
	if !ok {
		r.contentionDetail(&b, ci)
		return b.String()
	}
	rec := sum[RecoveryTime]
	ended := m.ended()
	if r.NeverRecovered() {
		fmt.Fprintf(&b, "never recovered within the %s horizon after %s: %d of %d runs recovered", prose.FormatDuration(s.Horizon), ended, r.Recovered(), runs)
	} else {
		fmt.Fprintf(&b, "recovered %s after %s %s (%s); %d of %d runs recovered",
			seconds(rec.Median), ended, interval(rec, "%.0fs"), ci, r.Recovered(), runs)
	}
	if c := r.Collapses(); c.Runs > 0 {
		fmt.Fprintf(&b, "; %s", c)
		if c.Excused > 0 {
			fmt.Fprintf(&b, " (%d more did not recover without retries either, and judge nothing)", c.Excused)
		}
	}
	if base := r.Baseline(BaselineNoRetries); base != nil {
		bm := base.Summary[RecoveryTime].Median
		switch {
		case base.NeverRecovered(runs):
			fmt.Fprintf(&b, "; without retries it never recovers either")
		case !r.NeverRecovered() && slowerThan(rec.Median, bm):
			fmt.Fprintf(&b, "; without retries it recovers after %s, %s sooner", seconds(bm), seconds(rec.Median-bm))
		default:
			fmt.Fprintf(&b, "; without retries it recovers after %s", seconds(bm))
		}
	}
	if tp := r.TippingPoint; tp != nil {
		fmt.Fprintf(&b, "; tipping point: %s", tp.text())
	}
	amp := sum[Amplification]
	fmt.Fprintf(&b, "; retry amplification %.2f %s", amp.Median, interval(amp, "%.2f"))
	m.amplification(r, &b)
	fmt.Fprintf(&b, "; goodput %.0f%% of what was offered from the trigger's end", 100*sum[Goodput].Median)
	m.stateAtEnd(r, &b)
	p := sum[PeakRatio]
	fmt.Fprintf(&b, "; peak ratio %.2f [%.2f, %.2f], reported, not judged", p.Median, p.Low, p.High)
	return b.String()
}

// contentionDetail writes what a Contention's replay found, with ci the
// interval's words: the work, the time the last client succeeded and the
// baselines'.
func (r Result) contentionDetail(b *strings.Builder, ci string) {
	s, sum := r.Scenario, r.Summary
	fmt.Fprintf(b, "%s writes %s and the last client succeeded after %s (%s); %s of %s clients succeeded",
		count(sum[Attempts].Median), interval(sum[Attempts], "%.0f"), seconds(sum[AllServed].Median), ci,
		count(sum[Served].Median), count(float64(s.Clients)))
	if n := sum[Pending].Median; n > 0 {
		fmt.Fprintf(b, ", %s unfinished at the %s horizon", count(n), prose.FormatDuration(s.Horizon))
	}
	named := false
	for _, base := range r.Baselines {
		name := base.Name
		if !named && base.Name != BaselineNoBackoff {
			named = true
			// The simulator's own strategies, at its base and cap, not
			// the policy's.
			name = fmt.Sprintf("the simulator's strategies at a base of %s and a cap of %s: %s", prose.FormatDuration(defaultContentionBase), prose.FormatDuration(defaultContentionCap), name)
		}
		fmt.Fprintf(b, "; %s: %s writes, %s", name, count(base.Summary[Attempts].Median), seconds(base.Summary[AllServed].Median))
	}
}

// text says where the tipping point is.
func (tp TippingPoint) text() string {
	say := func(d time.Duration) string {
		if d == 0 {
			return "none up to " + prose.FormatDuration(tp.Longest)
		}
		return prose.FormatDuration(d)
	}
	if tp.Dip != 0 && tp.BaselineDip != 0 && tp.Dip >= tp.BaselineDip {
		// A dip that leaves too little of the horizon to recover in fails
		// both: the retries tip nothing over.
		return fmt.Sprintf("none: the fleet recovers from every dip the same fleet without retries recovers from, and both fail from a dip of %s (a longer --horizon searches further)", prose.FormatDuration(tp.BaselineDip))
	}
	return fmt.Sprintf("the shortest dip from which a run of the fleet does not recover is %s; without retries, %s", say(tp.Dip), say(tp.BaselineDip))
}

// interval writes an estimate's interval in brackets, each end in format.
func interval(e Estimate, format string) string {
	return fmt.Sprintf("["+format+", "+format+"]", e.Low, e.High)
}

// seconds writes x seconds as a reader would.
func seconds(x float64) string {
	return prose.FormatDuration(time.Duration(x * float64(time.Second)).Round(100 * time.Millisecond))
}

// Findings says what keeps the service of a server model's replay r down,
// or slows its recovery, as the advice of its report begins: sentences,
// or none. failed says whether the replay failed.
func (r Result) Findings(failed bool) []string {
	r.Scenario = r.Scenario.WithDefaults()
	return r.Scenario.Kind.model().findings(r, failed)
}

// budgetSlows says, of a replay r of a recovery model that did not fail,
// that its budget slows the recovery down when the budget rejected
// attempts and the fleet recovers later than without retries, and how to
// loosen it; or "".
func budgetSlows(r Result, failed bool) string {
	s := r.Scenario
	noRetries := r.Baseline(BaselineNoRetries)
	if failed || !slices.Contains(r.Warnings(), SlowRecovery) || noRetries == nil || r.Summary[BudgetThrottled].Median <= 0 {
		return ""
	}
	rec, base := r.Summary[RecoveryTime].Median, noRetries.Summary[RecoveryTime].Median
	shorter := func(d time.Duration) string { return prose.FormatDuration(max(d/4, time.Second).Round(time.Second)) }
	how := fmt.Sprintf("a shorter delay before it half-opens (such as breaker:delay=%s)", shorter(s.Budget.Delay))
	switch {
	case s.Budget.Kind == Adaptive && s.Budget.Window > time.Second:
		how = fmt.Sprintf("a shorter window (such as adaptive:window=%s) or a larger k", shorter(s.Budget.Window))
	case s.Budget.Kind == Adaptive:
		how = fmt.Sprintf("a larger k than %g", s.Budget.K)
	case s.Budget.Delay <= time.Second:
		how = "fewer failures to open it, of more outcomes (breaker:failures=5,of=10)"
	}
	return fmt.Sprintf("The budget slows the recovery down: it rejected %s attempts at the client (median over the runs), requests the recovered server could have answered, and the fleet recovers %s after the dip, %s later than without retries (%s); give it %s.",
		prose.Number(r.Summary[BudgetThrottled].Median), prose.Seconds(rec), prose.Seconds(rec-base), prose.Seconds(base), how)
}

// unserved says how many of the devices of a replay r were not served by
// its horizon, in the model's words: "12 of 2,000 devices were not
// connected by the 5m horizon".
func unserved(r Result, noun, predicate string) string {
	n := float64(r.Scenario.Clients)
	return fmt.Sprintf("%s of %s %s %s by the %s horizon", prose.Number(n-r.Summary[Served].Median), prose.Number(n), noun, predicate, prose.FormatDuration(r.Scenario.Horizon))
}

// A ServerChange is a change of a recovery model's scenario that may end
// its storm without touching the policy, which the gate replays when the
// policy fails it.
type ServerChange struct {
	// Change says what it changes, in words.
	Change string
	// Flags are the command-line flags that make it.
	Flags string
	// Side says whose change it is: SideBudget, SideReset or SideServer.
	Side string
	// Apply makes the change.
	Apply func(*Scenario)
}

// The sides of a server model's change, in the order the gate ranks them:
// from the least changed to the most.
const (
	SideBudget = "fleet budget"
	SideReset  = "reset rule"
	SideServer = "server"
)

// SideRank returns the rank of a change's side: budgets first, the
// server's last.
func SideRank(side string) int {
	switch side {
	case SideBudget:
		return 0
	case SideReset:
		return 1
	}
	return 2
}

// fleetBudgets are the budgets replayed at the fleet's scope on a failing
// recovery model: the retry budgets and the circuit breaker, with their
// libraries' defaults. The adaptive throttle, which rejects first
// attempts as well as retries, is left to the user.
var fleetBudgets = []BudgetKind{Finagle, Envoy, GRPC, AWS, AWS2026, Breaker}

// ServerChanges returns the changes of s that may end its storm without
// touching the policy, in a recovery model (nil in the other kinds): a
// budget the whole fleet shares, one of each kind, the scenario's own
// first, unless the fleet shares one already; then the model's own
// changes, of the server or of the devices' reaction to it. Changes
// already made are left out.
func (s Scenario) ServerChanges() []ServerChange {
	s = s.WithDefaults()
	m, ok := s.Kind.model().(recoveryModel)
	if !ok {
		return nil
	}
	var out []ServerChange
	if s.Budget.Kind == NoBudget || s.Budget.Scope == ScopeDevice {
		kinds := fleetBudgets
		if k := s.Budget.Kind; k != NoBudget {
			// The fleet's own budget first, shared rather than held by
			// each device; then the others.
			kinds = append([]BudgetKind{k}, slices.DeleteFunc(slices.Clone(kinds), func(o BudgetKind) bool { return o == k })...)
		}
		for _, k := range kinds {
			name := k.Name()
			if name == "" {
				name = string(k)
			}
			out = append(out, ServerChange{
				fmt.Sprintf("put %s, with its defaults, where the whole fleet shares it (a proxy or gateway in front of the server, or one client for every caller), so that it bounds the retries the fleet makes as a whole", name),
				fmt.Sprintf("--budget %s --budget-scope fleet", k),
				SideBudget,
				func(s *Scenario) { s.Budget = Budget{Kind: k, Scope: ScopeFleet} }})
		}
	}
	return append(out, m.changes(s)...)
}

// ServerChangesTried names the kinds of change ServerChanges tries on a
// recovery model's scenario s, as a sentence lists them.
func (s Scenario) ServerChangesTried() string {
	s = s.WithDefaults()
	if m, ok := s.Kind.model().(recoveryModel); ok {
		return strings.Join(append([]string{"the budgets of the fleet"}, m.tried(s)...), ", ")
	}
	return ""
}

// Found says what a server model's replay r found, in the terms of its
// verdict (recovery, and the devices served), as its report's reason
// does; "" in the fleet kinds, whose reason is their peak ratio.
func (r Result) Found() string {
	r.Scenario = r.Scenario.WithDefaults()
	if m, ok := r.Scenario.Kind.model().(engineModel); ok {
		return m.found(r)
	}
	return ""
}

// recoveryFound says what a recovery model's replay r found: runs that
// collapsed, a service that never recovered, else short when it is not
// "" (what keeps the verdict from a recovery), else when the service
// recovered, with what qualifies it.
func recoveryFound(r Result, short string) string {
	s := r.Scenario
	runs := len(r.Runs)
	recovered := r.Recovered()
	c := r.Collapses()
	if c.Collapsed > 0 {
		return fmt.Sprintf("%d of %d runs never recovered from the trigger within the replay's %s horizon: %s", c.Collapsed, c.Runs, prose.FormatDuration(s.Horizon), c.Chance())
	}
	if r.NeverRecovered() {
		return fmt.Sprintf("the service never recovered from the trigger within the replay's %s horizon (%d of %d runs recovered)", prose.FormatDuration(s.Horizon), recovered, runs)
	}
	if short != "" {
		return short
	}
	head := fmt.Sprintf("the service recovered %s after the trigger (%d of %d runs; %s)", prose.Seconds(r.Summary[RecoveryTime].Median), recovered, runs, c)
	w := r.Warnings()
	switch noRetries := r.Baseline(BaselineNoRetries); {
	case slices.Contains(w, SlowRecovery) && noRetries != nil:
		head += fmt.Sprintf(", but without retries it recovers after %s", prose.Seconds(noRetries.Summary[RecoveryTime].Median))
	case slices.Contains(w, RecoveryUncertain):
		head += fmt.Sprintf(", but %s did not recover", prose.Plural(runs-recovered, "run"))
	}
	return head
}

// recoveryTerms defines the terms of a recovery model's replay r, whose
// trigger is what knocks the service over, in words.
func recoveryTerms(r Result, trigger string) [][2]string {
	s := r.Scenario
	return [][2]string{
		{"trigger", "What knocks the service over: " + trigger + "."},
		{"recovery", fmt.Sprintf("From the trigger's end, rounded up to a whole second (%s), time is cut into 5s windows; the service has recovered from the first window from which on every window's failed attempts (timeouts, rejections and drops) are at most 1%% of the outcomes learned in it: the failures over the failures and successes the clients learned in the window, the error rate of the attempts whose fate became known then, never above 100%% (a timeout or a drop is learned seconds after its attempt was sent, so the attempts sent in a window are no denominator). The replay fails when its median run has not recovered by the %s horizon.", prose.FormatDuration(s.RecoveryFrom()), prose.FormatDuration(s.Horizon))},
		{"retry amplification", "The attempts sent over the first attempts: 1 when nothing is retried."},
		{"goodput", "Of what was offered from the trigger's end on (the requests offered from the dip's end in an overload, the whole fleet in a reconnect, whose devices all wait for the broker's return), the share that succeeded by the horizon: at most 100%. A request offered before the dip's end counts in neither part, though it may be answered after."},
		{"peak ratio", fmt.Sprintf("The most retry arrivals in one second of a run over the server's capacity of %s. It is reported beside recovery and does not decide: a bounded queue can peak high and recover at once.", prose.PerSecond(s.AcceptRate))},
	}
}

// A SeriesChart is what the time-series chart of a recovery model's run
// draws, in the model's words: its traffic, its capacity, what its lower
// panel counts, and the trigger it shades.
type SeriesChart struct {
	// First, Retries, Successes and Failures name the traffic's series:
	// the first attempts and the retries sent, and the outcomes the
	// clients learned.
	First, Retries, Successes, Failures string
	// Capacity names the capacity's line.
	Capacity string
	// Jobs names what the lower panel counts, and JobsAxis its axis.
	Jobs, JobsAxis string
	// From and To bound the trigger, and RampTo the capacity's ramp back
	// after it, in seconds from the run's start.
	From, To, RampTo float64
	// Trigger labels the trigger's shading, and Ramp the ramp's, "" when
	// there is none.
	Trigger, Ramp string
	// End is what the time to recover counts from: "the dip".
	End string
	// Budgeted says whether a budget's level has a panel of its own.
	Budgeted bool
}

// SeriesChart returns what the time-series chart of a run of s draws, or
// the zero SeriesChart in a kind that is no recovery model.
func (s Scenario) SeriesChart() SeriesChart {
	s = s.WithDefaults()
	if m, ok := s.Kind.model().(recoveryModel); ok {
		return m.seriesChart(s)
	}
	return SeriesChart{}
}
