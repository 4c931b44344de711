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

// defaultOutage is the zero Scenario: 400 clients against a server that
// accepts 50 requests per second and is down for the first 2s.
var defaultOutage = Scenario{}

// outagePolicy is exponential backoff from 0.1s to 10s (kit.Spec's
// defaults) with the given jitter, the policy the outage tests replay.
func outagePolicy(st kit.Strategy) kit.Factory {
	return kit.Spec{Strategy: st, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
}

// TestOutageNoJitter reproduces exactly what the reference Python
// simulation of this model printed without jitter: the replay is
// deterministic, so every seed gives all served after 62.7s, a busiest
// second of 1,600 arrivals and 3,800 attempts.
func TestOutageNoJitter(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2026, 1 << 63} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r, err := Replay(context.Background(), outagePolicy(kit.None), defaultOutage, Config{Runs: 8, Seed: seed})
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

// outageReference holds the figures the reference Python simulation of this
// model printed for one run of each jittered policy: one draw each.
var outageReference = map[kit.Strategy]struct {
	allServedS float64
	busiest    int
	attempts   int
}{
	kit.Equal: {20.5, 1661, 3002},
	kit.Full:  {14.8, 1981, 3103},
}

// outageRuns is the number of replications the jittered outage tests draw.
const outageRuns = 200

// outageReplay replays the default outage under each of the four
// strategies, outageRuns runs each, once per test binary.
var outageReplay = func() func(t *testing.T) map[kit.Strategy]Result {
	results := map[kit.Strategy]Result{}
	return func(t *testing.T) map[kit.Strategy]Result {
		t.Helper()
		if len(results) == 0 {
			for _, st := range kit.Strategies() {
				r, err := Replay(context.Background(), outagePolicy(st), defaultOutage, Config{Runs: outageRuns, Seed: 1})
				require.NoError(t, err)
				results[st] = r
			}
		}
		return results
	}
}()

// TestOutageJitterInLine checks that the reference simulation's run of
// equal and full jitter is in line with the replay: each of its figures
// must fall within the central 99% of the figure over 200 runs. If the
// replay models the same outage faithfully, the reference run is one more
// draw from the same distribution, and falls outside that range with
// probability 1% per figure (6% over the six figures): a model off by more
// than the runs' spread fails.
func TestOutageJitterInLine(t *testing.T) {
	results := outageReplay(t)
	for _, st := range []kit.Strategy{kit.Equal, kit.Full} {
		ref := outageReference[st]
		runs := results[st].Runs
		for _, c := range []struct {
			name string
			want float64
			got  func(Run) float64
		}{
			{"all served after (s)", ref.allServedS, func(r Run) float64 { return r.AllServed.Seconds() }},
			{"busiest second", float64(ref.busiest), func(r Run) float64 { return float64(r.BusiestWindowArrivals) }},
			{"attempts", float64(ref.attempts), func(r Run) float64 { return float64(r.Attempts) }},
		} {
			x := make([]float64, len(runs))
			for i, r := range runs {
				x[i] = c.got(r)
			}
			slices.Sort(x)
			lo, hi := x[len(x)/200], x[len(x)-1-len(x)/200]
			assert.True(t, lo <= c.want && c.want <= hi, "%s jitter: reference run %s %v; the central 99%% of %d runs is [%v, %v]", st, c.name, c.want, len(runs), lo, hi)
		}
	}
}

// TestOutageFindings checks, on the medians of 200 runs, what the
// reference simulation's run shows: jitter cuts the completion time three-
// to four-fold (3.06 for equal and 4.24 for full in that run), equal jitter
// makes the fewest attempts, and full jitter has the busiest second. Each
// comparison is held to the medians' 95% intervals, so it must hold beyond
// the runs' noise. Decorrelated jitter, which the reference simulation does
// not run, must complete at least three times faster than no jitter too.
func TestOutageFindings(t *testing.T) {
	results := outageReplay(t)
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
