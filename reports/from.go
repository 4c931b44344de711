package reports

import (
	"cmp"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// AddChecks adds the results of the property checks to r: one Check per
// result, with its counterexample, and the early delays for the spread
// chart.
func (r *Report) AddChecks(out properties.Outcome) {
	for _, res := range out.Results {
		c := Check{
			Name:      res.Name,
			Why:       res.Why,
			Status:    res.Status,
			Detail:    res.Detail,
			Figure:    res.Figure,
			Threshold: res.Threshold,
		}
		if x := res.Counterexample; x != nil {
			c.Counterexample = &Counterexample{Attempt: x.Attempt, Replay: x.Replay}
			for _, d := range x.Devices {
				c.Counterexample.Devices = append(c.Counterexample.Devices, DeviceDelays{
					ID: d.ID, DelaysS: inSeconds(d.Delays), Err: d.Err,
				})
			}
		}
		r.Checks = append(r.Checks, c)
	}
	for a, ds := range out.EarlyDelays {
		r.EarlyDelays = append(r.EarlyDelays, AttemptDelays{Attempt: a + 1, DelaysS: inSeconds(ds)})
	}
}

// AddReplay sets r's scenario and replay from the result of a fleet
// replay: its status and detail, every run's figures, the summary, and the
// arrival histogram of the representative run, the one whose peak of retry
// arrivals is the median run's.
func (r *Report) AddReplay(res sim.Result) {
	r.Scenario = ScenarioOf(res.Scenario, res.Config.Runs)
	p := &Replay{
		Status: verdict.Status(res.Status()),
		Detail: res.Detail(),
		Summary: Summary{
			Level:                 res.Config.Level,
			AllServedS:            IntervalOf(res, "all_served_s"),
			BusiestWindowArrivals: IntervalOf(res, "busiest_window_arrivals"),
			PeakRetryArrivals:     IntervalOf(res, "peak_retry_arrivals"),
			PeakRatio:             IntervalOf(res, "peak_ratio"),
			Attempts:              IntervalOf(res, "attempts"),
			Served:                IntervalOf(res, "served"),
			GaveUp:                IntervalOf(res, "gave_up"),
			P50ServedS:            IntervalOf(res, "p50_served_s"),
			P99ServedS:            IntervalOf(res, "p99_served_s"),
		},
	}
	for _, run := range res.Runs {
		p.Runs = append(p.Runs, Run{
			Seed:                  run.Seed,
			AllServedS:            run.AllServed.Seconds(),
			BusiestWindowArrivals: run.BusiestWindowArrivals,
			PeakRetryArrivals:     run.PeakRetryArrivals,
			PeakRatio:             run.PeakRatio,
			Attempts:              run.Attempts,
			Served:                run.Served,
			GaveUp:                run.GaveUp,
			P50ServedS:            run.P50.Seconds(),
			P99ServedS:            run.P99.Seconds(),
		})
	}
	if len(res.Runs) > 0 {
		run := representative(res.Runs)
		s := res.Scenario.WithDefaults()
		budget := s.AcceptRate * s.Window.Seconds()
		p.Histogram = Histogram{
			Seed:      run.Seed,
			WindowS:   s.Window.Seconds(),
			Arrivals:  run.Arrivals,
			Retries:   run.RetryArrivals,
			Budget:    budget,
			Threshold: s.Threshold * budget,
		}
	}
	r.Replay = p
}

// ScenarioOf describes s, after its defaults, replayed runs times.
func ScenarioOf(s sim.Scenario, runs int) Scenario {
	s = s.WithDefaults()
	out := Scenario{
		Name:         string(s.Kind),
		Clients:      s.Clients,
		AcceptRate:   s.AcceptRate,
		DownS:        s.Down.Seconds(),
		WindowS:      s.Window.Seconds(),
		StartSpreadS: s.StartSpread.Seconds(),
		HorizonS:     s.Horizon.Seconds(),
		Runs:         runs,
		Threshold:    s.Threshold,
	}
	if s.Server == sim.RetryAfter {
		out.RetryAfterS = s.RetryAfter.Seconds()
	}
	return out
}

// IntervalOf returns the median and interval of one of res's figures, named
// as [sim.Figures] names them.
func IntervalOf(res sim.Result, figure string) Interval {
	e := res.Summary[figure]
	return Interval{Median: e.Median, Low: e.Low, High: e.High}
}

// representative returns the run whose peak of retry arrivals is the
// median run's: the lower median, the first such run by seed order.
func representative(runs []sim.Run) sim.Run {
	order := slices.Clone(runs)
	slices.SortStableFunc(order, func(a, b sim.Run) int { return cmp.Compare(a.PeakRetryArrivals, b.PeakRetryArrivals) })
	return order[(len(order)-1)/2]
}

// inSeconds converts delays to seconds, as the report holds them.
func inSeconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}
