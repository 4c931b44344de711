package reports

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/sim"
)

// Inconclusive returns the parts of r that could not gather the evidence
// they need, as the verdict's reason names them: the inconclusive checks
// by name, in the order they ran, then "replay" when the replay was
// inconclusive. It is empty when every part reached a verdict.
func (r Report) Inconclusive() []string {
	var parts []string
	for _, c := range r.Checks {
		if c.Status == verdict.Inconclusive {
			parts = append(parts, c.Name)
		}
	}
	if r.Replay != nil && r.Replay.Status == verdict.Inconclusive {
		parts = append(parts, "replay")
	}
	return parts
}

// ErrNoFigures is the error of writing the JSON of a replay that a
// policy's defect stopped before any run's figures: the replay's JSON has
// no shape for none.
var ErrNoFigures = errors.New("the replay stopped before any run's figures")

// WriteJSON writes the replay as sim's JSON (sim.Result.WriteJSON), the
// shape of jitterkit replay --json, naming policy as the replayed policy.
// A stopped replay, or none (a nil Replay), is ErrNoFigures.
func (p *Replay) WriteJSON(w io.Writer, policy string) error {
	if p == nil || p.Stopped != nil {
		return ErrNoFigures
	}
	return p.result().WriteJSON(w, policy)
}

// Strategy returns the cell of row for the built-in strategy s: the column
// of the policy that is a spec of s, found by its name, wherever the
// comparison put it. It reports false when no column is one, or the row
// does not exist.
func (c Comparison) Strategy(row int, s kit.Strategy) (sim.Estimate, bool) {
	if row < 0 || row >= len(c.Rows) {
		return sim.Estimate{}, false
	}
	for i, name := range c.Policies {
		spec, err := kit.ParseSpec(name)
		if err == nil && spec.Strategy == s && i < len(c.Rows[row].Cells) {
			return c.Rows[row].Cells[i], true
		}
	}
	return sim.Estimate{}, false
}

// whyFullPeaks explains why full jitter can peak above no jitter at a short
// base, which surprises a first reader of the table.
const whyFullPeaks = `Full jitter even peaks above no jitter here. Its delays are drawn between 0
and the window, so at a base of 100ms a device may retry several times
within one second, and the early windows are too short to spread 400
devices: more retries land in the busiest second, not fewer. Without jitter
every device retries once per window, in one wave. Jitter spreads a fleet
only over windows longer than the fleet needs to be served.
`

// Reading says in words what a comparison of the built-in strategies on
// one fleet shows, from its peak-ratio and all-served tables (see
// gate.Compare): how much sooner the fastest strategy serves the fleet
// than no jitter, how many strategies keep the peak within the threshold,
// and why full jitter peaks above no jitter when it does. It is "" when cs
// has no such tables, or no column of no jitter.
func Reading(cs []Comparison) string {
	var b strings.Builder
	w := &b
	var ratio, served Comparison
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
		return ""
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
	return b.String()
}
