package main

import (
	"fmt"
	"io"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
)

// demoSpec is the default policy the demo gates: the guide's fix for the
// lab's storm, decorrelated jitter with a base long enough to spread the
// first retries of 400 devices below the threshold.
var demoSpec = kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 300 * time.Second}

// demo shows the main job on the lab's scenario (400 clients, a server
// accepting 50 a second, down for 2s): the four strategies side by side on
// the lab's backoff, then a gate of the default policy. Its exit code is
// the gate's verdict, as for jitterkit gate.
func demo(e *env) error {
	o := &options{command: "gate", given: map[string]bool{}}
	fmt.Fprintf(e.stdout, "jitterkit: does a retry policy's jitter de-synchronise a fleet?\n\n")
	fmt.Fprintf(e.stdout, "1. The four strategies, each replayed on fleets that fail together.\n\n")
	srcs := specSources(builtinSpecs(nil, o))
	tables, err := comparisons(e, o, srcs)
	if err != nil {
		return err
	}
	writeComparisons(e.stdout, o, srcs, tables)
	fmt.Fprintln(e.stdout)
	reading(e.stdout, srcs, tables)

	fmt.Fprintf(e.stdout, "\n2. A gate of %s: the property checks and the replay, one verdict.\n\n", demoSpec)
	o.policies, o.specs = []string{demoSpec.String()}, []kit.Spec{demoSpec}
	err = evaluate(e, o, steps{checks: true, replay: true})
	fmt.Fprintf(e.stdout, "\nNext: jitterkit gate --policy SPEC (or --exec CMD, --trace FILE); see \"jitterkit help\".\n")
	return err
}

// reading says in words what the demo's comparison shows: how much sooner
// the fastest strategy serves the fleet than no jitter, and how many
// strategies keep the peak within the threshold.
func reading(w io.Writer, srcs []*source, tables []*reports.Comparison) {
	var ratio, served *reports.Comparison
	for _, c := range tables {
		switch c.Figure {
		case "peak_ratio":
			ratio = c
		case "all_served_s":
			served = c
		}
	}
	if ratio == nil || served == nil || len(served.Rows) == 0 {
		return
	}
	cells := served.Rows[0].Cells
	none, best := -1, 0
	for i, s := range srcs {
		if s.spec.Strategy == kit.None {
			none = i
		}
		if cells[i].Median < cells[best].Median {
			best = i
		}
	}
	if none >= 0 && best != none {
		fmt.Fprintf(w, "Jitter turns the waves into a stream the server can serve: the last device is\nserved after %.1fs with %s jitter, %.1fs without.\n",
			cells[best].Median, srcs[best].spec.Strategy, cells[none].Median)
	}
	threshold := ratio.Scenario.Threshold
	within := 0
	for _, iv := range ratio.Rows[0].Cells {
		if iv.Median <= threshold {
			within++
		}
	}
	if within == 0 {
		fmt.Fprintf(w, "No strategy keeps the peak within %v of the accept budget at this backoff: the\nfirst retries of %d devices land within a fraction of a second, against %v a\nsecond. The fix is a longer base and cap with jitter, as the gate below shows.\n",
			threshold, ratio.Rows[0].Clients, ratio.Scenario.AcceptRate)
	} else {
		fmt.Fprintf(w, "%d of %d strategies keep the peak within %v of the accept budget.\n", within, len(srcs), threshold)
	}
}
