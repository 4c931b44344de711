package sim

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// The rule by which a replay of the default runs stops early.
//
// A fleet replay whose Config.Runs is zero makes at most 20 runs,
// in batches: first the fewest whose median has a distribution-free
// interval at Config.Level (6 at the default 0.95, and never fewer than
// MinRunsToPass), then twice as many, and so on, the last batch ending at
// 20 (6, 12, 20). After each batch the replay
// looks at every comparison its verdict makes of a median, or of an
// interval's end, with a limit (see [Result.Status] and [Result.Warnings]):
// the peak ratio with the threshold, and the others listed on
// [Stop.Undecided]. It stops when, for each, the interval of the figure's
// median lies wholly on one side of the limit and clear of it by the
// margin: StopMargin of the limit, and at least one step of the figure
// (one retry over the window's budget for a peak ratio, one device for a
// count of devices), which no device of one run decides (StopClear); or
// when the interval is narrower than StopWidth of the limit and at least
// one step of the figure from it (StopTight). A figure that is 0 over the
// whole interval lies clear under any limit above 0: no count is lower,
// and a share of a small fleet may be less than one device. The interval it judges is
// the widest of two over the runs so far: the BCa interval the summary
// reports, and the distribution-free one between the order statistics of
// the runs whose ranks the binomial distribution of a median gives at
// Config.Level, which holds the median of the runs' distribution with at
// least that probability whatever the distribution is. Run i is the same
// fleet whatever the batch, so a replay that stops after n runs has the
// runs, summary and verdict of a replay of Config{Runs: n}, and one that
// does not stop those of Config{Runs: 20}: the same seed gives the
// same result on any machine and at any load. The server models make
// their 20 runs (see [Config]).
//
// The rule stops after 6 runs only when all 6 lie beyond the margin on one
// side (or within StopWidth of each other), which a policy whose runs are
// each on the other side of the margin with probability q does with
// probability (1−q)⁶, and the verdict of all 20 differs only when enough
// of the other 14 runs are on the other side of the limit. Measured on
// fleets of 400 and 40 devices under each strategy, at accept rates that
// put the median peak ratio at 0.8, 0.9, 1, 1.1 and 1.2 times the
// threshold (TestStoppingFalseVerdicts in stop_test.go, 1,000 seeds each),
// the stopped verdict differed from that of all 20 runs at 14 of the
// 40,000 seeds (0.035%, at most 0.055% at 95% confidence), at most 6 of a
// fleet's 1,000, each a pass where the 20 runs warned that the interval
// reaches over the threshold, all in the fleets of 40, where one retry
// moves a peak ratio by 7% to 20% of the threshold; the median's side of
// the threshold never differed.
const (
	// StopMargin is how far, as a share of its limit, an interval must lie
	// from the limit for its comparison to be decided.
	StopMargin = 0.1
	// StopWidth is the width, as a share of its limit, below which an
	// interval is tight: more runs would not move it off the limit.
	StopWidth = 0.01
)

// A StopReason says why a replay of the default runs stopped where it did.
type StopReason string

// The reasons of a [Stop].
const (
	// StopClear: every interval the verdict reads lies clear of its
	// limit by the margin (see [StopMargin]).
	StopClear StopReason = "clear"
	// StopTight: every interval the verdict reads lies clear of its
	// limit by the margin, or is narrower than StopWidth of it and a step
	// of its figure away, and some only the latter.
	StopTight StopReason = "tight"
	// StopMaxRuns: the replay made its most runs, 20 by default, and the
	// interval of Stop.Undecided was neither clear nor tight.
	StopMaxRuns StopReason = "max runs"
	// StopBound: a recovery kind's replay toward Config.CollapseBound
	// made the runs that bound the chance of collapse at Stop.Limit, and
	// none collapsed (see [Collapses]).
	StopBound StopReason = "bound"
	// StopCollapsed: a recovery kind's replay toward Config.CollapseBound
	// stopped after the batch in which a run collapsed.
	StopCollapsed StopReason = "collapsed"
)

// A Stop says how many runs a replay of the default runs made and why it
// stopped there (see [StopMargin] for the rule).
type Stop struct {
	// Runs is the number of runs made, and MaxRuns the most the replay
	// would have made.
	Runs    int `json:"runs"`
	MaxRuns int `json:"max_runs"`
	// Reason is why the replay stopped.
	Reason StopReason `json:"reason"`
	// Undecided, when Reason is StopMaxRuns, is the first figure whose
	// interval at the last runs was neither clear of its limit, Limit, nor
	// tight: the peak ratio (limit the threshold), the peak of retry
	// arrivals (limit 0: the replay is inconclusive when the median run
	// has none), the peak ratio at 1s of a wide window, the timer load of
	// policy offsets (both limit the threshold), or the devices still
	// retrying or, in an outage, given up (limit their share of the
	// fleet, Config.Thresholds).
	Undecided Figure  `json:"undecided,omitempty"`
	Limit     float64 `json:"limit,omitzero"`
}

// String says in one sentence how many runs were made, and why no more:
//
//	stopped after 6 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, and by a retry or a device at least
func (s Stop) String() string {
	switch s.Reason {
	case StopClear:
		return fmt.Sprintf("stopped after %d of at most %d runs: every interval the verdict reads lies clear of its limit by %g%% of it, and by a retry or a device at least",
			s.Runs, s.MaxRuns, 100*StopMargin)
	case StopTight:
		return fmt.Sprintf("stopped after %d of at most %d runs: every interval the verdict reads lies clear of its limit by %g%% of it, or is narrower than %g%% of it and a retry or a device away",
			s.Runs, s.MaxRuns, 100*StopMargin, 100*StopWidth)
	case StopBound:
		return fmt.Sprintf("all %d runs: the fewest of which none collapsing bounds the chance of collapse at %s", s.Runs, prose.Percent(s.Limit))
	case StopCollapsed:
		return fmt.Sprintf("stopped after %d of at most %d runs: a run collapsed", s.Runs, s.MaxRuns)
	}
	return fmt.Sprintf("all %d runs: the interval of the %s was neither clear of its limit of %v by %g%% of it nor narrower than %g%% of it",
		s.Runs, s.Undecided.Label(), s.Limit, 100*StopMargin, 100*StopWidth)
}

// stopLooks returns the numbers of runs after which a replay of at most
// most runs judges whether to stop: the fewest whose median has a
// distribution-free interval at level, and at least MinRunsToPass,
// doubling up to most, and most.
func stopLooks(level float64, most int) []int {
	n := MinRunsToPass
	for n < most && medianRank(level, n) == 0 {
		n++
	}
	var out []int
	for ; n < most; n *= 2 {
		out = append(out, n)
	}
	return append(out, most)
}

// medianRank returns the rank k of the distribution-free interval of the
// median of n values at level, [x₍ₖ₎, x₍ₙ₋ₖ₊₁₎] of the sorted values: the
// largest k whose interval holds the median of their distribution with
// probability 1 − 2·P(Bin(n, ½) < k) of at least level. It returns 0 when
// not even the range of the values holds it so often, with n < log₂(2/(1 −
// level)).
func medianRank(level float64, n int) int {
	b := distuv.Binomial{N: float64(n), P: 0.5}
	k := 0
	for k < n/2 && 1-2*b.CDF(float64(k)) >= level {
		k++
	}
	return k
}

// A stopBound is one comparison of a figure's median, or of an end of its
// interval, with a limit that the verdict of a fleet replay makes, and
// the figure's step: the least by which one device moves it in one run.
type stopBound struct {
	f           Figure
	limit, step float64
}

// clear reports whether the interval [lo, hi] of b's figure lies wholly on
// one side of b's limit, by at least margin, or at 0 under a limit above 0.
func (b stopBound) clear(lo, hi, margin float64) bool {
	return hi <= max(b.limit-margin, 0) || lo > b.limit+margin
}

// stopBounds returns the comparisons the verdict of a fleet replay of s
// makes with cfg's thresholds, s and cfg after defaults: those of
// Result.Status and Result.Warnings, in the order Stop.Undecided lists
// them. Whether a run had a retry at all is a comparison with 0 of no
// step: the median run has none, or some.
func stopBounds(s Scenario, cfg Config) []stopBound {
	clients := float64(s.Clients)
	retry := 1 / s.windowBudget()
	out := []stopBound{{PeakRatio, s.Threshold, retry}, {PeakRetryArrivals, 0, 0}}
	if wideWindow(s) {
		out = append(out, stopBound{PeakRatio1s, s.Threshold, 1 / s.AcceptRate})
	}
	if s.Kind.Periodic() && s.TimerOffset == OffsetPolicy {
		out = append(out, stopBound{TimerLoadRatio, s.Threshold, retry})
	}
	if s.Kind.Periodic() {
		// Timers of any offsets that alone exceed the server fail.
		out = append(out, stopBound{TimerLoadRatio, s.timerLimit() + s.Threshold, retry})
	}
	out = append(out, stopBound{Pending, cfg.Thresholds.MaxPending * clients, 1})
	if s.Kind.model().judgesGaveUp() {
		out = append(out, stopBound{GaveUp, cfg.Thresholds.MaxGaveUp * clients, 1})
	}
	return out
}

// stopAt judges, after the runs made so far of a replay of s with cfg
// (both after defaults), whether to stop: it returns the reason, or ""
// with the first comparison that is neither clear nor tight.
func stopAt(runs []Run, s Scenario, cfg Config) (StopReason, stopBound) {
	reason := StopClear
	x := make([]float64, len(runs))
	for _, b := range stopBounds(s, cfg) {
		for j, r := range runs {
			x[j] = b.f.Of(r, s)
		}
		lo, hi := stopInterval(x, b.f, cfg)
		switch {
		case b.clear(lo, hi, max(StopMargin*b.limit, b.step)):
		case hi-lo <= StopWidth*b.limit && b.clear(lo, hi, b.step):
			reason = StopTight
		default:
			return "", b
		}
	}
	return reason, stopBound{}
}

// stopInterval returns the interval the stopping rule judges of the
// median of x, the values of figure f over the runs: the widest of the
// BCa interval the summary reports for f and the distribution-free one at
// cfg.Level. With too few values for the latter it is every real number.
func stopInterval(x []float64, f Figure, cfg Config) (lo, hi float64) {
	k := medianRank(cfg.Level, len(x))
	if k == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	e := estimate(f, x, cfg)
	return min(e.Low, sorted[k-1]), max(e.High, sorted[len(x)-k])
}
