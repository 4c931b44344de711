package main

import (
	"fmt"
	"io"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/reports/gate/progress"
	"github.com/jitterkit/jitterkit/sim"
)

// demoSpec is the default policy the demo gates: decorrelated jitter with a
// base long enough to spread the first retries of 400 devices below the
// threshold of a server that accepts 50 a second.
var demoSpec = kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 300 * time.Second}

// demo shows the main job on the default scenario (400 clients, a server
// accepting 50 a second, down for 2s): the four strategies side by side at
// a short backoff, then a gate of the default policy. Its exit code is the
// gate's verdict, as for jitterkit gate.
func demo(e *env) error {
	fmt.Fprintf(e.stdout, "jitterkit: does a retry policy's jitter de-synchronise a fleet?\n\n")
	fmt.Fprintf(e.stdout, "1. The four strategies, each replayed on fleets that fail together.\n\n")
	fmt.Fprintf(e.stdout, "%s", demoIntro)
	cs, err := gate.Compare(e.ctx, nil, nil, gate.Config{Progress: progress.On(e.stderr)})
	if err != nil {
		return gateError(e, err)
	}
	if err := reports.WriteComparisons(e.stdout, cs); err != nil {
		return kitError(err)
	}
	fmt.Fprintln(e.stdout)
	reading(e.stdout, cs)

	fmt.Fprintf(e.stdout, "\n2. A gate of %s: the property checks and the replay, one verdict.\n\n", demoSpec)
	o := &options{command: "gate", given: map[string]bool{}, specs: []kit.Spec{demoSpec}}
	o.cfg.Steps = gate.Checks | gate.Replay
	o.cfg.Reproduce = reproduce(o)
	err = evaluate(e, o)
	fmt.Fprintf(e.stdout, "%s", glossary)
	fmt.Fprintf(e.stdout, "\nNext: jitterkit gate --policy SPEC (or --exec CMD, --trace FILE); see \"jitterkit help\".\n")
	return err
}

// demoIntro says what the comparison measures, before it is shown.
const demoIntro = `400 devices lose their server at once. It is down for 2s, then accepts 50
requests a second. Each device retries on its policy: no jitter, or full,
equal or decorrelated jitter, from a base of 100ms up to a cap of 10s. The
peak ratio is the most retries that arrive in one second over the 50 the
server accepts in a second: under 0.6 is comfortable, above 1 the server
turns devices away and they retry again. Each cell is the median of 20
fleets, with its 95% interval.

`

// whyFullPeaks explains why full jitter can peak above no jitter at a short
// base, which surprises a first reader of the table.
const whyFullPeaks = `Full jitter even peaks above no jitter here. Its delays are drawn between 0
and the window, so at a base of 100ms a device may retry several times
within one second, and the early windows are too short to spread 400
devices: more retries land in the busiest second, not fewer. Without jitter
every device retries once per window, in one wave. Jitter spreads a fleet
only over windows longer than the fleet needs to be served.
`

// reading says in words what the demo's comparison shows: how much sooner
// the fastest strategy serves the fleet than no jitter, how many
// strategies keep the peak within the threshold, and why full jitter peaks
// above no jitter when it does.
func reading(w io.Writer, cs []reports.Comparison) {
	var ratio, served reports.Comparison
	for _, c := range cs {
		switch c.Figure {
		case sim.PeakRatio:
			ratio = c
		case sim.AllServed:
			served = c
		}
	}
	none, ok := served.Strategy(0, kit.None)
	if _, hasRatio := ratio.Strategy(0, kit.None); !ok || !hasRatio {
		return
	}
	best, bestName := none, kit.None
	threshold, within := ratio.Scenario.WithDefaults().Threshold, 0
	for _, st := range kit.Strategies() {
		if x, ok := served.Strategy(0, st); ok && x.Median < best.Median {
			best, bestName = x, st
		}
		if x, ok := ratio.Strategy(0, st); ok && x.Median <= threshold {
			within++
		}
	}
	if bestName != kit.None {
		fmt.Fprintf(w, "Jitter turns the waves into a stream the server can serve: the last device is\nserved after %.1fs with %s jitter, %.1fs without.\n", best.Median, bestName, none.Median)
	}
	if within == 0 {
		fmt.Fprintf(w, "No strategy keeps the peak within %v of the accept budget at this backoff: the\nfirst retries of %d devices land within a fraction of a second, against %v a\nsecond. The fix is a longer base and cap with jitter, as the gate below shows.\n",
			threshold, ratio.Rows[0].Clients, ratio.Scenario.WithDefaults().AcceptRate)
	} else {
		fmt.Fprintf(w, "%d of %d strategies keep the peak within %v of the accept budget.\n", within, len(kit.Strategies()), threshold)
	}
	full, okFull := ratio.Strategy(0, kit.Full)
	noJitter, okNone := ratio.Strategy(0, kit.None)
	if okFull && okNone && full.Low > noJitter.High {
		fmt.Fprintf(w, "%s", whyFullPeaks)
	}
}

// glossary explains the words of the checks' table.
const glossary = `
Reading the checks: CV is the coefficient of variation of the devices'
delays, their spread over their mean: 0 means every device waits alike, full
jitter gives 0.58, and below 0.05 a fleet stays in waves. A warning is a
finding that fails only when asked; inconclusive means the check could not
gather its evidence, and is never a pass.
`
