package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// A figure is one row of the replay's summary table.
type figure struct {
	key   sim.Figure
	label string // what a reader calls it
	unit  string // "s" for seconds, "" for counts and ratios
	iv    sim.Estimate
	none  string // why the figure has no value, shown in its place: "none served"
}

// median formats the figure's median with its unit, or why it has none.
func (f figure) median() string {
	if f.none != "" {
		return "– (" + f.none + ")"
	}
	return withUnit(num(f.iv.Median), f.unit)
}

// value formats the figure as one phrase, "39 [37, 42] s", or why it has
// none.
func (f figure) value() string {
	if f.none != "" {
		return f.median()
	}
	return interval(f.iv, f.unit)
}

// bounds formats the figure's interval, "[37, 42]", with its unit when
// unit is set; "–" when the figure has no value.
func (f figure) bounds(unit bool) string {
	if f.none != "" {
		return "–"
	}
	b := "[" + num(f.iv.Low) + ", " + num(f.iv.High) + "]"
	if unit {
		return withUnit(b, f.unit)
	}
	return b
}

// tableFigures are the figures the summary tables show, in order. Those
// that only some scenarios have (scenarioFigures) are shown where the
// summary holds them.
var tableFigures = []sim.Figure{
	sim.AllServed, sim.BusiestWindowArrivals, sim.PeakRetryArrivals, sim.PeakRatio,
	sim.PeakRetryArrivals1s, sim.PeakRatio1s, sim.PeakFirings, sim.TimerLoadRatio,
	sim.Attempts, sim.Served, sim.GaveUp, sim.FiringsMissed, sim.P50Served, sim.P99Served,
}

// modelFigures are the figures of the server models' replays, in the order
// the tables show them: recovery first, what it judges by.
var modelFigures = []sim.Figure{
	sim.RecoveryTime, sim.Amplification, sim.AmplificationFromTrigger, sim.Goodput, sim.JobsAtEnd, sim.Timeouts,
	sim.Served, sim.AllServed, sim.GaveUp, sim.Pending, sim.SessionsAccepted, sim.SessionsDropped, sim.WarmUpTime,
	sim.Attempts, sim.Reads, sim.AttemptsPerDevice, sim.PeakRetryArrivals, sim.PeakRatio, sim.BusiestWindowArrivals,
}

// scenarioFigures are the figures of the periodic kinds and of windows
// wider than a second, which a replay's summary holds only there.
var scenarioFigures = []sim.Figure{sim.PeakRetryArrivals1s, sim.PeakRatio1s, sim.PeakFirings, sim.TimerLoadRatio, sim.FiringsMissed}

// servingTime reports whether f is a time of serving, which has no value
// where no device was served.
func servingTime(f sim.Figure) bool {
	return f == sim.AllServed || f == sim.P50Served || f == sim.P99Served
}

// summaryFigures lists the replay's summary figures in the order the
// tables show them. When not every device of an outage was served, the
// time of the last one served is called so; when no run served a device,
// the times of serving have no value.
func summaryFigures(p *Replay) []figure {
	out := make([]figure, 0, len(tableFigures))
	s := p.Scenario.WithDefaults()
	if s.Kind.ServerModel() {
		res := p.result()
		for _, f := range modelFigures {
			iv, ok := p.Summary[f]
			if !ok {
				continue
			}
			fig := figure{key: f, label: s.Kind.Label(f), unit: f.Unit(), iv: iv}
			if f == sim.Amplification {
				if c := res.Collapses(); c != nil && c.Runs > 0 {
					// Each end of its interval is a one-sided bound, at
					// the same level as the medians' intervals.
					out = append(out, figure{label: "runs that collapsed (share; each bound one-sided)", iv: sim.Estimate{Median: c.Share, Low: c.Low, High: c.High}})
				}
			}
			switch {
			case f == sim.RecoveryTime && res.NeverRecovered():
				fig.none = "never, in the median run"
			case f == sim.WarmUpTime && iv.Median >= s.Horizon.Seconds():
				fig.none = "never, in the median run"
			case f == sim.AllServed && p.Summary[sim.Served].Median < float64(s.Clients):
				fig.none = "not all, in the median run"
			}
			out = append(out, fig)
		}
		return out
	}
	res := p.result()
	noneServed := res.ServedNone()
	for _, f := range tableFigures {
		if _, ok := p.Summary[f]; !ok && slices.Contains(scenarioFigures, f) {
			continue
		}
		fig := figure{key: f, label: s.Kind.Label(f), unit: f.Unit(), iv: p.Summary[f]}
		if f == sim.AllServed && res.LeftUnserved() {
			// Not every device was served: the time is the last one's.
			fig.label = "last served, from t=0"
		}
		if noneServed && servingTime(f) {
			fig.none = "none served"
		}
		out = append(out, fig)
	}
	return out
}

// figureLabel returns what a reader calls the figure, and its unit.
func figureLabel(f sim.Figure) (label, unit string) {
	return f.Label(), f.Unit()
}

// num formats x for a table (see [prose.Number]).
func num(x float64) string { return prose.Number(x) }

// withUnit appends the unit to a formatted number.
func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// interval formats a median and its interval as seed tables do:
// "39 [37, 42]".
func interval(iv sim.Estimate, unit string) string {
	return withUnit(fmt.Sprintf("%s [%s, %s]", num(iv.Median), num(iv.Low), num(iv.High)), unit)
}

// seconds formats a duration given in seconds, such as "2s" or "0.01s".
func seconds(s float64) string { return prose.Seconds(s) }

// checkFigures formats a check's figure with its unit and its threshold
// with the comparison it must meet: "CV 0.581" and "≥ 0.05", "100% of the
// fleet" and "≤ 1%", "0 identical pairs" and "< 2". A check without a figure shows "–" for
// both.
func checkFigures(c properties.Result) (figure, threshold string) {
	if c.Unit == "" && c.Want == "" {
		if c.Figure == 0 && c.Threshold == 0 {
			return "–", "–"
		}
		return num(c.Figure), num(c.Threshold)
	}
	format := num
	share := strings.HasPrefix(c.Unit, "of ")
	if share {
		format = prose.Percent
	}
	fig, th := format(c.Figure), format(c.Threshold)
	// Rounded to three digits, a figure can seem to meet a threshold it
	// misses, or the other way round ("1% < 1%"): more digits until the
	// printed comparison reads as the real one.
	for digits := 4; digits <= 17 && meets(printed(fig), c.Want, printed(th)) != meets(c.Figure, c.Want, c.Threshold); digits++ {
		scale := 1.0
		if share {
			scale = 100
		}
		fig, th = strconv.FormatFloat(scale*c.Figure, 'g', digits, 64), strconv.FormatFloat(scale*c.Threshold, 'g', digits, 64)
		if share {
			fig, th = fig+"%", th+"%"
		}
	}
	figure = withUnit(fig, c.Unit)
	if c.Unit == "CV" || c.Unit == "p" {
		// A symbol reads before its number: "CV 0.581", "p 0.0181".
		figure = c.Unit + " " + fig
	}
	return figure, strings.TrimSpace(c.Want + " " + th)
}

// meets reports whether x compares to limit as want says ("≥", "≤", "<");
// any other want is met.
func meets(x float64, want string, limit float64) bool {
	switch want {
	case "≥":
		return x >= limit
	case "≤":
		return x <= limit
	case "<":
		return x < limit
	}
	return true
}

// printed reads back a number as num or percent print it; a share reads
// as its percentage, which compares as the share does.
func printed(s string) float64 {
	x, _ := strconv.ParseFloat(strings.TrimSuffix(strings.ReplaceAll(s, ",", ""), "%"), 64)
	return x
}

// perSecond formats an accept rate (see [prose.PerSecond]).
func perSecond(r float64) string { return prose.PerSecond(r) }

// budgetLine says in one sentence what retry budget an Overload's replay
// gives its clients and who holds it (see [sim.Budget.Describe]), or ""
// for a replay without one.
func budgetLine(p *Replay) string {
	s := p.Scenario.WithDefaults()
	if !s.Kind.Recovers() || s.Budget.Kind == sim.NoBudget {
		return ""
	}
	return s.Budget.Describe(s.Clients)
}

// replayLine describes the replay's scenario in one line, and, for a
// sample of the fleet, what it stands for: "…; a sample: 1/100 of 1,000,000
// clients against 1/100 of 125,000/s, its peak ratio within 2% of the
// whole fleet's (…)".
func replayLine(p *Replay) string {
	var tail []string
	if runs := runsMade(p); runs != "" {
		tail = append(tail, runs)
	}
	if !p.Scenario.Kind.ServerModel() {
		tail = append(tail, "threshold "+num(p.Scenario.WithDefaults().Threshold))
	}
	line := scenarioLine(p.Scenario, "", tail...)
	if x := p.Sample; x != nil {
		line += fmt.Sprintf("; a sample: 1/%s of %s against 1/%s of %s, whose peak ratio is not %s%% under the whole fleet's and may be over it when its budget a window is small (the whole fleet serves its last device later)",
			num(float64(x.Of)), plural(x.Clients, "client"), num(float64(x.Of)), perSecond(x.AcceptRate), num(100*x.Error))
	}
	return line
}

// runsMade says how many runs the replay made: "20 runs", or "6 of at
// most 20 runs" for a replay of the default runs that stopped early (see
// sim.Stop); "" when its configuration says none.
func runsMade(p *Replay) string {
	if st := p.Stop; st != nil && st.Runs < st.MaxRuns {
		return fmt.Sprintf("%d of at most %s", st.Runs, plural(st.MaxRuns, "run"))
	}
	if runs := p.Config.Runs; runs > 0 {
		return plural(runs, "run")
	}
	return ""
}

// stopLine says, as a sentence, how many runs a replay of the default
// runs made and why no more, and, when a run collapsed, how to replay it
// alone; "" when there is nothing to say.
func stopLine(p *Replay) string {
	var out []string
	if p.Stop != nil {
		out = append(out, upperFirst(p.Stop.String())+".")
	}
	if c := p.Collapses; c != nil && c.Collapsed > 0 {
		line := fmt.Sprintf("The first run that never recovered is run %d, seed %d", c.First, c.Seed)
		if p.Reproduce != "" {
			line += "; it replays with: " + p.Reproduce
		} else {
			line += "."
		}
		out = append(out, line)
	}
	return strings.Join(out, " ")
}

// duration writes d as a reader writes it: 2s, 20ms, 1h30m.
func duration(d time.Duration) string { return prose.FormatDuration(d) }

// policyLine names a policy with its origin: "full (spec
// full:base=100ms,cap=10s)", "none:base=1s,cap=30s (spec)".
func policyLine(p Policy) string {
	name := p.Name
	switch {
	case name == "" && p.Spec != "":
		name = p.Spec
	case name == "" && p.Command != "":
		name = p.Command
	case name == "":
		name = "(unnamed)"
	}
	var from []string
	if p.Spec != "" && p.Spec != name {
		from = append(from, "spec "+p.Spec)
	}
	if p.Command != "" && p.Command != name {
		from = append(from, "command "+p.Command)
	}
	if len(from) == 0 && p.Source != "" {
		from = append(from, string(p.Source))
	}
	if len(from) == 0 {
		return name
	}
	return name + " (" + strings.Join(from, ", ") + ")"
}

// cut shortens a list of n items to ten, and says how many more there are.
func cut(n int) (shown int, more string) {
	if n <= 10 {
		return n, ""
	}
	return 10, fmt.Sprintf("… and %d more", n-10)
}

// nothingToChange says why a report has no advice.
func nothingToChange(r Report) string {
	switch {
	case len(r.Checks) == 0 && r.Replay == nil:
		return "nothing judged: the report holds no checks and no replay"
	case r.Verdict == verdict.Inconclusive:
		return "nothing found to act on yet: too little evidence was gathered for a verdict, as the reason says"
	case r.Verdict != verdict.Pass && r.Verdict != "":
		return "no advice: the findings above carry none"
	case r.Replay == nil:
		return "nothing: the policy passed every check"
	case len(r.Checks) == 0:
		return "nothing: the policy passed the replay"
	}
	return "nothing: the policy passed every check and the replay"
}
