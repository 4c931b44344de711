package reports

import (
	"fmt"
	"math"
)

// prepare returns r ready to render: its schema set when empty, or an error
// naming the first field that cannot be rendered.
func prepare(r Report) (Report, error) {
	if r.Schema == "" {
		r.Schema = Schema
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
	s := r.Scenario
	v.nums("scenario", s.AcceptRate, s.DownS, s.WindowS, s.StartSpreadS, s.HorizonS, s.RetryAfterS, s.Threshold)
	for i, c := range r.Checks {
		name := Visible(c.Name, nameMax)
		v.nums(fmt.Sprintf("checks[%d] (%s)", i, name), c.Figure, c.Threshold)
		if c.Counterexample != nil {
			for _, d := range c.Counterexample.Devices {
				v.nums(fmt.Sprintf(`checks[%d] (%s): device "%s"`, i, name, Visible(d.ID, nameMax)), d.DelaysS...)
			}
		}
	}
	if p := r.Replay; p != nil {
		for i, run := range p.Runs {
			v.nums(fmt.Sprintf("replay.runs[%d]", i), run.AllServedS, run.PeakRatio, run.P50ServedS, run.P99ServedS)
		}
		for _, f := range summaryFigures(p.Summary) {
			v.nums("replay.summary."+f.key, f.iv.Median, f.iv.Low, f.iv.High)
		}
		v.nums("replay.summary.level", p.Summary.Level)
		v.nums("replay.histogram", p.Histogram.WindowS, p.Histogram.Budget, p.Histogram.Threshold)
		if len(p.Histogram.Retries) > len(p.Histogram.Arrivals) {
			v.fail("replay.histogram: %d windows of retries but %d of arrivals", len(p.Histogram.Retries), len(p.Histogram.Arrivals))
		}
	}
	if c := r.Comparison; c != nil {
		for i, row := range c.Rows {
			if len(row.Cells) != len(c.Policies) {
				v.fail("comparison.rows[%d]: %d cells for %d policies", i, len(row.Cells), len(c.Policies))
			}
			for j, iv := range row.Cells {
				v.nums(fmt.Sprintf("comparison.rows[%d].cells[%d]", i, j), iv.Median, iv.Low, iv.High)
			}
		}
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
