package reports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

func TestAdvise(t *testing.T) {
	check := func(name string, status verdict.Status, figure, threshold float64) reports.Check {
		return reports.Check{Name: name, Status: status, Figure: figure, Threshold: threshold, Detail: "what was measured"}
	}
	scenario := sim.Scenario{Kind: sim.Outage, Clients: 400, AcceptRate: 50, Threshold: 0.6}
	replayOn := func(s sim.Scenario, status verdict.Status, ratio, gaveUp float64) *reports.Replay {
		return &reports.Replay{Status: status, Scenario: s, Summary: map[sim.Figure]sim.Estimate{
			sim.PeakRatio: {Median: ratio, Low: ratio, High: ratio},
			sim.GaveUp:    {Median: gaveUp, Low: gaveUp, High: gaveUp},
		}}
	}
	replay := func(status verdict.Status, ratio, gaveUp float64) *reports.Replay {
		return replayOn(scenario, status, ratio, gaveUp)
	}
	tests := []struct {
		name string
		r    reports.Report
		want []string
	}{
		{
			name: "nothing fails",
			r: reports.Report{Replay: replay(verdict.Pass, 0.47, 0),
				Checks: []reports.Check{check(properties.NameSpread, verdict.Pass, 0.577, 0.1), check(properties.NameCapPhase, verdict.Pass, 0.577, 0.1)}},
			want: nil,
		},
		{
			name: "no jitter",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameSpread, verdict.Fail, 0, 0.1)}},
			want: []string{"Give each device its own jitter: every device waits the same delays (CV 0, want at least 0.1). Use full or decorrelated jitter, seeded from a stable hash of the device id, not the clock or a constant."},
		},
		{
			name: "one schedule for every device: the lockstep the other checks find is the same finding",
			r: reports.Report{Checks: []reports.Check{
				check(properties.NameSpread, verdict.Fail, 0, 0.1),
				check(properties.NameClusters, verdict.Fail, 1, 0.01),
				check(properties.NameFrozenClock, verdict.Fail, 0, 0.1),
				check(properties.NameCapPhase, verdict.Fail, 0, 0.1),
			}},
			want: []string{"Give each device its own jitter: every device waits the same delays (CV 0, want at least 0.1). Use full or decorrelated jitter, seeded from a stable hash of the device id, not the clock or a constant."},
		},
		{
			name: "too little jitter",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameSpread, verdict.Fail, 0.0058, 0.1)}},
			want: []string{"Use more jitter, full or decorrelated: the first delays hardly differ across devices (CV 0.0058, want at least 0.1; full jitter gives 0.577)."},
		},
		{
			name: "jitter that vanishes at the cap",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameCapPhase, verdict.Fail, 0, 0.1)}},
			want: []string{"The jitter vanishes at the cap: apply it after capping (cap the window, then draw the delay within it)."},
		},
		{
			name: "added jitter that becomes negligible",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameCapPhase, verdict.Fail, 0.002, 0.1)}},
			want: []string{"The jitter becomes negligible at later attempts (CV 0.002, want at least 0.1): draw it within the whole window, as full or equal jitter do, rather than adding a fixed amount."},
		},
		{
			name: "seeded from the clock",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameFrozenClock, verdict.Fail, 1, 0.01)}},
			want: []string{"Seed from the device id, not the clock: devices that boot in the same second draw the same delays."},
		},
		{
			name: "a warning advises too",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameReproducibility, verdict.Warn, 0.5, 1)}},
			want: []string{"Seed from the device id, so that a device draws the same delays after a restart and a failure can be replayed."},
		},
		{
			name: "lockstep groups",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameClusters, verdict.Fail, 0.25, 0.01), check(properties.NameIDPopulations, verdict.Fail, 9, 3)}},
			want: []string{"Seed each device's generator from a stable hash of its whole id, not a constant or part of the id: groups of devices walk in lockstep (what was measured)."},
		},
		{
			name: "bad delays",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameBounds, verdict.Fail, 3, 0)}},
			want: []string{"Return finite delays between 0 and the cap, and never panic: what was measured."},
		},
		{
			name: "not the declared strategy",
			r:    reports.Report{Checks: []reports.Check{check(properties.NameConformance, verdict.Fail, 0.0001, 0.001)}},
			want: []string{"Make the delays follow the declared strategy, or declare the one they follow: what was measured."},
		},
		{
			name: "a check of another name",
			r:    reports.Report{Checks: []reports.Check{check("latency", verdict.Fail, 9, 1), check("jitter budget", verdict.Pass, 9, 1)}},
			want: []string{`Fix "latency": what was measured.`},
		},
		{
			name: "inconclusive and skipped checks are no finding",
			r: reports.Report{Replay: replay(verdict.Inconclusive, 3, 7), Checks: []reports.Check{
				check(properties.NameSpread, verdict.Inconclusive, 0, 0.1), check(properties.NameFrozenClock, verdict.Skipped, 0, 0.1), check(properties.NameBounds, verdict.Inconclusive, 0, 0)}},
			want: nil,
		},
		{
			name: "the replay storms",
			r:    reports.Report{Replay: replay(verdict.Fail, 0.93, 0)},
			want: []string{"Spread the retries wider (peak ratio 0.93 > 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over at least 13.3s, so raise the base toward that, with the cap above it, or use more jitter."},
		},
		{
			name: "over the threshold though judged a pass",
			r:    reports.Report{Replay: replay(verdict.Pass, 1.5, 0)},
			want: []string{"Spread the retries wider (peak ratio 1.5 > 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over at least 13.3s, so raise the base toward that, with the cap above it, or use more jitter."},
		},
		{
			name: "the replay storms on a scenario without a server limit",
			r:    reports.Report{Replay: replayOn(sim.Scenario{Kind: sim.Storm, Clients: 1000}, verdict.Fail, 2, 0)},
			want: []string{"Spread the retries wider (peak ratio 2 > 0.6): raise the base and the cap, or use more jitter."},
		},
		{
			name: "devices give up",
			r:    reports.Report{Replay: replay(verdict.Pass, 0.4, 12)},
			want: []string{"Allow more retries or a longer horizon: 12 devices gave up before they were served (median over the runs)."},
		},
		{
			name: "one sentence once, in the order of the checks",
			r: reports.Report{Replay: replay(verdict.Fail, 24, 0), Checks: []reports.Check{
				check(properties.NameSpread, verdict.Fail, 0.02, 0.1),
				check(properties.NameCapPhase, verdict.Fail, 0, 0.1),
				check(properties.NameSpread, verdict.Fail, 0.02, 0.1),
			}},
			want: []string{
				"Use more jitter, full or decorrelated: the first delays hardly differ across devices (CV 0.02, want at least 0.1; full jitter gives 0.577).",
				"The jitter vanishes at the cap: apply it after capping (cap the window, then draw the delay within it).",
				"Spread the retries wider (peak ratio 24 > 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over at least 13.3s, so raise the base toward that, with the cap above it, or use more jitter.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reports.Advise(tt.r))
		})
	}
}
