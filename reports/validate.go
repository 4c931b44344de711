package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/jitterkit/jitterkit/sim"
)

// prepare returns r ready to render: its schema set when empty, or an error
// naming the first field that cannot be rendered.
func prepare(r Report) (Report, error) {
	if r.Schema == "" {
		r.Schema = schema
	}
	if err := r.validate(); err != nil {
		return Report{}, fmt.Errorf("reports: %w", err)
	}
	return r, nil
}

// validate reports the first number that is not finite and the first
// comparison row whose cells do not match its columns. The names and ids it
// quotes are shown as Visible shows them.
func (r Report) validate() error {
	v := &validator{}
	scenario := func(where string, s sim.Scenario) {
		d := s.WithDefaults()
		v.nums(where, d.AcceptRate, d.Burst, d.Threshold, d.Rate, d.Dip, d.CPU, d.Handshake, d.WarmUp)
	}
	for i, c := range r.Checks {
		name := Visible(c.Name, nameMax)
		v.nums(fmt.Sprintf("checks[%d] (%s)", i, name), c.Figure, c.Threshold)
	}
	if p := r.Replay; p != nil {
		scenario("replay.scenario", p.Scenario)
		v.nums("replay.config.level", p.Config.Level)
		for i, run := range p.Runs {
			v.nums(fmt.Sprintf("replay.runs[%d]", i), run.PeakRatio, run.Amplification, run.AmplificationFromTrigger, run.Goodput)
			if run.Series != nil {
				v.nums(fmt.Sprintf("replay.runs[%d].series.capacity", i), run.Series.Capacity...)
			}
			if len(run.RetryArrivals) > len(run.Arrivals) {
				v.fail("replay.runs[%d]: %d windows of retries but %d of arrivals", i, len(run.RetryArrivals), len(run.Arrivals))
			}
		}
		if len(p.Runs) > 0 && (p.Representative < 0 || p.Representative >= len(p.Runs)) {
			v.fail("replay.representative: run %d of %d", p.Representative, len(p.Runs))
		}
		for _, f := range summaryFigures(p) {
			v.nums("replay.summary."+string(f.key), f.iv.Median, f.iv.Low, f.iv.High)
		}
		for i, b := range p.Baselines {
			for _, f := range slices.Sorted(maps.Keys(b.Summary)) {
				iv := b.Summary[f]
				v.nums(fmt.Sprintf("replay.baselines[%d].summary.%s", i, f), iv.Median, iv.Low, iv.High)
			}
		}
		v.nums("replay.budget", p.Budget(), p.Budget()*p.Scenario.WithDefaults().Threshold)
	}
	for k, c := range r.Comparisons {
		scenario(fmt.Sprintf("comparisons[%d].scenario", k), c.Scenario)
		for i, row := range c.Rows {
			if len(row.Cells) != len(c.Policies) {
				v.fail("comparisons[%d].rows[%d]: %d cells for %d policies", k, i, len(row.Cells), len(c.Policies))
			}
			if len(row.NoneServed) > 0 && len(row.NoneServed) != len(row.Cells) {
				v.fail("comparisons[%d].rows[%d]: %d marks of none served for %d cells", k, i, len(row.NoneServed), len(row.Cells))
			}
			for j, iv := range row.Cells {
				v.nums(fmt.Sprintf("comparisons[%d].rows[%d].cells[%d]", k, i, j), iv.Median, iv.Low, iv.High)
			}
		}
	}
	for i, f := range r.Fixes {
		v.nums(fmt.Sprintf("fixes[%d]", i), f.Scale, f.PeakRatio.Median, f.PeakRatio.Low, f.PeakRatio.High, f.AllServed.Median, f.AllServed.Low, f.AllServed.High)
	}
	for i, a := range r.EarlyDelays {
		v.nums(fmt.Sprintf("early_delays[%d]", i), a.DelaysS...)
	}
	return v.err
}

type validator struct{ err error }

func (v *validator) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf(format, args...)
	}
}

func (v *validator) nums(where string, xs ...float64) {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.fail("%s: value %d is %v; a report holds finite numbers only (write a bad delay as the device's err)", where, i, x)
			return
		}
	}
}
