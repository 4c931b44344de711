package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// The lab (seed 001): 400 clients, a server that accepts 50 requests per
// second and is down for the first 2s, exponential backoff with base 0.1s
// and cap 10s. These are Scenario's and kit.Spec's defaults.
var labScenario = Scenario{}

func labPolicy(st kit.Strategy) kit.Factory {
	return kit.Spec{Strategy: st, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
}

// TestLabNoJitter reproduces the lab's run without jitter exactly: it is
// deterministic, so every seed gives all served after 62.7s, a busiest
// second of 1,600 arrivals and 3,800 attempts.
func TestLabNoJitter(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2026, 1 << 63} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r, err := Replay(context.Background(), labPolicy(kit.None), labScenario, Config{Runs: 8, Seed: seed})
			require.NoError(t, err)
			for _, run := range r.Runs {
				got := fmt.Sprintf("all served after %.1f s, busiest second %d arrivals, attempts %d, served %d",
					run.AllServed.Seconds(), run.BusiestWindowArrivals, run.Attempts, run.Served)
				const want = "all served after 62.7 s, busiest second 1600 arrivals, attempts 3800, served 400"
				assert.Equal(t, want, got, "run seed %d", run.Seed)
			}
		})
	}
}

// The lab's published run: one draw for each jittered policy.
var labPublished = map[kit.Strategy]struct {
	allServedS float64
	busiest    int
	attempts   int
}{
	kit.Equal: {20.5, 1661, 3002},
	kit.Full:  {14.8, 1981, 3103},
}

// labRuns is the number of replications the jittered lab tests draw.
const labRuns = 200

// labReplay replays the lab under each of the four strategies, labRuns
// runs each, once per test binary.
var labReplay = func() func(t *testing.T) map[kit.Strategy]Result {
	results := map[kit.Strategy]Result{}
	return func(t *testing.T) map[kit.Strategy]Result {
		t.Helper()
		if len(results) == 0 {
			for _, st := range kit.Strategies() {
				r, err := Replay(context.Background(), labPolicy(st), labScenario, Config{Runs: labRuns, Seed: 1})
				require.NoError(t, err)
				results[st] = r
			}
		}
		return results
	}
}()

// TestLabJitterInLine checks that the lab's published run of equal and full
// jitter is in line with the replay: each published figure must fall within
// the central 99% of the figure over 200 runs. If the replay models the lab
// faithfully, the published run is one more draw from the same
// distribution, and falls outside that range with probability 1% per
// figure (6% over the six figures): a model off by more than the runs'
// spread fails.
func TestLabJitterInLine(t *testing.T) {
	results := labReplay(t)
	for _, st := range []kit.Strategy{kit.Equal, kit.Full} {
		pub := labPublished[st]
		runs := results[st].Runs
		for _, c := range []struct {
			name string
			want float64
			got  func(Run) float64
		}{
			{"all served after (s)", pub.allServedS, func(r Run) float64 { return r.AllServed.Seconds() }},
			{"busiest second", float64(pub.busiest), func(r Run) float64 { return float64(r.BusiestWindowArrivals) }},
			{"attempts", float64(pub.attempts), func(r Run) float64 { return float64(r.Attempts) }},
		} {
			x := make([]float64, len(runs))
			for i, r := range runs {
				x[i] = c.got(r)
			}
			slices.Sort(x)
			lo, hi := x[len(x)/200], x[len(x)-1-len(x)/200]
			assert.True(t, lo <= c.want && c.want <= hi, "%s jitter: %s published %v; the central 99%% of %d runs is [%v, %v]", st, c.name, c.want, len(runs), lo, hi)
		}
	}
}

// TestLabFindings checks the lab's findings on the medians of 200 runs:
// jitter cuts the completion time three- to four-fold (published 3.06 for
// equal and 4.24 for full), equal jitter makes the fewest attempts, and
// full jitter has the busiest second. Each comparison is held to the
// medians' 95% intervals, so it must hold beyond the runs' noise.
// Decorrelated jitter, which the lab did not run, must complete at least
// three times faster than no jitter too.
func TestLabFindings(t *testing.T) {
	results := labReplay(t)
	med := func(st kit.Strategy, fig Figure) Estimate { return results[st].Summary[fig] }
	none := med(kit.None, AllServed).Median
	for _, st := range []kit.Strategy{kit.Equal, kit.Full, kit.Decorrelated} {
		e := med(st, AllServed)
		lo, hi := none/e.High, none/e.Low
		assert.True(t, lo >= 3 && hi <= 4.5, "%s jitter cuts the completion time %.2f- to %.2f-fold (none %.1fs, %s median %.1fs [%.1f, %.1f]); want three- to four-fold (within [3, 4.5])",
			st, lo, hi, none, st, e.Median, e.Low, e.High)
	}
	eq, full, no := med(kit.Equal, Attempts), med(kit.Full, Attempts), med(kit.None, Attempts)
	assert.True(t, eq.High < full.Low && full.High < no.Low, "attempts: equal %v, full %v, none %v; want equal < full < none, intervals apart", eq, full, no)
	bf, be, bn := med(kit.Full, BusiestWindowArrivals), med(kit.Equal, BusiestWindowArrivals), med(kit.None, BusiestWindowArrivals)
	assert.True(t, bf.Low > be.High && bf.Low > bn.High, "busiest second: full %v, equal %v, none %v; want full the highest, intervals apart", bf, be, bn)
	for _, st := range kit.Strategies() {
		s := results[st].Summary
		t.Logf("%-12s all served after %5.1fs [%5.1f, %5.1f]   busiest second %6.0f   attempts %6.0f   peak ratio %5.2f",
			st, s[AllServed].Median, s[AllServed].Low, s[AllServed].High,
			s[BusiestWindowArrivals].Median, s[Attempts].Median, s[PeakRatio].Median)
	}
}
