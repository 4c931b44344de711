package libs

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// flipSeeds is how many seeds TestScoreboardFlips judges each row of
// flipRows at; 0, the default, leaves the measurement out of go test.
var flipSeeds = flag.Int("flips", 0, "judge the scoreboard's unseeded rows of flipRows at seeds 1 to N and count the verdicts that differ")

// flipRows are the rows, by number, whose policies draw from a generator
// the kit cannot seed, measured by TestScoreboardFlips: backoff v4's
// math/rand defaults, retry-go v4's full jitter from math/rand's global
// generator, and go-retryablehttp's LinearJitterBackoff, which seeds a
// generator from the clock on every call.
var flipRows = []int{1, 7, 11}

// TestScoreboardFlips measures how often a row's verdicts change with the
// seed: each row of flipRows is judged as the scoreboard judges it (the
// checks and the replay) at seeds 1 to -flips, and the test logs how many
// seeds gave each signature, under the gate's rules and under the rules
// that one device could trip (a warning when any device of any run gave
// up or was still retrying, or when any device made again differed). It
// fails when the gate's own signature is not the same at every seed.
//
//	go test -run TestScoreboardFlips -flips 200
func TestScoreboardFlips(t *testing.T) {
	if *flipSeeds == 0 {
		t.Skip("the measurement runs with -flips N")
	}
	for _, row := range flipRows {
		e := entries[row-1]
		reps := make([]reports.Report, *flipSeeds)
		errs := make([]error, *flipSeeds)
		t.Run(fmt.Sprintf("%02d", row), func(t *testing.T) {
			queue := make(chan int)
			var wg sync.WaitGroup
			for range boardWorkers() {
				wg.Go(func() {
					for k := range queue {
						seed := uint64(k + 1)
						cfg := gateConfig(e, seed)
						cfg.Steps = gate.Checks | gate.Replay
						t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
							reps[k], errs[k] = gate.RunFrozen(t, gate.GoPolicy(e.module+": "+e.config, e.factory(t)), cfg)
						})
					}
				})
			}
			for k := range reps {
				queue <- k
			}
			close(queue)
			wg.Wait()
		})
		for k, err := range errs {
			require.NoError(t, err, "row %d at seed %d", row, k+1)
		}
		now, before := map[string]int{}, map[string]int{}
		changesNow, changesBefore := 0, 0
		var gaveUp, gaveUpHigh, pending float64 // the largest over the seeds
		for k, rep := range reps {
			if p := rep.Replay; p != nil {
				gaveUp = max(gaveUp, p.Summary[sim.GaveUp].Median)
				gaveUpHigh = max(gaveUpHigh, p.Summary[sim.GaveUp].High)
				pending = max(pending, p.Summary[sim.Pending].Median)
			}
			a, b := signature(rep), signature(deviceRules(rep))
			now[a]++
			before[b]++
			if k > 0 && a != signature(reps[k-1]) {
				changesNow++
			}
			if k > 0 && b != signature(deviceRules(reps[k-1])) {
				changesBefore++
			}
		}
		t.Logf("row %d (%s: %s), seeds 1 to %d:\n  the gate's rules: %d of %d consecutive seeds change the verdicts\n%s  rules one device can trip: %d of %d consecutive seeds change the verdicts\n%s  the most devices of %d that gave up in the median run at one seed: %s (the interval's high end: %s); still retrying: %s",
			row, e.module, e.config, len(reps), changesNow, len(reps)-1, tally(now), changesBefore, len(reps)-1, tally(before),
			boardScenario.Clients, number(gaveUp), number(gaveUpHigh), number(pending))
		assert.Len(t, now, 1, "row %d: the gate's verdicts differ between seeds", row)
	}
}

// deviceRules returns rep judged by rules that one device can trip: the
// replay warns when the interval of the devices that gave up reaches above
// 0 or any device was still retrying in the median run, and
// reproducibility warns when any device made again differs.
func deviceRules(rep reports.Report) reports.Report {
	out := rep
	out.Checks = slices.Clone(rep.Checks)
	var parts []verdict.Status
	for i, c := range out.Checks {
		if c.Name == properties.NameReproducibility && c.Status == verdict.Pass && c.Figure < 1 {
			out.Checks[i].Status = verdict.Warn
		}
		parts = append(parts, out.Checks[i].Status)
	}
	if p := rep.Replay; p != nil {
		q := *p
		outage := q.Scenario.Kind == sim.Outage || q.Scenario.Kind == sim.LongOutage
		if q.Status == verdict.Pass && (outage && q.Summary[sim.GaveUp].High > 0 || q.Summary[sim.Pending].Median > 0) {
			q.Status = verdict.Warn
		}
		out.Replay = &q
		parts = append(parts, q.Status)
	}
	out.Verdict = verdict.Gate(parts...)
	return out
}

// tally lists each signature with the number of seeds that gave it, most
// first.
func tally(counts map[string]int) string {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int { return counts[b] - counts[a] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "    %d seeds: %s\n", counts[k], k)
	}
	return b.String()
}
