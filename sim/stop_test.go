package sim

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// TestMedianRank pins the ranks of the distribution-free interval of a
// median, and checks each against the binomial distribution it comes
// from: the interval of rank k holds the median at level, that of rank
// k+1 does not.
func TestMedianRank(t *testing.T) {
	for _, c := range []struct {
		level float64
		n, k  int
	}{
		{0.95, 5, 0}, // the range of 5 holds the median with 1 − 2/32 = 93.75%
		{0.95, 6, 1}, // 1 − 2/64 = 96.9%
		{0.95, 12, 3},
		{0.95, 20, 6}, // [x₍₆₎, x₍₁₅₎]: the 15th, as IntervalOver says
		{0.99, 7, 0},
		{0.99, 8, 1},
		{0.5, 3, 1},
		{0.5, 1, 0},
	} {
		got := medianRank(c.level, c.n)
		assert.Equal(t, c.k, got, "medianRank(%v, %d)", c.level, c.n)
	}
	for n := 1; n <= 60; n++ {
		for _, level := range []float64{0.8, 0.9, 0.95, 0.99} {
			b := distuv.Binomial{N: float64(n), P: 0.5}
			cover := func(k int) float64 { return 1 - 2*b.CDF(float64(k-1)) }
			k := medianRank(level, n)
			if k > 0 {
				assert.GreaterOrEqual(t, cover(k), level, "the interval of rank %d of %d values at %v", k, n, level)
			}
			if k+1 <= n/2 {
				assert.Less(t, cover(k+1), level, "the interval of rank %d of %d values at %v", k+1, n, level)
			}
		}
	}
}

// TestStopLooks pins the batches of a replay of the default runs: the
// first is the fewest runs whose median has an interval at the level.
func TestStopLooks(t *testing.T) {
	for _, c := range []struct {
		level float64
		most  int
		want  []int
	}{
		{defaultLevel, defaultRuns, []int{6, 12, defaultRuns}},
		{0.99, defaultRuns, []int{8, 16, defaultRuns}},
		{0.5, defaultRuns, []int{MinRunsToPass, 6, 12, defaultRuns}},
		{0.999999, defaultRuns, []int{defaultRuns}}, // 2⁻¹⁹·2 > 10⁻⁶: no interval before the last
		{defaultLevel, 6, []int{6}},
	} {
		assert.Equal(t, c.want, stopLooks(c.level, c.most), "stopLooks(%v, %d)", c.level, c.most)
	}
}

// TestStopString pins the sentences of a Stop word for word.
func TestStopString(t *testing.T) {
	for _, c := range []struct {
		s    Stop
		want string
	}{
		{Stop{Runs: 6, MaxRuns: 20, Reason: StopClear},
			"stopped after 6 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, and by a retry or a device at least"},
		{Stop{Runs: 12, MaxRuns: 20, Reason: StopTight},
			"stopped after 12 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, or is narrower than 1% of it and a retry or a device away"},
		{Stop{Runs: 20, MaxRuns: 20, Reason: StopMaxRuns, Undecided: PeakRatio, Limit: 0.6},
			"all 20 runs: the interval of the peak ratio (retries / accept budget) was neither clear of its limit of 0.6 by 10% of it nor narrower than 1% of it"},
	} {
		assert.Equal(t, c.want, c.s.String())
	}
}

// TestSequentialReplay replays policies clearly over the threshold,
// clearly within it, at it, and whose runs all agree, with the default
// runs: each says where it stopped and why, and has the runs, summary,
// representative run and verdict of a replay of that many runs; at any
// number of workers, the same bytes.
func TestSequentialReplay(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		spec   kit.Spec
		s      Scenario
		runs   int
		reason StopReason
		status verdict.Status
	}{
		// Every device retries in one wave: 400 retries against 50, in
		// every run.
		{"over", kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}, Scenario{}, 6, StopClear, verdict.Fail},
		// Full jitter from 10s: about 54 retries in the busiest second
		// against 500 (0.11), far within 0.6.
		{"within", kit.Spec{Strategy: kit.Full, Base: 10 * time.Second, Cap: time.Minute}, Scenario{AcceptRate: 500}, 6, StopClear, verdict.Pass},
		// The same against 90 a second: a median peak ratio of 0.6,
		// whose runs range from 0.52 to 0.73.
		{"at the threshold", kit.Spec{Strategy: kit.Full, Base: 10 * time.Second, Cap: time.Minute}, Scenario{AcceptRate: 90}, defaultRuns, StopMaxRuns, verdict.Fail},
		// No jitter, 300 devices against 520 a second: a peak ratio of
		// 0.577 in every run, within 10% of the threshold, and 12
		// retries under it.
		{"tight", kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}, Scenario{Clients: 300, AcceptRate: 520}, 6, StopTight, verdict.Pass},
		// The same against 500 a second: exactly the threshold in every
		// run, which no number of runs moves off it.
		{"at the threshold in every run", kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}, Scenario{Clients: 300, AcceptRate: 500}, defaultRuns, StopMaxRuns, verdict.Pass},
		// A window of 6m averages full jitter's storm away (see
		// TestWideWindowFails): the 1s peak ratio, which the failure
		// judges, is clear of the threshold too.
		{"wide window", kit.Spec{Strategy: kit.Full, Base: 100 * ms, Cap: 10 * time.Second}, Scenario{Window: 6 * time.Minute}, 6, StopClear, verdict.Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.spec.Factory()
			seq, err := Replay(context.Background(), f, c.s, Config{Seed: 3, RepresentativeOnly: true})
			require.NoError(t, err)
			require.NotNil(t, seq.Stop, "the stop of a replay of the default runs")
			assert.Equal(t, c.runs, seq.Stop.Runs, "runs made: %s", seq.Stop)
			assert.Equal(t, c.reason, seq.Stop.Reason, "why: %s", seq.Stop)
			assert.Equal(t, defaultRuns, seq.Stop.MaxRuns, "the most runs")
			assert.Len(t, seq.Runs, seq.Stop.Runs, "the runs of the result")
			assert.Equal(t, defaultRuns, seq.Config.Runs, "the configuration's runs, the most")
			assert.Equal(t, c.status, seq.Status(), seq.Detail())

			fixed, err := Replay(context.Background(), f, c.s, Config{Runs: seq.Stop.Runs, Seed: 3, RepresentativeOnly: true})
			require.NoError(t, err)
			assert.Nil(t, fixed.Stop, "the stop of a replay of set runs")
			assert.Equal(t, fixed.Runs, seq.Runs, "the runs of the stopped replay and of a replay of as many")
			assert.Equal(t, fixed.Summary, seq.Summary, "the summary")
			assert.Equal(t, fixed.Representative, seq.Representative, "the representative run")
			assert.Equal(t, fixed.Status(), seq.Status(), "the verdict")

			var one, many bytes.Buffer
			require.NoError(t, seq.WriteJSON(&one, c.spec.String()))
			again, err := Replay(context.Background(), f, c.s, Config{Seed: 3, RepresentativeOnly: true, Workers: 5})
			require.NoError(t, err)
			require.NoError(t, again.WriteJSON(&many, c.spec.String()))
			assert.Equal(t, one.String(), many.String(), "the JSON of the replay on one worker and on five")
			assert.Contains(t, one.String(), fmt.Sprintf(`"stop": {
    "runs": %d,`, c.runs), "the JSON's stop")
		})
	}
}

// TestSetRunsDoNotStop replays with the runs set, the default's number
// among them, and a server model with the default runs: each makes every
// run, and has no Stop.
func TestSetRunsDoNotStop(t *testing.T) {
	over := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, c := range []struct {
		name string
		s    Scenario
		cfg  Config
		runs int
	}{
		{"the default's number", Scenario{}, Config{Runs: defaultRuns}, defaultRuns},
		{"seven", Scenario{}, Config{Runs: 7}, 7},
		{"a server model's default", Scenario{Kind: Contention, Clients: 20}, Config{Resamples: 100}, defaultRuns},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Replay(context.Background(), over, c.s, c.cfg)
			require.NoError(t, err)
			assert.Len(t, r.Runs, c.runs, "runs made")
			assert.Nil(t, r.Stop, "the stop")
			var b bytes.Buffer
			require.NoError(t, r.WriteJSON(&b, "none"))
			assert.NotContains(t, b.String(), `"stop"`, "the JSON")
		})
	}
}

// TestShortlistStopped adds runs in the batches of a replay of the
// default runs, each in a drawn order of finishing, and stops after a
// drawn batch: a shortlist of the most runs still keeps the histograms
// of the representative run of those made.
func TestShortlistStopped(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		most := rapid.IntRange(1, 80).Draw(t, "most")
		looks := stopLooks(defaultLevel, most)
		stop := looks[rapid.IntRange(0, len(looks)-1).Draw(t, "stop")]
		runs := make([]Run, stop)
		for i := range runs {
			runs[i].PeakRetryArrivals = rapid.IntRange(0, 5).Draw(t, "peak")
		}
		l := newShortlist(most)
		from := 0
		for _, to := range looks {
			if to > stop {
				break
			}
			for _, j := range rapid.Permutation(seq(to-from)).Draw(t, "order") {
				i := from + j
				l.add(runs[i].PeakRetryArrivals, i, func() *histogram { return newHistogram([]int64{int64(i)}, nil) })
			}
			from = to
		}
		rep := representative(runs)
		got, _ := l.histogram(rep).ints()
		require.Equal(t, []int{rep}, got, "the histograms kept after %d of at most %d runs; want run %d's, the representative", stop, most, rep)
	})
}

// The false verdicts of the stopping rule: a measurement of minutes, run
// only when asked:
//
//	go test ./sim -run '^TestStoppingFalseVerdicts$' -stopping -v -timeout=1h
var (
	stopping      = flag.Bool("stopping", false, "run TestStoppingFalseVerdicts, which replays each of its fleets at -stopping.seeds seeds")
	stoppingSeeds = flag.Int("stopping.seeds", 1000, "the seeds of TestStoppingFalseVerdicts")
)

// TestStoppingFalseVerdicts measures how often a replay of the default
// runs, which stops once its verdict is decided, gives another verdict
// than all defaultRuns runs of the same seed. The fleets are the default
// outage of 400 devices and one of 40, whose runs' peaks are noisier and
// coarser (a retry is a tenth of the threshold), under no jitter and
// under full, equal and decorrelated jitter from 10s; each accept rate is
// chosen so that the median peak ratio is the threshold times 0.8 to 1.2:
// the median peak of retries of 200 runs (at seeds of their own) over the
// rate that puts it there. At the threshold a fleet's verdict at 20 runs
// changes from seed to seed; at 0.9 and 1.1 its runs straddle the margin.
// It prints, for each, the share of seeds whose full replay fails, the
// mean runs made, the share stopped early and those of them stopped as
// tight, and the seeds whose verdict (pass, warn, fail or inconclusive)
// and whose median peak ratio's side of the threshold differ. It fails
// unless the measurement shows, at 95% confidence (the upper end of the
// Clopper–Pearson interval of the share), that fewer than 1% of the seeds
// get another verdict.
func TestStoppingFalseVerdicts(t *testing.T) {
	if !*stopping {
		t.Skip("a measurement of minutes: run with -stopping")
	}
	seeds := *stoppingSeeds
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "clients\tpolicy\tpeak ratio / threshold\taccept rate\tfull fails\tmean runs\tstopped early\tof them tight\tverdict differs\tside differs\t")
	var differ, sideDiffer, total int
	start := time.Now()
	for _, clients := range []int{400, 40} {
		for _, st := range kit.Strategies() {
			spec := kit.Spec{Strategy: st, Base: 10 * time.Second, Cap: time.Minute}
			if st == kit.None {
				spec.Base, spec.Cap = time.Second, 30*time.Second
			}
			f := spec.Factory()
			pilot, err := Replay(context.Background(), f, Scenario{Clients: clients, AcceptRate: float64(clients) / 4}, Config{Runs: 200, Seed: 1 << 40})
			require.NoError(t, err)
			peak := pilot.Summary[PeakRetryArrivals].Median
			for _, at := range []float64{0.8, 0.9, 1, 1.1, 1.2} {
				s := Scenario{Clients: clients, AcceptRate: peak / (defaultThreshold * at)}
				var fails, made, early, tight, vd, sd int
				for seed := uint64(1); seed <= uint64(seeds); seed++ {
					seq, err := Replay(context.Background(), f, s, Config{Seed: seed, RepresentativeOnly: true})
					require.NoError(t, err)
					full := seq
					if seq.Stop.Runs < defaultRuns {
						early++
						if seq.Stop.Reason == StopTight {
							tight++
						}
						full, err = Replay(context.Background(), f, s, Config{Runs: defaultRuns, Seed: seed, RepresentativeOnly: true})
						require.NoError(t, err)
					}
					made += len(seq.Runs)
					if full.Status() == verdict.Fail {
						fails++
					}
					if seq.Status() != full.Status() {
						vd++
					}
					over := func(r Result) bool { return r.Summary[PeakRatio].Median > r.Scenario.Threshold }
					if over(seq) != over(full) {
						sd++
					}
				}
				differ, sideDiffer, total = differ+vd, sideDiffer+sd, total+seeds
				fmt.Fprintf(w, "%d\t%s\t%.2f\t%.1f/s\t%.1f%%\t%.1f\t%.1f%%\t%d\t%d\t%d\t\n", clients, spec, at, s.AcceptRate,
					100*float64(fails)/float64(seeds), float64(made)/float64(seeds), 100*float64(early)/float64(seeds), tight, vd, sd)
			}
		}
	}
	w.Flush()
	upper := 1.0
	if differ < total {
		upper = distuv.Beta{Alpha: float64(differ + 1), Beta: float64(total - differ)}.Quantile(0.95)
	}
	t.Logf("the stopped verdict against all %d runs, %d seeds a fleet, in %v:\n%s\nverdicts differ at %d of %d seeds (%.3f%%, at most %.3f%% at 95%% confidence), the peak ratio's side of the threshold at %d",
		defaultRuns, seeds, time.Since(start).Round(time.Second), b.String(), differ, total, 100*float64(differ)/float64(total), 100*upper, sideDiffer)
	assert.Less(t, upper, 0.01, "the share of seeds whose stopped verdict differs from the full one, at 95%% confidence: %d of %d, too many, or too few seeds to show fewer than 1%%", differ, total)
}
