package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// A Figure names one figure of a run, as the replay's JSON names it. The
// summary of a replay holds the median and interval of each.
type Figure string

// The figures of a run.
const (
	// AllServed is when the last device was served, in seconds from t=0,
	// the start of the replay (the failure, in the fleet kinds).
	AllServed Figure = "all_served_s"
	// BusiestWindowArrivals is the most arrivals in one window, first
	// attempts included.
	BusiestWindowArrivals Figure = "busiest_window_arrivals"
	// PeakRetryArrivals is the most retry arrivals in one window; in the
	// periodic kinds, re-sends of rejected firings.
	PeakRetryArrivals Figure = "peak_retry_arrivals"
	// PeakRatio is PeakRetryArrivals over the window's accept budget: the
	// figure a replay is judged by.
	PeakRatio Figure = "peak_ratio"
	// Attempts counts every attempt, first ones included.
	Attempts Figure = "attempts"
	// AttemptsPerDevice is Attempts over the fleet's size.
	AttemptsPerDevice Figure = "attempts_per_device"
	// Served counts the devices (or, in the periodic kinds, the firings)
	// served.
	Served Figure = "served"
	// GaveUp counts the devices whose retries stopped first; in the
	// periodic kinds, the devices that missed a firing.
	GaveUp Figure = "gave_up"
	// Pending counts the devices still retrying at the horizon.
	Pending Figure = "pending"
	// P50Served and P99Served are the median and 99th percentile of the
	// time to success, in seconds from t=0, the start of the replay; in the
	// periodic kinds, from the firing the success served.
	P50Served Figure = "p50_served_s"
	P99Served Figure = "p99_served_s"
	// PeakFirings is the most timer firings in one window, in the periodic
	// kinds only: the timers' own load (Run.PeakFirings).
	PeakFirings Figure = "peak_firings"
	// TimerLoadRatio is PeakFirings over the window's accept budget, in
	// the periodic kinds only.
	TimerLoadRatio Figure = "timer_load_ratio"
	// FiringsMissed counts the firings never served, in the periodic kinds
	// only.
	FiringsMissed Figure = "firings_missed"
	// PeakRetryArrivals1s is the most retry arrivals in one whole second,
	// for a window wider than 1s outside a Storm only.
	PeakRetryArrivals1s Figure = "peak_retry_arrivals_1s"
	// PeakRatio1s is PeakRetryArrivals1s over one second's accept budget,
	// where PeakRetryArrivals1s is measured (see [AveragedAway]).
	PeakRatio1s Figure = "peak_ratio_1s"
	// RecoveryTime is, in the recovery kinds, how long after the trigger's
	// end (an Overload's dip's end, a Reconnect broker's return), rounded
	// up to a whole second, the service recovered, in seconds from that
	// instant, not from t=0; a run that did not recover counts as the whole time to the
	// horizon, a lower bound (see [Run.Recovered]).
	RecoveryTime Figure = "recovery_s"
	// Amplification is the attempts over the first attempts, in the
	// recovery kinds.
	Amplification Figure = "amplification"
	// AmplificationFromTrigger is the same of the attempts sent from the
	// trigger's start, in an Overload.
	AmplificationFromTrigger Figure = "amplification_from_trigger"
	// Goodput is, in the recovery kinds, the share of what was offered
	// from the trigger's end on that succeeded by the horizon, between 0
	// and 1: an Overload's requests offered from the dip's end, a
	// Reconnect's devices (see [Run.Goodput]).
	Goodput Figure = "goodput_after_trigger"
	// JobsAtEnd is the jobs in an Overload's system at the horizon.
	JobsAtEnd Figure = "jobs_at_end"
	// Timeouts counts an Overload's attempts that timed out.
	Timeouts Figure = "timeouts"
	// SessionsAccepted and SessionsDropped count a Reconnect broker's
	// accepted and dropped sessions.
	SessionsAccepted Figure = "sessions_accepted"
	SessionsDropped  Figure = "sessions_dropped"
	// WarmUpTime is when a Reconnect broker became warm, in seconds from
	// t=0, the start of the replay (not from its return); a run
	// whose broker never did counts as the horizon, a lower bound.
	WarmUpTime Figure = "warm_s"
	// Reads counts a Contention's reads.
	Reads Figure = "reads"
	// BudgetRefused counts the retries an Overload's budget refused, and
	// BudgetThrottled the attempts it rejected at the client.
	BudgetRefused   Figure = "budget_refused"
	BudgetThrottled Figure = "budget_throttled"
)

// figureInfo is what the package knows of each figure: how to read it
// from a run, what a reader calls it, its unit, and the scenarios that
// have it (all when applies is nil). A figure's place in the list seeds
// its bootstrap: new figures go last.
var figureInfo = []struct {
	f       Figure
	label   string
	unit    string // "s" for seconds; "" for counts and ratios
	value   func(Run, Scenario) float64
	applies func(Scenario) bool
}{
	{AllServed, "all served, from t=0", "s", func(r Run, _ Scenario) float64 { return r.AllServed.Seconds() }, notIn(Overload)},
	{BusiestWindowArrivals, "busiest window (all arrivals)", "", func(r Run, _ Scenario) float64 { return float64(r.BusiestWindowArrivals) }, notIn(Contention)},
	{PeakRetryArrivals, "peak retry arrivals per window", "", func(r Run, _ Scenario) float64 { return float64(r.PeakRetryArrivals) }, notIn(Contention)},
	{PeakRatio, "peak ratio (retries / accept budget)", "", func(r Run, _ Scenario) float64 { return r.PeakRatio }, notIn(Contention)},
	{Attempts, "attempts", "", func(r Run, _ Scenario) float64 { return float64(r.Attempts) }, nil},
	{AttemptsPerDevice, "attempts per device", "", func(r Run, s Scenario) float64 { return float64(r.Attempts) / float64(s.Clients) }, nil},
	{Served, "served", "", func(r Run, _ Scenario) float64 { return float64(r.Served) }, nil},
	{GaveUp, "gave up", "", func(r Run, _ Scenario) float64 { return float64(r.GaveUp) }, nil},
	{Pending, "still retrying at the horizon", "", func(r Run, _ Scenario) float64 { return float64(r.Pending) }, notIn(Overload)},
	{P50Served, "time to success, p50 (from t=0 or the firing)", "s", func(r Run, _ Scenario) float64 { return r.P50.Seconds() }, fleetOnly},
	{P99Served, "time to success, p99 (from t=0 or the firing)", "s", func(r Run, _ Scenario) float64 { return r.P99.Seconds() }, fleetOnly},
	{PeakFirings, "peak timer firings per window", "", func(r Run, _ Scenario) float64 { return float64(r.PeakFirings) }, periodicOnly},
	{TimerLoadRatio, "timer load (firings / accept budget)", "", func(r Run, _ Scenario) float64 { return r.TimerLoadRatio }, periodicOnly},
	{FiringsMissed, "firings missed", "", func(r Run, _ Scenario) float64 { return float64(r.FiringsMissed) }, periodicOnly},
	{PeakRetryArrivals1s, "peak retry arrivals per 1s", "", func(r Run, _ Scenario) float64 { return float64(r.PeakRetryArrivals1s) }, wideWindow},
	{PeakRatio1s, "peak ratio at 1s (retries / budget)", "", func(r Run, _ Scenario) float64 { return r.PeakRatio1s }, wideWindow},
	{RecoveryTime, "recovered, from the trigger's end (the dip's end; the broker's return)", "s", recoveryValue, recovers},
	{Amplification, "retry amplification (attempts / first attempts)", "", func(r Run, _ Scenario) float64 { return r.Amplification }, recovers},
	{AmplificationFromTrigger, "retry amplification from the trigger on", "", func(r Run, _ Scenario) float64 { return r.AmplificationFromTrigger }, is(Overload)},
	{Goodput, "goodput (share of what was offered from the trigger's end that succeeded)", "", func(r Run, _ Scenario) float64 { return r.Goodput }, recovers},
	{JobsAtEnd, "jobs in the system at the horizon", "", func(r Run, _ Scenario) float64 { return float64(r.JobsAtEnd) }, is(Overload)},
	{Timeouts, "timed-out attempts", "", func(r Run, _ Scenario) float64 { return float64(r.Timeouts) }, is(Overload)},
	{SessionsAccepted, "sessions accepted", "", func(r Run, _ Scenario) float64 { return float64(r.Accepted) }, is(Reconnect)},
	{SessionsDropped, "sessions dropped cold", "", func(r Run, _ Scenario) float64 { return float64(r.Dropped) }, is(Reconnect)},
	{WarmUpTime, "broker warm, from t=0", "s", warmValue, is(Reconnect)},
	{Reads, "reads", "", func(r Run, _ Scenario) float64 { return float64(r.Reads) }, is(Contention)},
	{BudgetRefused, "retries the budget refused", "", func(r Run, _ Scenario) float64 { return float64(r.BudgetRefused) }, budgeted},
	{BudgetThrottled, "attempts the budget rejected at the client", "", func(r Run, _ Scenario) float64 { return float64(r.BudgetThrottled) }, budgeted},
}

// budgeted reports whether s limits its retries with a budget.
func budgeted(s Scenario) bool { return s.Budget.Kind != NoBudget }

// recovers reports whether s is judged on recovery.
func recovers(s Scenario) bool { return s.Kind.Recovers() }

// is returns whether a scenario is of kind k.
func is(k Kind) func(Scenario) bool { return func(s Scenario) bool { return s.Kind == k } }

// notIn returns whether a scenario is of none of the kinds ks.
func notIn(ks ...Kind) func(Scenario) bool {
	return func(s Scenario) bool { return !slices.Contains(ks, s.Kind) }
}

// recoveryValue is the time to recover of a run, the whole time from the
// trigger's end to the horizon when it did not.
func recoveryValue(r Run, s Scenario) float64 {
	if !r.Recovered {
		return (s.Horizon - s.recoveryStart()).Seconds()
	}
	return r.RecoveredAfter.Seconds()
}

// warmValue is when a broker became warm, the horizon when it did not.
func warmValue(r Run, s Scenario) float64 {
	if !r.Warm {
		return s.Horizon.Seconds()
	}
	return r.WarmAt.Seconds()
}

// fleetOnly reports whether s is replayed by the fleet engine, not by a
// server model.
func fleetOnly(s Scenario) bool { return !s.Kind.ServerModel() }

// periodicOnly reports whether s, after defaults, fires timers.
func periodicOnly(s Scenario) bool { return s.Kind.Periodic() }

// wideWindow reports whether s, after defaults, is judged in windows wider
// than a second against a server, and so measures its 1s peaks too.
func wideWindow(s Scenario) bool {
	return !s.Kind.model().arrivalsOnly() && s.Window > defaultWindow
}

// lookup returns where figureInfo holds f, or -1.
func (f Figure) lookup() int {
	for i := range figureInfo {
		if figureInfo[i].f == f {
			return i
		}
	}
	return -1
}

// Label returns what a reader calls the figure, such as "all served
// after"; an unknown figure is called by its name.
func (f Figure) Label() string {
	if i := f.lookup(); i >= 0 {
		return figureInfo[i].label
	}
	return string(f)
}

// Unit returns the figure's unit: "s" for seconds, "" for counts and
// ratios.
func (f Figure) Unit() string {
	if i := f.lookup(); i >= 0 {
		return figureInfo[i].unit
	}
	return ""
}

// Of returns the figure's value in run r of scenario s (after defaults).
// It panics on an unknown figure.
func (f Figure) Of(r Run, s Scenario) float64 {
	i := f.lookup()
	if i < 0 {
		panic("sim: unknown figure " + string(f))
	}
	return figureInfo[i].value(r, s)
}

// AveragedAway says, for a replay of s (after defaults) whose summary is
// sum, how its window hides a storm, or returns "": the window is wider
// than a second, the peak ratio in it is within the threshold, and the
// runs' peak of retries in one whole second, over one second's budget, is
// over the threshold in the median run or at its interval's high end, as
// a replay in 1s windows would fail or warn. A window of minutes spreads a
// burst of a few seconds over its width, as the server never does; the 1s
// peak is what the server meets, and the rule reads only the runs'
// figures. A Storm has no server and no 1s peak: its window is its figure,
// how tightly the retries bunch, and its default is already 20ms.
func AveragedAway(s Scenario, sum map[Figure]Estimate) string {
	s = s.WithDefaults()
	fine, ok := sum[PeakRatio1s]
	if !ok || !wideWindow(s) || sum[PeakRatio].Median > s.Threshold || fine.High <= s.Threshold {
		return ""
	}
	at := fmt.Sprintf("at 1s the peak ratio is %.1f, over the %v threshold", fine.Median, s.Threshold)
	if fine.Median <= s.Threshold {
		at = fmt.Sprintf("at 1s the peak ratio is %.2f and its interval reaches %.2f, over the %v threshold", fine.Median, fine.High, s.Threshold)
	}
	return fmt.Sprintf("a %s window averages the storm away, which 1s windows show: %s, with up to %s retries in one second",
		prose.FormatDuration(s.Window), at, count(sum[PeakRetryArrivals1s].Median))
}

// timerLoad says how much of the budget the periodic fleet's timers take
// alone, and whose doing that is.
func timerLoad(s Scenario, sum map[Figure]Estimate) string {
	l := sum[TimerLoadRatio]
	line := fmt.Sprintf("timer load %.2f [%.2f, %.2f]: up to %s firings in one %v window", l.Median, l.Low, l.High, count(sum[PeakFirings].Median), s.Window)
	whose := "the scenario's offsets, which no retry policy changes"
	if s.TimerOffset == OffsetPolicy {
		whose = "the policy's offsets"
	}
	switch {
	case l.Median > 1:
		return fmt.Sprintf("%s, over the budget from %s: the server rejects firings whatever the retries do", line, whose)
	case l.Median > s.Threshold:
		return fmt.Sprintf("%s, over the %v threshold from %s", line, s.Threshold, whose)
	}
	return line + " from " + whose
}

// OffsetsCrowd says, for a periodic replay of s (after defaults) whose
// summary is sum, how its timers' offsets crowd the server, or returns "".
// Timers whose offsets are the policy's (OffsetPolicy) crowd it when the
// median run's timers alone, the firings in one window, take more of the
// budget than the threshold: that is the policy's defect, and fails as a
// storm of retries does. Timers of any offsets crowd it when they alone
// exceed the server: the median run's busiest window holds more firings
// than the server accepts in one window by more than the threshold of its
// budget (see TimersOverload), so that the server rejects a wave of them
// on their first try whatever the re-sends do. A fleet whose timers
// exceed the server fails with the figure, and its fix belongs to the
// timers' offsets, never to a retry policy. Timers
// of the scenario's own offsets that crowd the server short of that are
// none of the policy's doing and do not enter the verdict: the detail says
// it, and the advice what to change instead.
func OffsetsCrowd(s Scenario, sum map[Figure]Estimate) string {
	s = s.WithDefaults()
	l, ok := sum[TimerLoadRatio]
	if !ok || !s.Kind.Periodic() {
		return ""
	}
	if s.TimerOffset == OffsetPolicy && l.Median > s.Threshold {
		return fmt.Sprintf("the policy's timer offsets put up to %s firings in one %s window, a timer load of %.2f over the %v threshold",
			count(sum[PeakFirings].Median), prose.FormatDuration(s.Window), l.Median, s.Threshold)
	}
	return TimersOverload(s, sum)
}

// TimersOverload says, for a periodic replay of s whose summary is sum,
// how its timers alone exceed the server, or returns "" when they do not:
// the median run's busiest window holds F firings, over the C the server
// accepts in one window (its budget B, and a token bucket's burst
// besides), by more than the threshold T of the budget: F − C > T·B. The
// F − C firings the server rejects there on their first try, whatever the
// policy, are a wave of re-sends, and T·B is the most retries in one window
// a replay passes with; so at least 1 − C/F of that window's firings are
// rejected on their first try. Timers over the server by less (a hashed
// fleet's busiest second a few firings over) leave their re-sends to the
// policy, which the peak ratio judges.
func TimersOverload(s Scenario, sum map[Figure]Estimate) string {
	s = s.WithDefaults()
	l, ok := sum[TimerLoadRatio]
	if !ok || !s.Kind.Periodic() || l.Median <= s.timerLimit()+s.Threshold {
		return ""
	}
	firings := sum[PeakFirings].Median
	capacity := s.timerLimit() * s.windowBudget()
	what := fmt.Sprintf("a budget of %s", count(s.windowBudget()))
	if s.Server == TokenBucket {
		what = fmt.Sprintf("the %s the token bucket accepts at most (a budget of %s and a burst of %s)", count(capacity), count(s.windowBudget()), count(s.Burst))
	}
	return fmt.Sprintf("the timers alone put up to %s firings in one %s window against %s, a timer load of %.2f: the server rejects at least %.0f%% of them on their first try, whatever the retry policy",
		count(firings), prose.FormatDuration(s.Window), what, l.Median, math.Floor(100*(1-capacity/firings)))
}

// timerLimit returns the most timer load (firings over the window's
// budget) the server of s, after defaults, can accept in one window: 1,
// and a token bucket's burst over the budget besides, since the tokens it
// saved before the window are spent in it.
func (s Scenario) timerLimit() float64 {
	if s.Server == TokenBucket {
		return 1 + s.Burst/s.windowBudget()
	}
	return 1
}

// timersCrowd reports whether r's timers crowd the server from the
// policy's offsets, or exceed it from any (see [OffsetsCrowd]).
func (r Result) timersCrowd() bool { return OffsetsCrowd(r.Scenario, r.Summary) != "" }
