package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// headlines returns the figures a comparison on scenario kind shows: the
// peak of retry arrivals for a storm, as the storm study tables it; the
// peak ratio and the time until all are served otherwise.
func headlines(kind sim.Kind) []string {
	if kind == sim.Storm {
		return []string{"peak_retry_arrivals"}
	}
	return []string{"peak_ratio", "all_served_s"}
}

// builtinSpecs returns the four built-in strategies with the backoff of
// src when it is a spec, else base 100ms (1s in a storm) and o's cap or 10s
// (30s in a storm).
func builtinSpecs(src *source, o *options) []kit.Spec {
	base, cap := kit.DefaultBase, kit.DefaultCap
	if o.scenario == sim.Storm {
		base, cap = stormBase, stormCap
	}
	if o.cap > 0 {
		cap = o.cap
	}
	if src != nil && src.spec != nil {
		if src.spec.Base > 0 {
			base = src.spec.Base
		}
		cap = specCap(*src.spec)
	}
	var specs []kit.Spec
	for _, st := range kit.Strategies() {
		specs = append(specs, kit.Spec{Strategy: st, Base: base, Cap: cap})
	}
	return specs
}

// specSources returns a source for each spec.
func specSources(specs []kit.Spec) []*source {
	out := make([]*source, len(specs))
	for i, s := range specs {
		spec := s
		out[i] = &source{name: spec.String(), kind: "spec", factory: spec.Factory(), spec: &spec}
	}
	return out
}

// builtinComparison sets the gate's policy, whose replay is res, beside
// the four built-in strategies on the same scenario.
func builtinComparison(e *env, o *options, src *source, res sim.Result) (*reports.Comparison, error) {
	figure := headlines(res.Scenario.Kind)[0]
	c := &reports.Comparison{
		Figure:   figure,
		Scenario: reports.ScenarioOf(res.Scenario, res.Config.Runs),
	}
	row := reports.ComparisonRow{Clients: res.Scenario.Clients}
	if len(res.Runs) > 0 {
		c.Policies = append(c.Policies, src.name)
		row.Cells = append(row.Cells, reports.IntervalOf(res, figure))
	}
	for _, b := range specSources(builtinSpecs(src, o)) {
		if src.spec != nil && b.name == src.spec.String() {
			continue
		}
		r, failed, err := runReplay(e, o, b, res.Scenario.Clients)
		if err != nil {
			return nil, err
		}
		if failed != nil {
			return nil, kitError(fmt.Errorf("built-in %s: %w", b.name, failed))
		}
		c.Policies = append(c.Policies, b.name)
		row.Cells = append(row.Cells, reports.IntervalOf(r, figure))
	}
	c.Rows = []reports.ComparisonRow{row}
	return c, nil
}

// compare replays every policy o names, or the four built-in strategies,
// at every fleet size, and prints a table per headline figure.
func compare(e *env, o *options) error {
	srcs, err := openSources(e.ctx, o)
	defer closeAll(srcs)
	if err != nil {
		return err
	}
	if len(srcs) == 0 {
		srcs = specSources(builtinSpecs(nil, o))
	}
	tables, err := comparisons(e, o, srcs)
	if err != nil {
		return err
	}
	if err := closeAll(srcs); err != nil {
		return inputError(err)
	}
	writeComparisons(e.stdout, o, srcs, tables)
	return nil
}

// comparisons replays each source at each of o's fleet sizes and returns a
// comparison per headline figure.
func comparisons(e *env, o *options, srcs []*source) ([]*reports.Comparison, error) {
	figures := headlines(o.scenario)
	var tables []*reports.Comparison
	for _, f := range figures {
		c := &reports.Comparison{Figure: f}
		for _, s := range srcs {
			c.Policies = append(c.Policies, s.name)
		}
		tables = append(tables, c)
	}
	for _, n := range clientSizes(o) {
		rows := make([]reports.ComparisonRow, len(figures))
		for _, s := range srcs {
			res, failed, err := runReplay(e, o, s, n)
			if err != nil {
				return nil, err
			}
			if failed != nil {
				return nil, &exitError{exitFail, fmt.Errorf("%s: the replay stopped: %s", s.name, trimSim(failed.Error()))}
			}
			for i, f := range figures {
				rows[i].Clients = res.Scenario.Clients
				rows[i].Cells = append(rows[i].Cells, reports.IntervalOf(res, f))
				tables[i].Scenario = reports.ScenarioOf(res.Scenario, res.Config.Runs)
			}
		}
		for i := range tables {
			tables[i].Rows = append(tables[i].Rows, rows[i])
		}
	}
	return tables, nil
}

// writeComparisons prints the tables: the scenario, then per figure a row
// per fleet size and a column per policy.
func writeComparisons(w io.Writer, o *options, srcs []*source, tables []*reports.Comparison) {
	s := tables[0].Scenario
	fleet := group(strconv.Itoa(s.Clients)) + " clients"
	if rows := tables[0].Rows; len(rows) > 1 {
		fleet = fmt.Sprintf("%s to %s clients", group(strconv.Itoa(rows[0].Clients)), group(strconv.Itoa(rows[len(rows)-1].Clients)))
	}
	fmt.Fprintf(w, "%s: %s, %s, %d runs per cell, seed %d\n", s.Name, fleet, scenarioWords(s), s.Runs, seedOf(o))
	headings, note := columnHeadings(srcs)
	if note != "" {
		fmt.Fprintf(w, "policies: %s\n", note)
	}
	for _, c := range tables {
		fmt.Fprintf(w, "\n%s, median [95%% interval]\n", figureTitle(c.Figure))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "clients\t%s\t\n", strings.Join(headings, "\t"))
		for _, row := range c.Rows {
			cells := make([]string, len(row.Cells))
			for i, iv := range row.Cells {
				cells[i] = formatInterval(c.Figure, iv)
			}
			fmt.Fprintf(tw, "%s\t%s\t\n", group(strconv.Itoa(row.Clients)), strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
}

// columnHeadings returns the policies' names, shortened to their
// strategies when every policy is a spec with the same backoff, with that
// backoff as a note.
func columnHeadings(srcs []*source) (headings []string, note string) {
	same := true
	for _, s := range srcs {
		same = same && s.spec != nil && s.spec.Seed == srcs[0].spec.Seed &&
			strings.TrimPrefix(s.spec.String(), string(s.spec.Strategy)) == strings.TrimPrefix(srcs[0].spec.String(), string(srcs[0].spec.Strategy))
		headings = append(headings, reports.Visible(s.name, 64))
	}
	if !same || len(srcs) < 2 {
		return headings, ""
	}
	for i, s := range srcs {
		headings[i] = string(s.spec.Strategy)
	}
	_, backoff, _ := strings.Cut(srcs[0].spec.String(), ":")
	return headings, strings.ReplaceAll(backoff, ",", ", ")
}

// scenarioWords describes a scenario's server and window. A storm has no
// server.
func scenarioWords(s reports.Scenario) string {
	var parts []string
	if s.Name != string(sim.Storm) {
		parts = append(parts, "accept rate "+formatNumber(s.AcceptRate)+"/s")
	}
	if s.DownS > 0 {
		parts = append(parts, "down "+kit.FormatDuration(time.Duration(s.DownS*1e9)))
	}
	parts = append(parts, "window "+kit.FormatDuration(time.Duration(s.WindowS*1e9)))
	if s.RetryAfterS > 0 {
		parts = append(parts, "Retry-After "+kit.FormatDuration(time.Duration(s.RetryAfterS*1e9)))
	}
	return strings.Join(parts, ", ")
}

// figureTitle names a figure in a table's title.
func figureTitle(figure string) string {
	switch figure {
	case "peak_retry_arrivals":
		return "peak retry arrivals in one window"
	case "peak_ratio":
		return "peak ratio (peak retry arrivals per window / accept budget)"
	case "all_served_s":
		return "all served after (s)"
	}
	return strings.ReplaceAll(figure, "_", " ")
}

// formatInterval writes a cell: "39 [37, 42]" for counts, "0.83 [0.8,
// 0.9]" for ratios, "14.8 [14.1, 15.6]" for seconds.
func formatInterval(figure string, iv reports.Interval) string {
	f := formatNumber
	switch figure {
	case "peak_ratio":
		f = func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	case "all_served_s":
		f = func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	}
	return fmt.Sprintf("%s [%s, %s]", f(iv.Median), f(iv.Low), f(iv.High))
}

// formatNumber writes whole numbers with thousands separators, others of
// 100 or more with one decimal, and smaller ones with up to three
// significant digits.
func formatNumber(x float64) string {
	switch {
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return group(strconv.FormatFloat(x, 'f', 0, 64))
	case math.Abs(x) >= 100 && math.Abs(x) < 1e15:
		whole, frac, _ := strings.Cut(strconv.FormatFloat(x, 'f', 1, 64), ".")
		return group(whole) + "." + frac
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// group puts a comma between each three digits of a whole number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// trimSim drops the package prefix from a sim error.
func trimSim(s string) string { return strings.TrimPrefix(s, "sim: ") }
