package gate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// builtins returns the four built-in strategies with the backoff of spec
// when it is not nil, else base kit.DefaultBase (stormBase in a storm) and
// cap kit.DefaultCap (StormCap in a storm), or capAt when it is positive.
func builtins(spec *kit.Spec, kind sim.Kind, capAt time.Duration) []kit.Spec {
	base, limit := kind.CompareBackoff()
	if capAt > 0 {
		limit = capAt
	}
	if spec != nil {
		if spec.Base > 0 {
			base = spec.Base
		}
		limit = specCap(*spec)
	}
	var out []kit.Spec
	for _, st := range kit.Strategies() {
		out = append(out, kit.Spec{Strategy: st, Base: base, Cap: max(limit, base)})
	}
	return out
}

// compare sets the gate's policy, whose replay is res, beside the four
// built-in strategies on the same scenario and fleet, by the scenario's
// first headline figure. A spec's strategies replay with its base and cap,
// as the columns' headings say; any other policy's at its scale (see
// builtinScale), from the checks' measure of its first delays in rep, as
// the comparison's note says.
func (g *gate) compare(rep reports.Report, res sim.Result) (reports.Comparison, error) {
	if g.cfg.Replay.CollapseBound > 0 {
		// Every cell replays the default runs: a bound on the chance of
		// collapse is asked of the gate's verdict, and would multiply
		// the comparison's work by as much for every cell.
		h := *g
		h.cfg.Replay.CollapseBound = 0
		own, stopped, err := h.replayOn(cell{p: g.p}, h.cfg.Replay, nopMeter{})
		switch {
		case err != nil:
			return reports.Comparison{}, err
		case stopped != nil:
			return reports.Comparison{}, &DefectError{Policy: g.p.Name, Err: stopped}
		}
		return h.compare(rep, own)
	}
	f := res.Scenario.Kind.Headlines()[0]
	c := reports.Comparison{Figure: f, Scenario: res.Scenario, Config: res.Config}
	row := reports.ComparisonRow{Clients: res.Scenario.Clients}
	c.Policies = append(c.Policies, g.p.Name)
	addCell(&row, res, f)
	var specs []kit.Spec
	if g.p.Spec != nil {
		// The columns' headings say the spec's base and cap.
		specs = builtins(g.p.Spec, res.Scenario.Kind, g.cfg.Checks.Cap)
	} else {
		sc := g.builtinScale(rep, res.Scenario.Kind)
		for _, st := range kit.Strategies() {
			specs = append(specs, sc.spec(st))
		}
		c.Note = sc.String()
	}
	c.Note = strings.TrimSpace(c.Note + " " + hintNote(res.Scenario))
	var cells []cell
	for _, spec := range specs {
		if g.p.Spec == nil || spec.String() != g.p.Spec.String() {
			p := SpecPolicy(spec)
			cells = append(cells, cell{p: p, clients: g.fleet(p)})
		}
	}
	// A row per budget: the gate's policy and the others, each on its
	// own fleet with that budget.
	policies := append([]cell{{p: g.p, clients: 0}}, cells...)
	budgets := comparedBudgets(res.Scenario)
	for _, b := range budgets {
		for _, pc := range policies {
			cells = append(cells, cell{p: pc.p, clients: pc.clients, budget: b})
		}
	}
	results, err := g.replayCells("comparison: devices", cells, 0)
	if err != nil {
		return c, err
	}
	others := len(policies) - 1
	for i, cl := range cells[:others] {
		c.Policies = append(c.Policies, cl.p.Name)
		addCell(&row, results[i], f)
	}
	c.Rows = []reports.ComparisonRow{row}
	for i, b := range budgets {
		brow := budgetRow(res.Scenario.Clients, b)
		for k := range policies {
			addCell(&brow, results[others+i*len(policies)+k], f)
		}
		c.Rows = append(c.Rows, brow)
	}
	if len(budgets) > 0 {
		c.Note = strings.TrimSpace(c.Note + " " + budgetNote(budgets))
	}
	return c, nil
}

// comparedBudgets returns the retry budgets a comparison on s adds a row
// for: on an Overload, one of each kind of sim.BudgetKinds, the scenario's
// own where it is of that kind, each held by the fleet, or as the
// scenario's budget scope says when it sets one; none on another kind.
func comparedBudgets(s sim.Scenario) []sim.Budget {
	if !s.WithDefaults().Kind.ComparesBudgets() {
		return nil
	}
	scope := s.Budget.Scope
	if scope == "" {
		scope = sim.ScopeFleet
	}
	var out []sim.Budget
	for _, k := range sim.BudgetKinds() {
		b := sim.Budget{Kind: k}
		if s.Budget.Kind == k {
			b = s.Budget
		}
		b.Scope = scope
		out = append(out, b)
	}
	return out
}

// budgetRow returns the empty row of budget b on a fleet of clients.
func budgetRow(clients int, b sim.Budget) reports.ComparisonRow {
	return reports.ComparisonRow{Clients: clients, Budget: b.String(), BudgetScope: b.Scope}
}

// budgetNote says, as the note of a comparison, what its budgets' rows
// replay.
func budgetNote(budgets []sim.Budget) string {
	who := "each device holding one of its own"
	if budgets[0].Scope == sim.ScopeFleet {
		who = "one budget shared by the whole fleet"
	}
	return fmt.Sprintf("A row named by a retry budget replays the first fleet size with that budget in place of the scenario's (at its defaults, unless the scenario sets one of that kind), %s.", who)
}

// hintNote says, of a scenario whose server answers every rejection with a
// fixed Retry-After, that the devices wait the hint and never their
// policy's delays, so that every policy replays alike; "" otherwise.
func hintNote(s sim.Scenario) string {
	if s.Server != sim.RetryAfter {
		return ""
	}
	return fmt.Sprintf("The server answers every rejection with a fixed Retry-After of %s, which the devices wait instead of their policy's delays: every policy replays alike.",
		prose.FormatDuration(s.WithDefaults().RetryAfter))
}

// A builtinScale is the scale the built-in strategies take beside a policy
// that is not a spec: the mean of its first delays, which each strategy's
// base is chosen to draw (see baseFor), and its cap.
type builtinScale struct {
	// mean is the mean of the policy's first delays, 0 when they were not
	// measured: every strategy then takes base.
	mean time.Duration
	base time.Duration
	cap  time.Duration
	// capFrom says where the cap comes from, for the note.
	capFrom string
}

// builtinScale returns the scale of the gate's policy, which is not a
// spec, on scenarios of kind: the mean of the first delays its checked
// devices drew (rep's early delays), and its declared cap, else the
// largest delay they drew when it is over the default cap, else the
// default cap. Without the checks' measure, the strategies take the
// default base and cap (stormBase and StormCap in a storm).
func (g *gate) builtinScale(rep reports.Report, kind sim.Kind) builtinScale {
	sc := builtinScale{capFrom: "the default, since the policy declares none"}
	sc.base, sc.cap = kind.CompareBackoff()
	if len(rep.EarlyDelays) > 0 && len(rep.EarlyDelays[0].DelaysS) > 0 {
		sc.mean = time.Duration(stat.Mean(rep.EarlyDelays[0].DelaysS, nil) * 1e9)
		var top float64
		for _, a := range rep.EarlyDelays {
			if len(a.DelaysS) > 0 { // a policy that stops early reaches no later attempt
				top = max(top, floats.Max(a.DelaysS))
			}
		}
		if d := time.Duration(top * 1e9); d > sc.cap {
			sc.cap, sc.capFrom = d, "the largest delay the policy drew, since it declares none"
		}
	}
	if c := g.cfg.Checks.Cap; c > 0 {
		sc.cap, sc.capFrom = c, "the policy's declared cap"
	}
	return sc
}

// spec returns the built-in strategy st at the scale.
func (sc builtinScale) spec(st kit.Strategy) kit.Spec {
	base := sc.base
	if sc.mean > 0 || sc.base == 0 {
		base = baseFor(st, sc.mean, sc.cap)
	}
	return kit.Spec{Strategy: st, Base: min(base, sc.cap), Cap: max(sc.cap, base)}
}

// String says, as the note of a comparison, how the built-in strategies
// were scaled.
func (sc builtinScale) String() string {
	if sc.mean <= 0 {
		return fmt.Sprintf("The built-in strategies replay with a base of %s and a cap of %s, %s; the policy's first delays were not measured, since the checks did not run.",
			prose.FormatDuration(sc.base), prose.FormatDuration(sc.cap), sc.capFrom)
	}
	return fmt.Sprintf("The built-in strategies replay at the policy's scale: each base is chosen so that the first delays average %s, as the policy's do, and the cap is %s, %s.",
		kit.FormatApprox(sc.mean), kit.FormatApprox(sc.cap), sc.capFrom)
}

// baseFor returns the base at which strategy st, with its default
// multiplier and cap limit, draws first delays of mean m: the first window
// is min(base, limit), and no jitter waits it all, full jitter half of it on
// average, equal jitter three quarters; decorrelated jitter draws from
// [base, 3·base) cut at the limit, twice the base on average when 3·base is
// within the limit. The base is rounded to three significant digits, at
// least a millisecond and at most the limit, which is what a mean of the
// limit or more gives.
func baseFor(st kit.Strategy, m, limit time.Duration) time.Duration {
	mean, c := m.Seconds(), limit.Seconds()
	var b float64
	switch st {
	case kit.None:
		b = mean
	case kit.Full:
		b = 2 * mean
	case kit.Equal:
		b = 4 * mean / 3
	case kit.Decorrelated:
		b = mean / 2
		if 3*b > c {
			// The mean of min(c, U(b, 3b)) rises from 2c/3 at b = c/3 to c
			// at b = c; find b by bisection.
			drawn := func(b float64) float64 { return ((c*c-b*b)/2 + c*(3*b-c)) / (2 * b) }
			lo, hi := c/3, c
			for range 60 {
				mid := (lo + hi) / 2
				if drawn(mid) < mean {
					lo = mid
				} else {
					hi = mid
				}
			}
			b = hi
		}
	default:
		panic("gate: unknown strategy " + string(st))
	}
	d := min(significant(time.Duration(min(b, c)*1e9), 3), limit)
	return max(d, min(time.Millisecond, limit))
}

// significant rounds d to n significant decimal digits.
func significant(d time.Duration, n int) time.Duration {
	if d <= 0 {
		return 0
	}
	e := math.Floor(math.Log10(float64(d))) - float64(n-1)
	if e <= 0 {
		return d
	}
	unit := math.Pow(10, e)
	r := math.Round(float64(d)/unit) * unit
	if r >= math.MaxInt64 {
		return d
	}
	return time.Duration(r)
}

// addCell appends res's figure f to row, and marks the cell when no run
// of an outage served a device, so that no time of serving is shown for
// it.
func addCell(row *reports.ComparisonRow, res sim.Result, f sim.Figure) {
	row.Cells = append(row.Cells, res.Summary[f])
	if res.Stop != nil {
		row.Runs = append(row.Runs, res.Stop.Runs)
	}
	none := res.ServedNone()
	if none && row.NoneServed == nil {
		row.NoneServed = make([]bool, len(row.Cells)-1, len(row.Cells))
	}
	if row.NoneServed != nil {
		row.NoneServed = append(row.NoneServed, none)
	}
}

// smallestRecording returns the number of devices of the smallest
// recording among policies, 0 when none is one.
func smallestRecording(policies []Policy) int {
	n := 0
	for _, p := range policies {
		if p.IDs != nil && (n == 0 || len(p.IDs) < n) {
			n = len(p.IDs)
		}
	}
	return n
}

// builtinPolicies returns the built-in strategies a comparison of cfg's
// scenario replays when it is given no policy (see builtins).
func builtinPolicies(cfg Config) []Policy {
	var out []Policy
	for _, s := range builtins(nil, cfg.Scenario.WithDefaults().Kind, cfg.Checks.Cap) {
		out = append(out, SpecPolicy(s))
	}
	return out
}

// Compare replays each policy at each fleet size on cfg's scenario, with
// cfg's replications and seed, and returns a comparison per headline
// figure of the scenario's kind: the peak of retry arrivals in a storm;
// the time to recover and the retry amplification in the recovery kinds;
// the writes and the time until the last client succeeds in a
// contention; the peak ratio and the time until all are served otherwise. Without
// policies it compares the four built-in strategies, from base
// kit.DefaultBase to cap kit.DefaultCap (1s to StormCap in a storm), or
// to cfg.Checks.Cap when it is set. A policy whose defect stops a replay
// is a *DefectError; the other errors are Run's.
func Compare(ctx context.Context, policies []Policy, sizes []int, cfg Config) ([]reports.Comparison, error) {
	if err := cfg.oneSeed(); err != nil {
		return nil, err
	}
	if err := enoughRuns(cfg.Replay); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	g := &gate{ctx: ctx, cfg: cfg, memo: &replays{}}
	kind := cfg.Scenario.WithDefaults().Kind
	if len(policies) == 0 {
		policies = builtinPolicies(cfg)
	}
	if len(sizes) == 0 {
		sizes = []int{0}
	}
	// A row compares the policies on one fleet: beside a recording, the
	// default fleet is the recording's devices (the fewest of any two
	// recordings), so that every policy replays as many.
	if recorded := smallestRecording(policies); recorded > 0 && cfg.Scenario.Clients == 0 {
		for i, n := range sizes {
			if n == 0 {
				sizes[i] = recorded
			}
		}
	}
	budgets := comparedBudgets(cfg.Scenario)
	cells, err := g.compareCells(policies, sizes, budgets)
	if err != nil {
		return nil, err
	}
	out := comparisons(cfg, kind.Headlines(), policies, budgets)
	results, err := g.replayCells("replay: devices", cells, 0)
	if err != nil {
		return nil, err
	}
	fillComparisons(out, results, len(sizes), len(policies), budgets)
	for _, p := range policies {
		if p.Close != nil {
			if err := p.Close(); err != nil {
				return nil, &InputError{err}
			}
		}
	}
	return out, nil
}

// compareCells returns the cells Compare replays, each validated: every
// policy at each fleet size, then every policy on the first fleet size
// with each budget compared.
func (g *gate) compareCells(policies []Policy, sizes []int, budgets []sim.Budget) ([]cell, error) {
	var cells []cell // by fleet size, then by policy
	for _, n := range sizes {
		for _, p := range policies {
			s, err := g.scenarioOf(p, n)
			if err != nil {
				return nil, err
			}
			if err := s.Validate(p.Factory, g.cfg.Replay); err != nil {
				return nil, &InputError{err}
			}
			cells = append(cells, cell{p: p, clients: n})
		}
	}
	// A row per budget, on the first fleet size.
	for _, b := range budgets {
		for _, p := range policies {
			c := cell{p: p, clients: sizes[0], budget: b}
			s, err := g.cellScenario(c)
			if err != nil {
				return nil, err
			}
			if err := s.Validate(c.p.Factory, g.cfg.Replay); err != nil {
				return nil, &InputError{err}
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// comparisons returns a comparison per figure, of the policies, with no
// rows yet.
func comparisons(cfg Config, figures []sim.Figure, policies []Policy, budgets []sim.Budget) []reports.Comparison {
	out := make([]reports.Comparison, len(figures))
	for i, f := range figures {
		out[i] = reports.Comparison{Figure: f, Config: cfg.Replay.WithDefaults(), Note: hintNote(cfg.Scenario)}
		if len(budgets) > 0 {
			out[i].Note = strings.TrimSpace(out[i].Note + " " + budgetNote(budgets))
		}
		for _, p := range policies {
			out[i].Policies = append(out[i].Policies, p.Name)
		}
	}
	return out
}

// fillComparisons adds the rows of the results of the cells, sizes fleet
// sizes of policies policies and then a row per budget (see compareCells),
// to each comparison of out.
func fillComparisons(out []reports.Comparison, results []sim.Result, sizes, policies int, budgets []sim.Budget) {
	figures := make([]sim.Figure, len(out))
	for i := range out {
		figures[i] = out[i].Figure
	}
	for j := range sizes {
		rows := make([]reports.ComparisonRow, len(figures))
		for k := range policies {
			res := results[j*policies+k]
			for i, f := range figures {
				rows[i].Clients = res.Scenario.Clients
				addCell(&rows[i], res, f)
				out[i].Scenario = res.Scenario
			}
		}
		for i := range out {
			out[i].Rows = append(out[i].Rows, rows[i])
		}
	}
	for j, b := range budgets {
		for i, f := range figures {
			row := budgetRow(0, b)
			for k := range policies {
				res := results[(sizes+j)*policies+k]
				row.Clients = res.Scenario.Clients
				addCell(&row, res, f)
			}
			out[i].Rows = append(out[i].Rows, row)
		}
	}
}
