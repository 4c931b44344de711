package gate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// The cost of the search for a fix. Each family of changes (one strategy,
// one way of scaling the backoff) doubles a factor until a probe of
// probeRuns runs passes (at most maxDoublings times), narrows it down by
// bisection (bisections times), then confirms the smallest passing change
// with the gate's own replications and holdsRuns in all (twice the gate's,
// at least holdsMinRuns), stepping up by a quarter, to a change of its own
// each time, at most confirmations times. With the four families a failing
// policy has at most, the search makes at most 4·(maxDoublings+bisections)
// probes of probeRuns runs and 4·confirmations replays of the gate's runs,
// each with holdsRuns − runs more. A probe replays only the runs that
// decide its median, and those it shares with earlier replays not at all
// (see probe); the runs that only count those over the threshold stop
// once they are (see holds). So a change far from passing costs the first
// seconds of a few runs, and the search, a family stopping at its first
// change that passes, costs a few times the gate's own replay at most.
const (
	probeRuns     = 5
	maxDoublings  = 12 // a factor of 4,096
	bisections    = 4
	confirmations = 3
	maxFixes      = 3
)

// A family is one way of changing a policy, by a factor k ≥ 1: k = 1 is
// the policy the family starts from.
type family struct {
	name   string
	policy func(k float64) Policy
	change func(k float64) string
	spec   func(k float64) *kit.Spec // nil when the family scales the policy's own delays
	// reach is the cap the changed policy's delays reach, 0 when it has
	// none: a change whose reach is over the declared cap needs a larger
	// one.
	reach  func(k float64) time.Duration
	checks bool // the changed policy must pass the property checks
}

// lockstep reports whether the family's change at k delays every device
// alike, whatever its seed: decorrelated jitter draws min(cap, u) for a u
// between the base and the previous delay times its multiplier, which is
// the cap itself every time once the base has reached the cap, and the
// base every time under a multiplier of 1 (0 is the default, 3). Such a fleet retries in
// lockstep, which is what a fix is to end, and a family that raises the
// base stays there at every larger factor, so its search ends.
func (f family) lockstep(k float64) bool {
	if f.spec == nil {
		return false
	}
	s := withDefaults(*f.spec(k))
	return s.Strategy == kit.Decorrelated && (s.Base >= s.Cap || s.Multiplier != 0 && s.Multiplier <= 1)
}

// fixes searches, for a gate that failed, the smallest changes of each
// family that pass on the same scenario, fleet and declared cap, and
// returns the best: those within the declared cap first, then the one that
// serves the fleet soonest first. rep holds the gate's findings.
// On a server model it returns the server's changes that pass, and those
// the scenario refuses, skipped (see serverFixes).
//
// A replay that failed against a server whose fixed Retry-After decides
// every retry gets no search: the devices wait the hint and never ask their
// policy, so no change of the policy replays any differently (the advice
// is about the hint, see reports.Advise). Nor do timers that alone exceed
// the server from the scenario's offsets (see timersExceed).
func (g *gate) fixes(rep reports.Report) ([]reports.Fix, []reports.SkippedFix, error) {
	if judge(rep) != verdict.Fail {
		return nil, nil, nil
	}
	if p := rep.Replay; p != nil && p.Status == verdict.Fail && p.Scenario.Server == sim.RetryAfter {
		return nil, nil, nil
	}
	if p := rep.Replay; p != nil && timersExceed(p) {
		return nil, nil, nil
	}
	if p := rep.Replay; p != nil && p.Scenario.Kind.ServerModel() {
		// A server model: the changes that end its storm are the server's,
		// or the devices' reaction to it (see sim.Scenario.ServerChanges).
		if p.Status != verdict.Fail {
			return nil, nil, nil
		}
		return g.serverFixes()
	}
	families := g.families(rep)
	// The families are searched side by side when their replays leave
	// cores idle; each search is a sequence of replays of one policy.
	cells := make([]cell, len(families))
	for i, f := range families {
		p := f.policy(1)
		cells[i] = cell{p: p, clients: g.fleet(p)}
	}
	atOnce, cfg := g.plan(cells, 0)
	h := *g
	h.cfg.Replay.Workers = cfg.Workers
	h.searched = g.meter("fix search: devices", 0)
	defer h.searched.Finish()
	found := make([]candidate, len(families))
	ok := make([]bool, len(families))
	err := each(len(families), atOnce, func(i int) error {
		var err error
		found[i], ok[i], err = h.search(families[i])
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var within, beyond []reports.Fix
	seen := map[string]bool{}
	for i, c := range found {
		// Two families may arrive at one change: raising the base or the
		// base and the cap by a factor of 1, when a seed alone fixes it.
		if key := c.fix.Spec + "|" + c.fix.Change; ok[i] && !seen[key] {
			seen[key] = true
			if c.beyondCap {
				beyond = append(beyond, c.fix)
			} else {
				within = append(within, c.fix)
			}
		}
	}
	// A change within the declared cap keeps a promise the user made; one
	// beyond it asks for a new one, so it comes after.
	out := append(best(within), best(beyond)...)
	return out[:min(len(out), maxFixes)], nil, nil
}

// best sorts fixes by when they serve the fleet, soonest first, and drops
// those dominated (see undominated).
func best(fixes []reports.Fix) []reports.Fix {
	slices.SortStableFunc(fixes, func(a, b reports.Fix) int { return cmp.Compare(a.AllServed.Median, b.AllServed.Median) })
	return undominated(fixes)
}

// undominated drops, from fixes sorted by when they serve the fleet, each
// fix that serves it no sooner than one before it with no lower a peak
// ratio: it is worse on both counts, and no trade-off to offer.
// Fixes judged without a replay have no figures to compare, and a fix that
// slows the policy's own delays keeps its code, which no built-in does:
// both are kept.
func undominated(fixes []reports.Fix) []reports.Fix {
	var out []reports.Fix
	lowest := math.Inf(1) // the lowest peak ratio of a spec kept so far
	for _, f := range fixes {
		if f.PeakRatio == (sim.Estimate{}) || f.Spec == "" {
			out = append(out, f)
			continue
		}
		if f.PeakRatio.Median < lowest {
			out = append(out, f)
			lowest = f.PeakRatio.Median
		}
	}
	return out
}

// timersExceed reports whether the replay p is of timers whose own
// offsets, the scenario's, put more firings in one window than the server
// accepts (see sim.TimersOverload): the firings are the same whatever the
// policy, so no policy passes, and the fix belongs to the timers' offsets
// (see reports.Advise). Offsets that are the policy's first delays
// (sim.OffsetPolicy) change with it, and are searched as any failure is.
func timersExceed(p *reports.Replay) bool {
	s := p.Scenario.WithDefaults()
	return s.TimerOffset != sim.OffsetPolicy && sim.TimersOverload(s, p.Summary) != ""
}

// families returns the ways the failing policy may change: for a spec, its
// own backoff with a per-device seed and, without jitter, a jittered
// strategy, raising the base (and the cap with it when the cap would fall
// below it) or raising both; for any other policy, its own delays slowed
// down when its checks passed, and the built-in strategies at its scale
// (see builtinScale): the mean of its first delays and its cap.
func (g *gate) families(rep reports.Report) []family {
	checksFailed := false
	for _, c := range rep.Checks {
		checksFailed = checksFailed || c.Status == verdict.Fail
	}
	var out []family
	if s := g.p.Spec; s != nil {
		base := *s
		base.Seed = kit.SeedDevice
		if base.Strategy != kit.None {
			own := g.specFamilies(base)
			for i := range own {
				// A change of the base or the cap alone, of a policy
				// the checks failed, may fail them the same way.
				own[i].checks = own[i].checks || checksFailed
			}
			out = append(out, own...)
		}
		for _, st := range []kit.Strategy{kit.Decorrelated, kit.Full} {
			if st != base.Strategy {
				c := base
				c.Strategy, c.Multiplier = st, 0
				out = append(out, g.specFamilies(c)[0])
			}
		}
		return out
	}
	if !checksFailed && g.cfg.Steps&Replay != 0 {
		out = append(out, g.scaleFamily())
	}
	sc := g.builtinScale(rep, sim.Outage)
	for _, st := range []kit.Strategy{kit.Decorrelated, kit.Full} {
		out = append(out, g.specFamilies(sc.spec(st))[0])
	}
	return out
}

// specFamilies returns the families of a spec: its base raised (and its
// cap, when it would fall below the base), and its base and cap raised
// together.
func (g *gate) specFamilies(s kit.Spec) []family {
	s = withDefaults(s)
	raise := func(k float64, cap bool) *kit.Spec {
		c := s
		c.Base = nice(time.Duration(float64(s.Base) * k))
		if cap {
			c.Cap = nice(time.Duration(float64(s.Cap) * k))
		}
		c.Cap = max(c.Cap, c.Base)
		return &c
	}
	describe := func(c *kit.Spec) string {
		if c.String() == g.p.Name {
			return "keep " + c.String()
		}
		if g.p.Spec == nil {
			return "replace the policy with the built-in " + c.String()
		}
		was := withDefaults(*g.p.Spec)
		var parts []string
		if c.Strategy != was.Strategy {
			parts = append(parts, fmt.Sprintf("use %s jitter", c.Strategy))
		}
		if c.Seed != was.Seed {
			parts = append(parts, "seed each device from its id")
		}
		switch base, cap := c.Base != was.Base, c.Cap != was.Cap; {
		case base && cap:
			parts = append(parts, fmt.Sprintf("raise the base from %s to %s and the cap from %s to %s",
				prose.FormatDuration(was.Base), prose.FormatDuration(c.Base), prose.FormatDuration(was.Cap), prose.FormatDuration(c.Cap)))
		case base:
			parts = append(parts, fmt.Sprintf("raise the base from %s to %s", prose.FormatDuration(was.Base), prose.FormatDuration(c.Base)))
		case cap:
			parts = append(parts, fmt.Sprintf("raise the cap from %s to %s", prose.FormatDuration(was.Cap), prose.FormatDuration(c.Cap)))
		}
		if len(parts) == 0 {
			return "keep " + c.String()
		}
		return prose.List(parts, "and") + ": " + c.String()
	}
	var out []family
	for _, both := range []bool{false, true} {
		both := both
		name := "base"
		if both {
			name = "base and cap"
		}
		out = append(out, family{
			name:   fmt.Sprintf("%s, %s", s.Strategy, name),
			policy: func(k float64) Policy { return SpecPolicy(*raise(k, both)) },
			change: func(k float64) string { return describe(raise(k, both)) },
			spec:   func(k float64) *kit.Spec { return raise(k, both) },
			reach:  func(k float64) time.Duration { return raise(k, both).Cap },
			checks: g.p.Spec == nil || withDefaults(*g.p.Spec).Seed != kit.SeedDevice || g.p.Spec.Strategy == kit.None || s.Strategy != g.p.Spec.Strategy,
		})
	}
	return out
}

// scaleFamily slows the policy itself down: every delay times k, and so the
// cap its delays reach, the declared cap times k. The property checks'
// verdicts do not depend on scale when the declared cap scales with the
// delays: the bounds are the same delays against the same cap, both k
// times larger, and the other checks compare delays with each other or
// with a share of the cap. So only the replay is tried, and the checks run
// again only for a change that needs a larger cap than the declared one,
// against that cap (see confirm).
func (g *gate) scaleFamily() family {
	p := g.p
	return family{
		name: "scaled",
		policy: func(k float64) Policy {
			q := p
			q.Factory = Scale(p.Factory, roundFactor(k))
			q.Close, q.Err = nil, nil // the gate closes the policy itself
			return q
		},
		change: func(k float64) string {
			return fmt.Sprintf("slow the policy down: multiply every delay by %v", roundFactor(k))
		},
		reach: func(k float64) time.Duration { return scaledCap(g.cfg.Checks.Cap, roundFactor(k)) },
	}
}

// scaledCap returns the cap that bounds the delays of a policy within cap
// once each is multiplied by k, 0 when cap is 0: cap·k rounded up to a
// millisecond below a second, and to a second above. Scale computes each
// delay as the same product in seconds, rounded to a nanosecond, so none
// is over it.
func scaledCap(cap time.Duration, k float64) time.Duration {
	if cap <= 0 {
		return 0
	}
	d := time.Duration(math.Round(cap.Seconds() * k * 1e9))
	unit := time.Second
	if d < time.Second {
		unit = time.Millisecond
	}
	if r := d % unit; r != 0 {
		d += unit - r
	}
	return d
}

// Scale returns the factory whose devices wait k times the delays f's
// devices wait: the same policy, slowed down (k > 1) or sped up. A policy
// that observes its outcomes ([kit.Observer]) still observes them.
func Scale(f kit.Factory, k float64) kit.Factory {
	return func(d kit.Device) kit.Policy {
		p := f(d)
		if p == nil {
			return nil
		}
		if o, ok := p.(kit.Observer); ok {
			return scaledObserver{scaled{p, k}, o}
		}
		return scaled{p, k}
	}
}

// scaledObserver is a scaled policy that tells its outcomes to the policy
// it scales.
type scaledObserver struct {
	scaled
	o kit.Observer
}

func (s scaledObserver) Observe(o kit.Outcome) { s.o.Observe(o) }

type scaled struct {
	p kit.Policy
	k float64
}

func (s scaled) Next() (time.Duration, error) {
	d, err := s.p.Next()
	if err != nil {
		return d, err
	}
	return kit.Seconds(d.Seconds() * s.k)
}

// A candidate is a change that passed, and whether it needs a larger cap
// than the one declared.
type candidate struct {
	fix       reports.Fix
	beyondCap bool
}

// search finds the smallest factor of the family that passes: doubling
// until a short replay passes, bisecting between the last that failed and
// the first that passed, then confirming with the gate's replications.
func (g *gate) search(f family) (candidate, bool, error) {
	if g.cfg.Steps&Replay == 0 {
		// Without a replay, only a change the checks judge is tried, as
		// it is.
		if !f.checks {
			return candidate{}, false, nil
		}
		return g.confirm(f, 1)
	}
	lo, hi := 1.0, 0.0
	if f.checks {
		// The changed policy starts from the family's own k = 1, which
		// may pass as it is: a new seed or strategy alone.
		ok, err := g.probe(f, 1, probeRuns)
		if err != nil {
			return candidate{}, false, err
		}
		if ok {
			if c, ok, err := g.confirm(f, 1); err != nil || ok {
				return c, ok, err
			}
		}
	}
	for k, i := lo*2, 0; i < maxDoublings && !f.lockstep(k); k, i = k*2, i+1 {
		ok, err := g.probe(f, k, probeRuns)
		if err != nil {
			return candidate{}, false, err
		}
		if ok {
			hi = k
			break
		}
		lo = k
	}
	if hi == 0 {
		return candidate{}, false, nil
	}
	for range bisections {
		if hi/lo < 1.1 {
			break
		}
		mid := math.Sqrt(lo * hi)
		ok, err := g.probe(f, mid, probeRuns)
		if err != nil {
			return candidate{}, false, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	tried := ""
	for k, i := hi, 0; i < confirmations && !f.lockstep(k); k = k * 1.25 {
		// A step of a quarter may round to the change just tried (nice
		// rounds a base of 38s and of 47s both to 50s): each
		// confirmation tries a change of its own.
		if change := f.change(k); change == tried {
			if k > hi*math.Pow(2, maxDoublings) {
				break
			}
			continue
		} else {
			tried = change
		}
		i++
		c, ok, err := g.confirm(f, k)
		if err != nil || ok {
			return c, ok, err
		}
	}
	return candidate{}, false, nil
}

// probe reports whether the median peak ratio of runs runs (at most the
// gate's own) of the family's policy at factor k is within the threshold.
// A change whose replay would not fit in the memory limit does not pass:
// it is no fix the user could gate.
//
// The median of an odd number n of runs is within the threshold when at
// least (n+1)/2 of them are, and over it when as many are over: a probe
// replays runs only until one side has that many, and each run only until
// it is over (see sim.Over), after the runs of any replay of the same spec
// the gate has made. So a probe costs as few runs as decide it, and a
// change far from passing the first seconds of them; its answer is the
// one a replay of all n would give.
func (g *gate) probe(f family, k float64, runs int) (bool, error) {
	n := min(runs, g.cfg.Replay.WithDefaults().Runs)
	p := f.policy(k)
	c := cell{p: p, clients: g.fleet(p)}
	s, err := g.cellScenario(c)
	if err != nil {
		return false, err
	}
	if n%2 == 0 || s.WithDefaults().Kind.ServerModel() {
		// The median of an even number of runs is the mean of two.
		res, stopped, err := g.replayWith(p, n)
		if tooBig(err) {
			return false, nil
		}
		if err != nil || stopped != nil {
			return false, err
		}
		return res.Summary[sim.PeakRatio].Median <= res.Scenario.Threshold, nil
	}
	limit := s.WithDefaults().Threshold
	side := (n + 1) / 2
	over, within := 0, 0
	for over < side && within < side {
		from := over + within
		to := from + side - max(over, within)
		more, ok, err := g.countOver(c, limit, from, to)
		if !ok {
			return false, err
		}
		over, within = over+more, within+(to-from-more)
	}
	return within >= side, nil
}

// countOver returns how many of the runs of the cell c from from up to
// to−1 are over limit (see overOn). ok is false when they could not be
// counted: their replay would not fit in the memory limit, so the change
// is no fix the user could gate, or a defect of the policy stopped it, or
// the gate failed (err).
func (g *gate) countOver(c cell, limit float64, from, to int) (over int, ok bool, err error) {
	runs, stopped, err := g.overOn(c, g.cfg.Replay, limit, from, to)
	if tooBig(err) {
		return 0, false, nil
	}
	if err != nil || stopped != nil {
		return 0, false, err
	}
	for _, o := range runs {
		if o {
			over++
		}
	}
	return over, true, nil
}

// clear reports whether a passing replay passes by more than one retry in
// its busiest window: the peak is a count of arrivals, so a fix whose
// interval reaches the threshold's last retry fails on other seeds, one
// retry more (0.62 for 0.6 at 50 a window).
func clear(res sim.Result) bool {
	s := res.Scenario.WithDefaults()
	budget := s.AcceptRate * s.Window.Seconds()
	if !(budget > 0) || 1/budget >= s.Threshold {
		// No budget, or one too small for a retry to be a margin.
		return true
	}
	return res.Summary[sim.PeakRatio].High+1/budget <= s.Threshold
}

// clearOfSample reports whether a passing replay of a sample of the fleet
// (Config.Sample) passes by more than the sample's error, as its report
// will ask.
func (g *gate) clearOfSample(res sim.Result) bool {
	if g.cfg.Sample <= 1 || g.p.IDs != nil {
		return true
	}
	return !reports.Sample{Error: SampleError}.Near(res.Summary[sim.PeakRatio].Median, res.Scenario.WithDefaults().Threshold)
}

// tooBig reports whether err refuses a replay for the memory it would need.
func tooBig(err error) bool {
	var ce *kit.ConfigError
	return errors.As(err, &ce) && ce.Memory
}

// confirm replays the family's policy at factor k with the gate's own
// replications, and runs the property checks on it when the change could
// fail them: a fix passes both. A change whose delays reach beyond the
// declared cap says so, and is checked against the cap it reaches, which
// the user would declare with it.
func (g *gate) confirm(f family, k float64) (candidate, bool, error) {
	p := f.policy(k)
	c := candidate{fix: reports.Fix{Change: f.change(k)}}
	if f.spec != nil {
		c.fix.Spec = f.spec(k).String()
	} else {
		c.fix.Scale = roundFactor(k)
	}
	declared := g.cfg.Checks.Cap
	if reach := f.reach(k); declared > 0 && reach > declared {
		c.beyondCap = true
		c.fix.Change += fmt.Sprintf(", which needs a cap of at least %s; your declared cap is %s",
			prose.FormatDuration(reach), prose.FormatDuration(declared))
	}
	if g.cfg.Steps&Replay != 0 {
		res, stopped, err := g.replayWith(p, 0)
		if tooBig(err) {
			return c, false, nil
		}
		if err != nil || stopped != nil || res.Status() != verdict.Pass || !clear(res) || !g.clearOfSample(res) {
			return c, false, err
		}
		if ok, err := g.holds(p, res); err != nil || !ok {
			return c, false, err
		}
		c.fix.PeakRatio, c.fix.AllServed = res.Summary[sim.PeakRatio], res.Summary[sim.AllServed]
		if st := res.Stop; st != nil && st.Runs < st.MaxRuns {
			c.fix.Runs = st.Runs
		}
	}
	if g.cfg.Steps&Checks == 0 {
		return c, true, nil
	}
	var out properties.Outcome
	var err error
	switch {
	case f.spec != nil && (f.checks || c.beyondCap):
		cfg := g.checksConfig()
		cfg.Claim, cfg.Source, cfg.IDs, cfg.CallTimeout = p.Spec, kit.SourceSpec, nil, 0
		cfg.Cap = max(cfg.Cap, f.reach(k))
		out, err = properties.Run(g.ctx, p.Factory, cfg)
	case f.spec == nil && c.beyondCap && g.p.Source != kit.SourceExec:
		// The policy slowed down, checked as the gate checked it, against
		// the cap it needs. A program outside the process is left to the
		// checks' invariance under scale (see scaleFamily): checking it
		// again would start it again.
		cfg := g.checksConfig()
		cfg.Cap = f.reach(k)
		out, err = properties.Run(g.ctx, p.Factory, cfg)
	default:
		return c, true, nil
	}
	if err != nil || out.Status() == verdict.Fail || out.Status() == verdict.Inconclusive {
		return c, false, err
	}
	c.fix.Checked = true
	return c, true, nil
}

// The evidence that a change passes on the user's other seeds too. A gate
// of R runs fails when the median of its runs' peak ratios is over the
// threshold, which takes at least ⌈R/2⌉ of them over it. So a change is
// offered only when, with p the share of runs over the threshold,
// P(Binomial(R, p) ≥ ⌈R/2⌉) ≤ otherSeedFail, where p is the upper end of
// the one-sided Clopper–Pearson interval at the confidence holdsLevel of
// the share seen over holdsRuns(R) runs. Then a gate again at another seed
// fails with a probability of at most 1% (95% confident), ten seeds at most
// about 10%, and most changes, whose runs are all well under the
// threshold, far less. With 40 runs and none over, p ≤ 7.2%: a gate of 5
// runs then fails at another seed with probability 0.3% at most; a gate of
// 1 or 3 runs, noisier than the rule allows, takes more runs (see
// holdsRuns).
const (
	holdsMinRuns  = 40
	holdsMaxRuns  = 320
	holdsLevel    = 0.95
	otherSeedFail = 0.01
)

// holdsRuns returns how many runs judge whether a change holds on other
// seeds for a gate of r runs: twice the gate's, at least holdsMinRuns, and
// more when even none over the threshold in that many would not bound the
// share p well enough, up to holdsMaxRuns.
func holdsRuns(r int) int {
	n := max(2*r, holdsMinRuns)
	for n < holdsMaxRuns && failsAgain(r, shareBound(0, n)) > otherSeedFail {
		n *= 2
	}
	return min(n, holdsMaxRuns)
}

// shareBound returns the upper end of the one-sided Clopper–Pearson
// interval at holdsLevel of a share seen k times in n.
func shareBound(k, n int) float64 {
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(holdsLevel)
}

// failsAgain returns the probability that a gate of r runs fails when each
// run is over the threshold with probability p: that at least ⌈r/2⌉ are.
func failsAgain(r int, p float64) float64 {
	return 1 - distuv.Binomial{N: float64(r), P: p}.CDF(float64((r+1)/2-1))
}

// holds reports whether the changed policy p passes on other seeds too
// (see otherSeedFail): whether, of holdsRuns of the gate's runs, at most
// mostOver are over the threshold. It counts those of res, the change's
// replay with the gate's own runs, first, and replays the rest only until
// the count is decided, each run over the threshold only until it is (see
// sim.Over): its answer is the count of all holdsRuns. A gate of the
// default runs is judged as one of DefaultRuns: it fails after fewer (see
// sim.Stop) only when the interval of their median lies wholly over the
// threshold, by a margin, which takes each of its first 6 runs over it, or
// 10 of its first 12, far rarer than half of 20 for a share p that passes
// this rule.
func (g *gate) holds(p Policy, res sim.Result) (bool, error) {
	r := g.cfg.Replay.WithDefaults().Runs
	n := holdsRuns(r)
	most := mostOver(r, n)
	limit := res.Scenario.WithDefaults().Threshold
	over, done := 0, min(len(res.Runs), n)
	for _, run := range res.Runs[:done] {
		if run.PeakRatio > limit {
			over++
		}
	}
	// Until over passes most, the runs left decide only when they could
	// take it past: the fewest that might, up to run n − (most − over),
	// are replayed next.
	c := cell{p: p, clients: g.fleet(p)}
	for over <= most && over+n-done > most {
		next := n - (most - over)
		more, ok, err := g.countOver(c, limit, done, next)
		if !ok {
			return false, err
		}
		over, done = over+more, next
	}
	return over <= most, nil
}

// mostOver returns the most runs of n over the threshold that still show a
// gate of r runs passes on other seeds (see otherSeedFail), −1 when none
// do.
func mostOver(r, n int) int {
	m := -1
	for m+1 <= n && failsAgain(r, shareBound(m+1, n)) <= otherSeedFail {
		m++
	}
	return m
}

// fleet returns the number of devices a replay of p takes, as replay's
// clients: a built-in strategy in place of a recording replays as many
// devices as the recording does, so that a change is judged on the user's
// own fleet; any other policy replays the gate's fleet (0).
func (g *gate) fleet(p Policy) int {
	if g.p.IDs == nil || p.IDs != nil {
		return 0
	}
	s, err := g.scenario(0)
	if err != nil {
		return 0
	}
	return s.WithDefaults().Clients
}

// replayWith replays p on the gate's scenario and fleet with runs runs (0
// for the gate's own), counting its devices as the search for a fix's,
// with no progress of its own shown.
func (g *gate) replayWith(p Policy, runs int) (sim.Result, *sim.DeviceError, error) {
	h := *g
	if runs > 0 {
		h.cfg.Replay.Runs = runs
	}
	return h.replayOn(cell{p: p, clients: g.fleet(p)}, h.cfg.Replay, g.searchMeter())
}

// searchMeter returns the meter of the search for a fix's devices, one
// that counts nothing outside the search.
func (g *gate) searchMeter() Meter {
	if g.searched == nil {
		return nopMeter{}
	}
	return g.searched
}

// withDefaults returns s with its base, cap and seed written out.
func withDefaults(s kit.Spec) kit.Spec {
	if s.Base == 0 {
		s.Base = kit.DefaultBase
	}
	if s.Seed == "" {
		s.Seed = kit.SeedDevice
	}
	s.Cap = specCap(s)
	return s
}

// nice rounds d up to a duration a person would write: 1, 1.5, 2, 3, 5
// or 7.5 times a power of ten of its unit, milliseconds below a second,
// seconds below a minute and minutes above.
func nice(d time.Duration) time.Duration {
	if d <= time.Millisecond {
		return time.Millisecond
	}
	unit := time.Millisecond
	switch {
	case d >= time.Minute:
		unit = time.Minute
	case d >= time.Second:
		unit = time.Second
	}
	x := float64(d) / float64(unit)
	exp := math.Pow(10, math.Floor(math.Log10(x)))
	for _, s := range []float64{1, 1.5, 2, 3, 5, 7.5, 10} {
		if s*exp >= x {
			return time.Duration(s * exp * float64(unit))
		}
	}
	return time.Duration(10 * exp * float64(unit))
}

// roundFactor rounds a scaling factor up to what a person would write:
// a tenth below 10, a whole number above.
func roundFactor(k float64) float64 {
	if k >= 10 {
		return math.Ceil(k)
	}
	return math.Ceil(k*10) / 10
}
