package sim

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// The rule by which a recovery kind's replay is judged on its runs.
//
// A run of an Overload or a Reconnect either recovers after the trigger
// or never does within the horizon: a metastable system's outcome is
// bimodal, and the share of runs that collapse is the risk, which the
// median run hides. So a run that never recovers (Run.Recovered false)
// is a counterexample, as a check's smallest set of devices is: the
// replay fails, naming the run and its seed, which replays that run alone
// with Config{Runs: 1, Seed: seed}. A run judges the policy unless the
// scenario alone keeps the service down in it: in an Overload, a run whose
// same fleet without retries (the baseline, replayed on the same seed)
// never recovers either is excused, and a replay with fewer than
// MinRunsToPass runs left to judge is inconclusive.
//
// A replay in which no judged run collapsed passes on what its runs
// bound: with none of n collapsed, the chance that a run collapses is
// below 1 − (1 − Level)^(1/n) at Config.Level, the one-sided
// Clopper–Pearson bound (13.9% for the default 20 runs at 95%, 1.5% for
// 200, 0.15% for 2,000). Config.CollapseBound asks for a tighter one: the
// replay makes its runs in batches, doubling from 20 (the default runs), until the
// bound is at most CollapseBound or a run collapses (see [Result.Stop]);
// run i is the same whatever the batches, as in the stopping rule of the
// fleet kinds ([StopMargin]).
//
// A replay of 20 runs passes a fleet whose runs collapse with
// probability p with probability (1 − p)^20, so that its stated bound is
// below p in at most 5% of the replays of any fleet. Measured near the
// tipping point (TestCollapseFalseVerdicts in collapse_test.go, run with
// -collapse: the default overload under full jitter from 1s to 30s and
// from 100ms to 10s, dips of 1s to 1.4s, 1,000 runs each cut into 50
// replays of 20), p ran from 0 to 77%; the passes followed (1 − p)^20, 2
// of the 800 replays stated a bound below p (both at p = 15.4%, where
// (1 − p)^20 = 3.5%), and none of the 2,112 runs that collapsed recovered
// when replayed with a horizon three times as long: no failure was false.
// The rule of the median it replaces failed a replay only when at least
// half of its runs collapsed.

// MinCollapseBound is the smallest Config.CollapseBound: 2,995 runs of
// none collapsed at the default Level.
const MinCollapseBound = 0.001

// Collapses is what a recovery kind's runs establish of its chance of
// collapse (see [Result.Collapses]).
type Collapses struct {
	// Runs counts the runs that judged the policy: every run, but in an
	// Overload those whose same fleet without retries never recovered
	// either (Excused).
	Runs int `json:"runs"`
	// Excused counts the runs left out of Runs.
	Excused int `json:"excused,omitzero"`
	// Collapsed counts the judged runs that never recovered after the
	// trigger, and Share their share of Runs.
	Collapsed int     `json:"collapsed"`
	Share     float64 `json:"share"`
	// Low and High bound the chance that a run collapses, each a
	// one-sided Clopper–Pearson bound at Level: Low is 0 when none
	// collapsed, High 1 when every run did.
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"`
	// First is the number of the first run that collapsed, and Seed its
	// seed, which replays it alone with Config{Runs: 1, Seed: Seed}; both
	// zero when none did.
	First int    `json:"first_run"`
	Seed  uint64 `json:"seed"`
}

// Collapses returns what a recovery kind's runs establish of its chance of
// collapse: which judged runs never recovered, and the bounds on the
// chance. It returns nil for the other kinds.
func (r Result) Collapses() *Collapses {
	if !r.Scenario.Kind.Recovers() {
		return nil
	}
	excused := map[int]bool{}
	if b := r.Baseline(BaselineNoRetries); b != nil {
		for _, i := range b.Unrecovered {
			excused[i] = true
		}
	}
	c := &Collapses{Level: r.Config.WithDefaults().Level}
	found := false
	for i, run := range r.Runs {
		switch {
		case excused[i]:
			c.Excused++
			continue
		case !run.Recovered && !found:
			found = true
			c.First, c.Seed = i, run.Seed
			fallthrough
		case !run.Recovered:
			c.Collapsed++
		}
		c.Runs++
	}
	if c.Runs > 0 {
		c.Share = float64(c.Collapsed) / float64(c.Runs)
	}
	c.Low, c.High = collapseBounds(c.Collapsed, c.Runs, c.Level)
	return c
}

// collapseBounds returns the one-sided Clopper–Pearson bounds at level on
// the chance of an event seen k times in n trials: the lower 0 when k is
// 0, the upper 1 when k is n (and both 0 and 1 when n is 0).
func collapseBounds(k, n int, level float64) (low, high float64) {
	low, high = 0, 1
	if k > 0 {
		low = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(1 - level)
	}
	if k < n {
		high = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(level)
	}
	return low, high
}

// collapseRuns returns the fewest runs of which none collapsed that bound
// the chance of collapse at most bound at level: the least n with
// 1 − (1 − level)^(1/n) ≤ bound.
func collapseRuns(bound, level float64) int {
	n := int(math.Ceil(math.Log(1-level) / math.Log1p(-bound)))
	for n > 1 && 1-math.Pow(1-level, 1/float64(n-1)) <= bound {
		n--
	}
	for 1-math.Pow(1-level, 1/float64(n)) > bound {
		n++
	}
	return n
}

// collapseLooks returns the numbers of runs after which a recovery kind's
// replay toward bound judges whether to stop: 20 (the default runs), doubling, up to
// the runs that reach the bound.
func collapseLooks(bound, level float64) []int {
	most := max(collapseRuns(bound, level), defaultRuns)
	var out []int
	for n := defaultRuns; n < most; n *= 2 {
		out = append(out, n)
	}
	return append(out, most)
}

// String says what the runs establish, as a pass or a failure reads it:
//
//	0 of 20 runs collapsed: a chance of collapse below 13.9% at 95%
//	6 of 20 runs collapsed, never recovering: a chance of collapse of 30%: at least 14.2% and at most 50.8%, each bound at 95%; the first is run 3, seed 1234
func (c Collapses) String() string {
	runs := "runs"
	if c.Runs == 1 {
		runs = "run"
	}
	if c.Collapsed == 0 {
		return fmt.Sprintf("0 of %d %s collapsed: %s", c.Runs, runs, c.Chance())
	}
	return fmt.Sprintf("%d of %d %s collapsed, never recovering: %s; the first is run %d, seed %d",
		c.Collapsed, c.Runs, runs, c.Chance(), c.First, c.Seed)
}

// Chance says what the runs bound of the chance of collapse, each bound
// one-sided at Level (together, two bounds at 95% each make an interval at
// 90%, which is why they are not called one):
//
//	a chance of collapse below 13.9% at 95%
//	a chance of collapse of 30%: at least 14.2% and at most 50.8%, each bound at 95%
//	a chance of collapse of 100%: at least 86.1% at 95%
func (c Collapses) Chance() string {
	switch {
	case c.Collapsed == 0:
		return fmt.Sprintf("a chance of collapse below %s at %s", prose.Percent(c.High), prose.Percent(c.Level))
	case c.Collapsed == c.Runs:
		return fmt.Sprintf("a chance of collapse of %s: at least %s at %s", prose.Percent(c.Share), prose.Percent(c.Low), prose.Percent(c.Level))
	}
	return fmt.Sprintf("a chance of collapse of %s: at least %s and at most %s, each bound at %s", prose.Percent(c.Share), prose.Percent(c.Low), prose.Percent(c.High), prose.Percent(c.Level))
}
