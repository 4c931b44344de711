package reports

import (
	"fmt"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// AddChecks adds the results of the property checks to r, and the early
// delays for the spread chart. Each result's counterexample is copied, so
// that r's may be changed (its Replay rewritten, say) without changing
// out's.
func (r *Report) AddChecks(out properties.Outcome) {
	for _, res := range out.Results {
		if x := res.Counterexample; x != nil {
			y := *x
			res.Counterexample = &y
		}
		r.Checks = append(r.Checks, res)
	}
	for a, ds := range out.EarlyDelays {
		r.EarlyDelays = append(r.EarlyDelays, AttemptDelays{Attempt: a + 1, DelaysS: inSeconds(ds)})
	}
}

// AddReplay sets r's replay from the result of a fleet replay: its status
// and detail, its scenario and configuration, every run's figures, the
// summary, and which run's histograms the chart draws (the representative
// run, see [sim.Result]). Only that run keeps its histograms in the report.
func (r *Report) AddReplay(res sim.Result) {
	p := &Replay{
		Status:         res.Status(),
		Detail:         res.Detail(),
		Scenario:       res.Scenario,
		Config:         res.Config,
		Stop:           res.Stop,
		Representative: res.Representative,
		Summary:        res.Summary,
		Runs:           slices.Clone(res.Runs),
		Baselines:      res.Baselines,
		TippingPoint:   res.TippingPoint,
		Collapses:      res.Collapses(),
	}
	for i := range p.Runs {
		if i != p.Representative {
			p.Runs[i].Arrivals, p.Runs[i].RetryArrivals = nil, nil
		}
	}
	r.Replay = p
}

// AddStopped sets r's replay to one that a policy's defect stopped: a
// failure naming the device and the attempt, on scenario s replayed with
// cfg. replay, the stopped device's Replay, says how to find it again.
func (r *Report) AddStopped(s sim.Scenario, cfg sim.Config, e *sim.DeviceError, replay string) {
	r.Replay = &Replay{
		Status:   verdict.Fail,
		Detail:   fmt.Sprintf("the replay stopped at device %q, delay %d: %v (%s); want every delay finite and ≥ 0", e.Device, max(e.Attempt-1, 0), e.Err, e.Cause),
		Scenario: s.WithDefaults(),
		Config:   cfg,
		Stopped: &properties.Counterexample{
			Attempt: max(e.Attempt-1, 0), // the delay before attempt n is delay n-1
			Devices: []properties.DeviceDelays{{ID: e.Device, Err: e.Err.Error()}},
			Seed:    e.Seed,
			Replay:  replay,
		},
	}
}

// Histogram returns the arrivals and the retry arrivals per window of the
// representative run, nil when the replay has none.
func (p *Replay) Histogram() (arrivals, retries []int) {
	if p == nil || p.Representative < 0 || p.Representative >= len(p.Runs) {
		return nil, nil
	}
	run := p.Runs[p.Representative]
	return run.Arrivals, run.RetryArrivals
}

// Budget returns the requests the server accepts in one window while it is
// up: the scenario's accept rate times its window.
func (p *Replay) Budget() float64 {
	s := p.Scenario.WithDefaults()
	return s.AcceptRate * s.Window.Seconds()
}

// inSeconds converts delays to seconds, as the report holds them.
func inSeconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}
