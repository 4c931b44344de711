package sim

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// bimodal is the default overload, full jitter from 1s to 30s, under a
// dip whose length is near its tipping point: most runs recover at once,
// and the others collapse for good, with a retry amplification of about
// 3.6, tens of thousands of jobs queued and almost no goodput.
func bimodal(dip time.Duration) (kit.Factory, Scenario) {
	return kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory(),
		Scenario{Kind: Overload, DipFor: dip}
}

// TestCollapseFails pins the bimodal overload: at seed 1, a dip of 1.25s
// collapses 6 of the 20 runs and one of 1.28s 8, while the median run
// recovers at once. Each replay fails on its runs, naming the first that
// collapsed and its seed, and that seed alone replays the same collapse.
func TestCollapseFails(t *testing.T) {
	for _, c := range []struct {
		dip       time.Duration
		collapsed int
		low, high float64 // the one-sided Clopper–Pearson bounds at 95%
	}{
		{1250 * time.Millisecond, 6, 0.1396, 0.5078},
		{1280 * time.Millisecond, 8, 0.2171, 0.6064},
	} {
		t.Run(prose.FormatDuration(c.dip), func(t *testing.T) {
			f, s := bimodal(c.dip)
			r, err := Replay(context.Background(), f, s, Config{Seed: 1})
			require.NoError(t, err)
			assert.False(t, r.NeverRecovered(), "the median run recovered: %s", r.Detail())
			assert.Equal(t, verdict.Fail, r.Status(), r.Detail())
			got := r.Collapses()
			require.NotNil(t, got)
			assert.Equal(t, defaultRuns, got.Runs, "the runs judged")
			assert.Equal(t, c.collapsed, got.Collapsed, "the runs that collapsed")
			assert.InDelta(t, c.low, got.Low, 5e-4, "the lower bound")
			assert.InDelta(t, c.high, got.High, 5e-4, "the upper bound")
			assert.Equal(t, 0, got.First, "the first run that collapsed")
			assert.Equal(t, uint64(1), got.Seed, "its seed")
			assert.Contains(t, r.Detail(), fmt.Sprintf("%d of 20 runs collapsed, never recovering: a chance of collapse of", c.collapsed))
			assert.Contains(t, r.Detail(), "the first is run 0, seed 1")

			// Every run that collapsed is a full collapse, and replays
			// alone from its seed.
			var later *Run
			for i := range r.Runs {
				run := r.Runs[i]
				if run.Recovered {
					continue
				}
				assert.Greater(t, run.Amplification, 3.5, "run %d (seed %d): retry amplification", i, run.Seed)
				assert.Greater(t, run.JobsAtEnd, 40_000, "run %d (seed %d): jobs at the horizon", i, run.Seed)
				assert.Less(t, run.Goodput, 0.02, "run %d (seed %d): goodput", i, run.Seed)
				if i > 0 && later == nil {
					later = &r.Runs[i]
				}
			}
			require.NotNil(t, later, "a collapsed run past run 0")
			alone, err := Replay(context.Background(), f, s, Config{Runs: 1, Seed: later.Seed})
			require.NoError(t, err)
			assert.Equal(t, verdict.Fail, alone.Status(), alone.Detail())
			assert.Equal(t, later.Seed, alone.Runs[0].Seed)
			assert.False(t, alone.Runs[0].Recovered, "seed %d alone", later.Seed)
			assert.Equal(t, later.Attempts, alone.Runs[0].Attempts, "seed %d alone: its attempts", later.Seed)
		})
	}
}

// TestCollapsePasses replays the same overload under a dip of 1.15s, from
// which every one of its 20 runs at seed 1 recovers: the pass says what
// 20 runs bound, and a bound of 5% asks for more runs, in batches of 20,
// 40 and 59, the last of which holds run 40, the first that collapses.
func TestCollapsePasses(t *testing.T) {
	f, s := bimodal(1150 * time.Millisecond)
	r, err := Replay(context.Background(), f, s, Config{Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, verdict.Pass, r.Status(), r.Detail())
	c := r.Collapses()
	assert.Equal(t, Collapses{Runs: 20, High: c.High, Level: 0.95}, *c)
	assert.InDelta(t, 0.139, c.High, 5e-4, "1 − 0.05^(1/20)")
	assert.Contains(t, r.Detail(), "0 of 20 runs collapsed: a chance of collapse below 13.9% at 95%")
	assert.Nil(t, r.Stop, "a server model's replay of its default runs")

	more, err := Replay(context.Background(), f, s, Config{Seed: 1, CollapseBound: 0.05})
	require.NoError(t, err)
	assert.Equal(t, &Stop{Runs: 59, MaxRuns: 59, Reason: StopCollapsed}, more.Stop, more.Detail())
	assert.Equal(t, verdict.Fail, more.Status(), more.Detail())
	assert.Equal(t, figuresOf(r.Runs), figuresOf(more.Runs[:20]), "run i is the same whatever the batches")
	assert.Equal(t, 59, more.Config.Runs, "the most runs")
	assert.Len(t, more.Baselines[0].Unrecovered, 0, "the baseline of the runs made")
	assert.Equal(t, "stopped after 59 of at most 59 runs: a run collapsed", more.Stop.String())

	fixed, err := Replay(context.Background(), f, s, Config{Runs: 59, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, figuresOf(fixed.Runs), figuresOf(more.Runs), "the runs of a replay of as many")
	assert.Equal(t, fixed.Collapses(), more.Collapses(), "the collapses of a replay of as many")

	reached, err := Replay(context.Background(), f, s, Config{Seed: 1, CollapseBound: 0.14})
	require.NoError(t, err)
	assert.Equal(t, &Stop{Runs: 20, MaxRuns: 20, Reason: StopBound, Limit: 0.14}, reached.Stop)
	assert.Equal(t, verdict.Pass, reached.Status(), reached.Detail())
	assert.Equal(t, "all 20 runs: the fewest of which none collapsing bounds the chance of collapse at 14%", reached.Stop.String())
}

// figuresOf returns the runs without their series, which only the
// representative run of a replay keeps.
func figuresOf(runs []Run) []Run {
	out := make([]Run, len(runs))
	for i, r := range runs {
		r.Series = nil
		out[i] = r
	}
	return out
}

// TestCollapseBounds checks the one-sided Clopper–Pearson bounds against
// their closed forms at the ends, and the runs a bound takes.
func TestCollapseBounds(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 20, 0, 0.13911},
		{20, 20, 0.86089, 1},
		{0, 0, 0, 1},
		{0, 299, 0, 0.00997},
		{6, 20, 0.13955, 0.50782},
	} {
		low, high := collapseBounds(c.k, c.n, 0.95)
		assert.InDelta(t, c.low, low, 5e-5, "the lower bound of %d of %d", c.k, c.n)
		assert.InDelta(t, c.high, high, 5e-5, "the upper bound of %d of %d", c.k, c.n)
	}
	for _, c := range []struct {
		bound float64
		runs  int
		looks []int
	}{
		{0.5, 5, []int{20}},
		{0.14, 20, []int{20}},
		{0.139, 21, []int{20, 21}},
		{0.05, 59, []int{20, 40, 59}},
		{0.01, 299, []int{20, 40, 80, 160, 299}},
		{MinCollapseBound, 2995, []int{20, 40, 80, 160, 320, 640, 1280, 2560, 2995}},
	} {
		assert.Equal(t, c.runs, collapseRuns(c.bound, 0.95), "the runs of a bound of %v", c.bound)
		assert.Equal(t, c.looks, collapseLooks(c.bound, 0.95), "the batches toward a bound of %v", c.bound)
	}
}

// TestCollapseBoundRefused refuses a bound out of range, on a kind that
// does not recover, or beside runs set.
func TestCollapseBoundRefused(t *testing.T) {
	f := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, c := range []struct {
		s    Scenario
		cfg  Config
		want string
	}{
		{Scenario{Kind: Overload}, Config{CollapseBound: 0.0001}, "collapse bound 0.0001 is not between 0.001 and 1"},
		{Scenario{Kind: Overload}, Config{CollapseBound: 2}, "collapse bound 2 is not between 0.001 and 1"},
		{Scenario{}, Config{CollapseBound: 0.01}, "collapse-bound applies to the overload and reconnect scenarios only, not to the outage scenario"},
		{Scenario{Kind: Reconnect}, Config{CollapseBound: 0.01, Runs: 50}, "collapse-bound sets the runs itself: leave runs unset, not 50"},
	} {
		err := c.s.Validate(f, c.cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}

// The false verdicts of the rule of collapse: a measurement of minutes, run
// only when asked:
//
//	go test ./sim -run '^TestCollapseFalseVerdicts$' -collapse -v -timeout=1h
var (
	collapse     = flag.Bool("collapse", false, "run TestCollapseFalseVerdicts, which replays -collapse.runs runs of each of its overloads")
	collapseRunN = flag.Int("collapse.runs", 2000, "the runs of each overload of TestCollapseFalseVerdicts")
)

// TestCollapseFalseVerdicts measures the rule of collapse near the tipping
// point: the bimodal overload (full jitter from 1s to 30s, and from 100ms
// to 10s) under dips from below to above the length at which its runs
// begin to collapse. For each it estimates the chance p that a run
// collapses from -collapse.runs runs, and cuts them into replays of
// defaultRuns consecutive runs, each as a replay of 20 runs at a seed of
// its own is (the runs' seeds are hashes of the seed and the run's
// number). It prints p, the share of the replays that pass (expected
// (1−p)^20), the passes whose stated bound (13.9% at 95%) is below p, a
// false pass, and the fails none of whose collapsed runs collapse again
// when the same seed is replayed with a horizon three times as long, a
// false fail. It fails when more than 10% of any overload's replays state
// a bound below its p (the rule guarantees at most 5% in expectation), or
// when any fail is false.
func TestCollapseFalseVerdicts(t *testing.T) {
	if !*collapse {
		t.Skip("a measurement of minutes: run with -collapse")
	}
	n := *collapseRunN / defaultRuns * defaultRuns
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "policy\tdip\tp\tp 95% CI\treplays\tpass\texpected\tpass, bound < p\tfail\tfalse fail\tcollapsed runs\trecover at 3× horizon\t")
	start := time.Now()
	var falseFails int
	for _, spec := range []kit.Spec{
		{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second},
		{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second},
	} {
		f := spec.Factory()
		for _, dip := range []time.Duration{1000, 1100, 1150, 1200, 1250, 1280, 1300, 1400} {
			s := Scenario{Kind: Overload, DipFor: dip * time.Millisecond}
			r, err := Replay(context.Background(), f, s, Config{Runs: n, Seed: 1, RepresentativeOnly: true})
			require.NoError(t, err)
			c := r.Collapses()
			excused := map[int]bool{}
			for _, i := range r.Baselines[0].Unrecovered {
				excused[i] = true
			}
			// Each collapsed run, replayed alone with a horizon three
			// times as long: does it recover after all?
			long := s.WithDefaults()
			long.Horizon *= 3
			recovers := map[int]bool{}
			for i, run := range r.Runs {
				if run.Recovered || excused[i] {
					continue
				}
				again, err := Replay(context.Background(), f, long, Config{Runs: 1, Seed: run.Seed})
				require.NoError(t, err)
				recovers[i] = again.Runs[0].Recovered
			}
			p := c.Share
			var pass, wrongBound, fail, falseFail int
			for from := 0; from < n; from += defaultRuns {
				collapsed, real := 0, 0
				judged := 0
				for i := from; i < from+defaultRuns; i++ {
					if excused[i] {
						continue
					}
					judged++
					if !r.Runs[i].Recovered {
						collapsed++
						if !recovers[i] {
							real++
						}
					}
				}
				switch {
				case collapsed == 0:
					pass++
					if _, high := collapseBounds(0, judged, c.Level); high < p {
						wrongBound++
					}
				default:
					fail++
					if real == 0 {
						falseFail++
					}
				}
			}
			recovered := 0
			for _, ok := range recovers {
				if ok {
					recovered++
				}
			}
			falseFails += falseFail
			replays := n / defaultRuns
			expected := 1.0
			for range defaultRuns {
				expected *= 1 - p
			}
			fmt.Fprintf(w, "%s\t%v\t%.4f\t[%.4f, %.4f]\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", spec, s.DipFor, p, c.Low, c.High, replays, pass,
				expected*float64(replays), wrongBound, fail, falseFail, len(recovers), recovered)
			assert.LessOrEqual(t, wrongBound, replays/10, "%s, dip %v: passes whose bound is below p = %.4f", spec, s.DipFor, p)
		}
	}
	w.Flush()
	t.Logf("the rule of collapse near the tipping point, %d runs an overload, replays of %d runs, in %v:\n%s", n, defaultRuns, time.Since(start).Round(time.Second), b.String())
	assert.Zero(t, falseFails, "replays that failed on runs that all recover with a horizon three times as long")
}
