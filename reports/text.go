package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// WriteText writes the terminal summary of r: the verdict and its reason
// in one line first, then a
// table of the checks with the evidence of each failure, the replay's
// figures, and what to change. Every string from r is shown as [Visible]
// shows it, so nothing in r can move the cursor, recolour or clear the
// terminal, or start a line of its own.
func WriteText(w io.Writer, r Report) error {
	return write(w, r, renderText)
}

func renderText(r Report) ([]byte, error) {
	r = shown(r)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s  %s\n", upper(r.Verdict), policyLine(r.Policy))
	fmt.Fprintf(&b, "      %s\n", verdictReason(r))
	if p := r.Replay; p != nil {
		fmt.Fprintf(&b, "      %s\n", replayLine(p))
		if line := budgetLine(p); line != "" {
			fmt.Fprintf(&b, "      %s\n", line)
		}
	}
	fmt.Fprintf(&b, "      seed %d, jitterkit %s\n", r.Seed, r.KitVersion)

	if len(r.Checks) > 0 {
		fmt.Fprintf(&b, "\nchecks\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  status\tcheck\tfigure\tthreshold\tdetail\n")
		for _, c := range r.Checks {
			f, th := checkFigures(c)
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", upper(c.Status), c.Name, f, th, c.Detail)
		}
		tw.Flush()
		for _, c := range r.Checks {
			if x := c.Counterexample; x != nil && c.Status.Finding() {
				fmt.Fprintf(&b, "\n  %s: %s\n", c.Name, counterexampleHead(x))
				n, more := cut(len(x.Devices))
				for _, d := range x.Devices[:n] {
					fmt.Fprintf(&b, "    %s\n", deviceLine(d))
				}
				if more != "" {
					fmt.Fprintf(&b, "    %s\n", more)
				}
				if x.Replay != "" {
					fmt.Fprintf(&b, "    replay: %s\n", x.Replay)
				}
			}
		}
	}

	if p := r.Replay; p != nil {
		fmt.Fprintf(&b, "\nreplay  %s  %s\n", upper(p.Status), p.Detail)
		if x := p.Stopped; x != nil {
			fmt.Fprintf(&b, "  %s\n", counterexampleHead(x))
			for _, d := range x.Devices {
				fmt.Fprintf(&b, "    %s\n", deviceLine(d))
			}
			if x.Replay != "" {
				fmt.Fprintf(&b, "    replay: %s\n", x.Replay)
			}
		} else {
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  figure\tmedian\t%s\n", intervalHeading(p.Config.WithDefaults().Level))
			for _, f := range summaryFigures(p) {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.label, f.median(), f.bounds(false))
			}
			tw.Flush()
			if line := stopLine(p); line != "" {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
	}

	if len(r.Comparisons) > 0 {
		fmt.Fprintf(&b, "\ncomparison\n")
		writeComparisons(&b, r.Comparisons, "  ")
	}

	fmt.Fprintf(&b, "\nwhat to change\n")
	if len(r.Advice) == 0 {
		fmt.Fprintf(&b, "  %s\n", nothingToChange(r))
	}
	for _, a := range r.Advice {
		fmt.Fprintf(&b, "  - %s\n", a)
	}
	return b.Bytes(), nil
}

// counterexampleHead introduces a counterexample: how many devices it
// shows of how many share the finding, and the delay it is about, counting
// from 1 as the checks do: "2 of 1,000 devices, at delay 4".
func counterexampleHead(x *properties.Counterexample) string {
	var parts []string
	switch n := len(x.Devices); {
	case n > 0 && x.Others > 0:
		parts = append(parts, fmt.Sprintf("%d of %s devices", n, num(float64(n+x.Others))))
	case n > 0:
		parts = append(parts, plural(n, "device"))
	}
	if x.Attempt > 0 {
		parts = append(parts, fmt.Sprintf("at delay %d", x.Attempt))
	}
	return strings.Join(parts, ", ")
}

// deviceLine writes a device's id, in quotes, and its delays:
// "dev-000017": 0.1s 0.2s 0.4s. The id is shown as Visible shows it.
func deviceLine(d properties.DeviceDelays) string {
	return `"` + d.ID + `": ` + delayList(d)
}

// delayList writes a device's delays, cut at ten, and its error.
func delayList(d properties.DeviceDelays) string {
	n, more := cut(len(d.Delays))
	var parts []string
	for _, x := range d.Delays[:n] {
		parts = append(parts, kit.FormatApprox(x))
	}
	if more != "" {
		parts = append(parts, more)
	}
	if d.Err != "" {
		parts = append(parts, "("+d.Err+")")
	}
	if len(parts) == 0 {
		return "no delays"
	}
	return strings.Join(parts, " ")
}

// upper writes a status in capitals, as the verdict and the checks' tables
// show it. A status that is not one of verdict's is shown as it is, since
// upper-casing its escapes would change them.
func upper(s verdict.Status) string {
	if !s.Valid() {
		return string(s)
	}
	return strings.ToUpper(string(s))
}

// intervalHeading names the intervals of a confidence level: 0.95 → "95%
// interval"; a level of 0 is not known.
func intervalHeading(l float64) string {
	if l <= 0 {
		return "interval"
	}
	return num(l*100) + "% interval"
}

// plural writes n and the noun (see [prose.Plural]).
func plural(n int, noun string) string { return prose.Plural(n, noun) }

// unitWord names a unit in a heading.
func unitWord(unit string) string {
	if unit == "s" {
		return "(s)"
	}
	return unit
}
