package reports

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// WriteComparisons writes comparisons as the terminal shows them: the
// scenario they share once, then a table per figure, a row per fleet size
// and a column per policy, each cell the median and its interval:
//
//	storm: 1,000 to 10,000 clients, window 20ms, 5 runs per cell, seed 1
//	policies: base=1s, cap=30s
//
//	peak retry arrivals per window, median [95% interval]
//	  clients                     none            full  ...
//	    1,000     1,000 [1,000, 1,000]     39 [38, 43]  ...
//
// Policies that are all specs of one backoff are headed by their
// strategies, with the backoff said once. Every string is shown through
// Visible.
func WriteComparisons(w io.Writer, cs []Comparison) error {
	var b bytes.Buffer
	writeComparisons(&b, shown(Report{Comparisons: cs}).Comparisons, "")
	_, err := w.Write(b.Bytes())
	return err
}

// writeComparisons writes the comparisons to b, each line after indent.
func writeComparisons(b *bytes.Buffer, cs []Comparison, indent string) {
	var first *Comparison
	for i := range cs {
		if len(cs[i].Rows) > 0 {
			first = &cs[i]
			break
		}
	}
	if first == nil {
		return
	}
	fmt.Fprintf(b, "%s%s\n", indent, comparisonScenario(*first))
	headings, note := columnHeadings(first.Policies)
	if note != "" {
		fmt.Fprintf(b, "%spolicies: %s\n", indent, note)
	}
	if first.Note != "" {
		fmt.Fprintf(b, "%s%s\n", indent, first.Note)
	}
	for _, c := range cs {
		if len(c.Rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s%s, median [%s]\n", indent, withUnit(c.Figure.Label(), unitWord(c.Figure.Unit())), intervalHeading(c.Config.WithDefaults().Level))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "clients"
		if slices.ContainsFunc(c.Rows, func(r ComparisonRow) bool { return r.Budget != "" }) {
			head = "clients, or budget"
		}
		fmt.Fprintf(tw, "%s  %s\t%s\t\n", indent, head, strings.Join(headings, "\t"))
		for _, row := range c.Rows {
			cells := make([]string, len(row.Cells))
			for i := range row.Cells {
				cells[i] = rowCell(c, row, i)
			}
			fmt.Fprintf(tw, "%s  %s\t%s\t\n", indent, row.label(), strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
}

// label names a comparison's row: its fleet size, or the kind of its
// budget and who holds it, "finagle, fleet".
func (r ComparisonRow) label() string {
	if r.Budget == "" {
		return num(float64(r.Clients))
	}
	kind, _, _ := strings.Cut(r.Budget, ":")
	return kind + ", " + string(r.BudgetScope)
}

// comparisonScenario describes the scenario of a comparison in one line:
// the scenario with the span of its fleet sizes (those of the rows
// without a budget of their own), then the runs per cell and the seed.
func comparisonScenario(c Comparison) string {
	var sizes []int
	for _, r := range c.Rows {
		if r.Budget == "" {
			sizes = append(sizes, r.Clients)
		}
	}
	fleet := ""
	if n := len(sizes); n > 1 {
		fleet = fmt.Sprintf("%s to %s clients", num(float64(sizes[0])), num(float64(sizes[n-1])))
	} else if n == 1 {
		fleet = plural(sizes[0], "client")
	}
	cfg := c.Config.WithDefaults()
	return scenarioLine(c.Scenario, fleet, cellRuns(c)+" per cell", fmt.Sprintf("seed %d", cfg.Seed))
}

// cellRuns says how many runs the cells of a comparison made: "20 runs",
// or, when they were of the default runs and some stopped early (see
// ComparisonRow.Runs), "6 to 12 of at most 20 runs".
func cellRuns(c Comparison) string {
	most := c.Config.WithDefaults().Runs
	fewest, made := most, 0
	for _, r := range c.Rows {
		for _, n := range r.Runs {
			fewest, made = min(fewest, n), max(made, n)
		}
	}
	switch {
	case fewest == most:
		return plural(most, "run")
	case fewest == made:
		return fmt.Sprintf("%d of at most %s", fewest, plural(most, "run"))
	}
	return fmt.Sprintf("%d to %d of at most %s", fewest, made, plural(most, "run"))
}

// columnHeadings returns the policies' names, shortened to their
// strategies when every policy is a spec with the same backoff and seed,
// with that backoff as a note.
func columnHeadings(policies []string) (headings []string, note string) {
	headings = slices.Clone(policies)
	if len(policies) < 2 {
		return headings, ""
	}
	var backoff string
	for i, p := range policies {
		spec, err := kit.ParseSpec(p)
		if err != nil || spec.String() != p {
			return policies, ""
		}
		_, rest, _ := strings.Cut(p, ":")
		if i > 0 && rest != backoff {
			return policies, ""
		}
		backoff = rest
		headings[i] = string(spec.Strategy)
	}
	return headings, strings.ReplaceAll(backoff, ",", ", ")
}

// rowCell writes cell i of a comparison's row: "39 [37, 42]" for counts,
// "0.83 [0.80, 0.90]" for ratios, "14.8 [14.1, 15.6]" for seconds; "– (none
// served)" for a time of serving where none was served, and "never" for a
// time to recover that never came.
func rowCell(c Comparison, row ComparisonRow, i int) string {
	switch {
	case row.noValue(c.Figure, i):
		return "– (none served)"
	case neverRecovered(c.Scenario, c.Figure, row.Cells[i]):
		return "never"
	}
	return cell(c.Figure, row.Cells[i])
}

// neverRecovered reports whether e, an estimate of figure f on scenario s,
// is of runs whose median never recovered: a time to recover at the
// horizon.
func neverRecovered(s sim.Scenario, f sim.Figure, e sim.Estimate) bool {
	s = s.WithDefaults()
	return f == sim.RecoveryTime && e.Median >= (s.Horizon-s.RecoveryFrom()).Seconds()
}

// cell formats one estimate of a comparison.
func cell(f sim.Figure, e sim.Estimate) string {
	format := num
	switch {
	case f == sim.PeakRatio:
		format = func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	case f.Unit() == "s":
		format = func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	}
	return fmt.Sprintf("%s [%s, %s]", format(e.Median), format(e.Low), format(e.High))
}
