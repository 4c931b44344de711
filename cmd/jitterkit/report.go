package main

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// version is the kit's version in reports: the module's version when the
// binary was built from one, "devel" otherwise.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// newReport starts the report on src, with the scenario o describes.
func newReport(src *source, o *options) reports.Report {
	return reports.Report{
		Policy:     src.reportPolicy(),
		KitVersion: version(),
		Seed:       seedOf(o),
	}
}

// addChecks adds the property checks' results and early delays.
func addChecks(rep *reports.Report, out properties.Outcome) {
	for _, r := range out.Results {
		c := reports.Check{
			Name:      r.Name,
			Why:       r.Why,
			Status:    reports.Status(r.Status),
			Detail:    r.Detail,
			Figure:    r.Figure,
			Threshold: r.Threshold,
		}
		if x := r.Counterexample; x != nil {
			c.Counterexample = &reports.Counterexample{Attempt: x.Attempt, Replay: x.Replay}
			for _, d := range x.Devices {
				c.Counterexample.Devices = append(c.Counterexample.Devices, reports.DeviceDelays{
					ID: d.ID, DelaysS: secondsOf(d.Delays), Err: d.Err,
				})
			}
		}
		rep.Checks = append(rep.Checks, c)
	}
	for a, ds := range out.EarlyDelays {
		rep.EarlyDelays = append(rep.EarlyDelays, reports.AttemptDelays{Attempt: a + 1, DelaysS: secondsOf(ds)})
	}
}

func secondsOf(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// reportScenario describes s, after defaults, run runs times.
func reportScenario(s sim.Scenario, runs int) reports.Scenario {
	s = s.WithDefaults()
	r := reports.Scenario{
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
		r.RetryAfterS = s.RetryAfter.Seconds()
	}
	return r
}

// addReplay adds the replay's figures. A replay that a policy defect
// stopped adds instead a failed check named replay, with the device and the
// attempt, and how to replay that run alone.
func addReplay(rep *reports.Report, o *options, src *source, res sim.Result, failed *sim.DeviceError) {
	if failed != nil {
		rep.Scenario = reportScenario(scenario(o, clientSizes(o)[0]), runsOf(o))
		if src.ids != nil && rep.Scenario.Clients == 0 {
			rep.Scenario.Clients = len(src.ids)
		}
		rep.Checks = append(rep.Checks, reports.Check{
			Name:   "replay",
			Why:    "A policy that fails one device in a replay fails it in the field, in the middle of an outage.",
			Status: reports.Fail,
			Detail: fmt.Sprintf("the replay stopped at device %q, delay before attempt %d: %v (%s); want every delay finite and ≥ 0",
				failed.Device, failed.Attempt, failed.Err, failed.Cause),
			Counterexample: &reports.Counterexample{
				Attempt: max(failed.Attempt-1, 0), // the delay before attempt n is retry n-1's
				Devices: []reports.DeviceDelays{{ID: failed.Device, DelaysS: []float64{}, Err: failed.Err.Error()}},
				Replay:  fmt.Sprintf("jitterkit replay %s --runs 1 --seed %d", sourceFlag(src), failed.Seed),
			},
		})
		return
	}
	rep.Scenario = reportScenario(res.Scenario, res.Config.Runs)
	p := &reports.Replay{
		Status: reports.Status(res.Status()),
		Detail: res.Detail(),
		Summary: reports.Summary{
			Level:                 res.Config.Level,
			AllServedS:            interval(res, "all_served_s"),
			BusiestWindowArrivals: interval(res, "busiest_window_arrivals"),
			PeakRetryArrivals:     interval(res, "peak_retry_arrivals"),
			PeakRatio:             interval(res, "peak_ratio"),
			Attempts:              interval(res, "attempts"),
			Served:                interval(res, "served"),
			GaveUp:                interval(res, "gave_up"),
			P50ServedS:            interval(res, "p50_served_s"),
			P99ServedS:            interval(res, "p99_served_s"),
		},
	}
	for _, r := range res.Runs {
		p.Runs = append(p.Runs, reports.Run{
			Seed:                  r.Seed,
			AllServedS:            r.AllServed.Seconds(),
			BusiestWindowArrivals: r.BusiestWindowArrivals,
			PeakRetryArrivals:     r.PeakRetryArrivals,
			PeakRatio:             r.PeakRatio,
			Attempts:              r.Attempts,
			Served:                r.Served,
			GaveUp:                r.GaveUp,
			P50ServedS:            r.P50.Seconds(),
			P99ServedS:            r.P99.Seconds(),
		})
	}
	if len(res.Runs) > 0 {
		r := representative(res.Runs)
		s := res.Scenario
		budget := s.AcceptRate * s.Window.Seconds()
		p.Histogram = reports.Histogram{
			Seed:      r.Seed,
			WindowS:   s.Window.Seconds(),
			Arrivals:  r.Arrivals,
			Retries:   r.RetryArrivals,
			Budget:    budget,
			Threshold: s.Threshold * budget,
		}
	}
	rep.Replay = p
}

func interval(res sim.Result, figure string) reports.Interval {
	e := res.Summary[figure]
	return reports.Interval{Median: e.Median, Low: e.Low, High: e.High}
}

// representative returns the run whose peak of retry arrivals is the
// median run's: the lower median, the first such run by seed order.
func representative(runs []sim.Run) sim.Run {
	order := slices.Clone(runs)
	slices.SortStableFunc(order, func(a, b sim.Run) int { return cmp.Compare(a.PeakRetryArrivals, b.PeakRetryArrivals) })
	return order[(len(order)-1)/2]
}

// runsOf returns the number of runs o asks for, after the default.
func runsOf(o *options) int {
	if o.runs > 0 {
		return o.runs
	}
	return sim.DefaultRuns
}

// sourceFlag writes the flag that names src, quoted for a shell.
func sourceFlag(src *source) string {
	switch src.kind {
	case "exec":
		return "--exec " + shellQuote(src.name)
	case "trace":
		return "--trace " + shellQuote(src.name)
	}
	return "--policy " + shellQuote(src.name)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=/+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
