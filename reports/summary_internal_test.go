package reports

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// TestVerdictReason says why a report has its verdict, from the parts
// that decided it, for every verdict and the reports that have none.
func TestVerdictReason(t *testing.T) {
	check := func(name string, s verdict.Status) properties.Result { return properties.Result{Name: name, Status: s} }
	replay := func(s verdict.Status, ratio, high float64) *Replay {
		return &Replay{Status: s, Scenario: sim.Scenario{Kind: sim.Outage, Clients: 5000, AcceptRate: 300, Threshold: 0.6}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: ratio, Low: ratio, High: high}}}
	}
	tests := []struct {
		name string
		r    Report
		want string
	}{
		{"the replay failed", Report{Verdict: verdict.Fail, Checks: []properties.Result{check("spread", verdict.Pass)}, Replay: replay(verdict.Fail, 2.5566, 2.57)},
			"the replay's peak ratio 2.56 is over the 0.6 threshold"},
		{"checks failed", Report{Verdict: verdict.Fail, Checks: []properties.Result{check("spread", verdict.Fail), check("bounds", verdict.Pass), check("cap-phase", verdict.Fail)}},
			"2 checks failed: spread, cap-phase"},
		{"one check failed", Report{Verdict: verdict.Fail, Checks: []properties.Result{check("spread", verdict.Fail)}, Replay: replay(verdict.Pass, 0.5, 0.55)},
			"the spread check failed"},
		{"both failed", Report{Verdict: verdict.Fail, Checks: []properties.Result{check("spread", verdict.Fail)}, Replay: replay(verdict.Fail, 24, 24)},
			"the replay's peak ratio 24 is over the 0.6 threshold, and the spread check failed"},
		{"a defect stopped the replay", Report{Verdict: verdict.Fail, Replay: &Replay{Status: verdict.Fail,
			Stopped: &properties.Counterexample{Attempt: 3, Devices: []properties.DeviceDelays{{ID: "dev-7"}}}}},
			`a defect of the policy stopped the replay at device "dev-7", delay 3`},
		{"an inconclusive check", Report{Verdict: verdict.Inconclusive, Checks: []properties.Result{check("frozen-clock", verdict.Inconclusive), check("spread", verdict.Pass)}},
			"no verdict: the frozen-clock check was inconclusive"},
		{"an inconclusive replay and checks", Report{Verdict: verdict.Inconclusive, Checks: []properties.Result{check("a", verdict.Inconclusive), check("b", verdict.Inconclusive)},
			Replay: &Replay{Status: verdict.Inconclusive}},
			"no verdict: the replay was inconclusive, and 2 checks were inconclusive: a, b"},
		{"every check skipped", Report{Verdict: verdict.Inconclusive, Checks: []properties.Result{check("a", verdict.Skipped)}},
			"no verdict: every check was skipped"},
		{"nothing", Report{Verdict: verdict.Inconclusive}, "no verdict: the report holds no checks and no replay"},
		{"a pass with checks that did not apply", Report{Verdict: verdict.Pass, Checks: []properties.Result{check("spread", verdict.Pass), check("bounds", verdict.Pass), check("frozen-clock", verdict.Skipped)}},
			"2 checks passed and 1 did not apply: frozen-clock"},
		{"a replay whose devices gave up", Report{Verdict: verdict.Pass, Replay: &Replay{Status: verdict.Warn, Scenario: sim.Scenario{Kind: sim.Outage, Clients: 400, Down: time.Minute, Threshold: 0.6}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.42, Low: 0.38, High: 0.42}, sim.GaveUp: {Median: 400, Low: 400, High: 400}}}},
			"the replay's peak ratio 0.42 is within the 0.6 threshold, but 400 of 400 devices gave up before they were served"},
		{"a replay whose devices were still retrying", Report{Verdict: verdict.Pass, Replay: &Replay{Status: verdict.Warn, Scenario: sim.Scenario{Kind: sim.Outage, Clients: 400, Threshold: 0.6}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.42, Low: 0.38, High: 0.42}, sim.Pending: {Median: 12, Low: 3, High: 20}, sim.GaveUp: {Median: 12, Low: 3, High: 20}}}},
			"the replay's peak ratio 0.42 on the default fleet is within the 0.6 threshold, but 12 devices were still retrying at the horizon"},
		{"a replay whose one device of one run gave up", Report{Verdict: verdict.Pass, Replay: &Replay{Status: verdict.Pass, Scenario: sim.Scenario{Kind: sim.Outage, Clients: 400, Threshold: 0.6}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.42, Low: 0.38, High: 0.42}, sim.GaveUp: {Median: 0, Low: 0, High: 1}}}},
			"the replay's peak ratio 0.42 on the default fleet is within the 0.6 threshold"},
		{"a replay whose wide window averages a storm away", Report{Verdict: verdict.Pass, Replay: &Replay{Status: verdict.Warn, Scenario: sim.Scenario{Kind: sim.Outage, Clients: 400, AcceptRate: 100, Window: 6 * time.Minute, Threshold: 0.6}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.15, Low: 0.15, High: 0.16}, sim.PeakRetryArrivals: {Median: 5400, High: 5500},
				sim.PeakRatio1s: {Median: 31.9, Low: 31, High: 32.5}, sim.PeakRetryArrivals1s: {Median: 1597, Low: 1590, High: 1600}}}},
			"the replay's peak ratio 0.15 is within the 0.6 threshold, but a 6m window averages the storm away, which 1s windows show: at 1s the peak ratio is 31.9, over the 0.6 threshold, with up to 1,597 retries in one second"},
		{"a replay without a retry", Report{Verdict: verdict.Inconclusive, Replay: &Replay{Status: verdict.Inconclusive, Scenario: sim.Scenario{Kind: sim.Outage}, Runs: make([]sim.Run, 3),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {}, sim.PeakRetryArrivals: {}}}},
			"no verdict: no device retried within the replay's 1h horizon in the median run, so it has no retries to judge"},
		{"one run within the threshold", Report{Verdict: verdict.Inconclusive, Replay: &Replay{Status: verdict.Inconclusive, Scenario: sim.Scenario{Kind: sim.Outage}, Runs: make([]sim.Run, 1),
			Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.06}, sim.PeakRetryArrivals: {Median: 3, High: 3}}}},
			"no verdict: 1 run cannot pass the replay: one fleet's peak is no interval; want at least 3 runs"},
		{"a warning", Report{Verdict: verdict.Warn, Checks: []properties.Result{check("reproducibility", verdict.Warn), check("spread", verdict.Pass)}},
			"the reproducibility check warned"},
		{"warnings", Report{Verdict: verdict.Warn, Checks: []properties.Result{check("a", verdict.Warn), check("b", verdict.Warn)}},
			"2 checks warned: a, b"},
		{"a pass", Report{Verdict: verdict.Pass, Checks: []properties.Result{check("a", verdict.Pass), check("b", verdict.Pass)}, Replay: replay(verdict.Pass, 0.546, 0.55)},
			"the replay's peak ratio 0.546 is within the 0.6 threshold, and all 2 checks passed"},
		{"a pass with warnings", Report{Verdict: verdict.Pass, Checks: []properties.Result{check("a", verdict.Pass), check("b", verdict.Warn)}, Replay: replay(verdict.Warn, 0.58, 0.62)},
			"the replay's peak ratio 0.58 is within the 0.6 threshold, but its interval reaches 0.62, and 1 check passed and 1 warned: b"},
		{"a replay of the default fleet", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{}, 31.9)},
			"the replay's peak ratio 31.9 on the default fleet is over the 0.6 threshold"},
		{"a replay of the default fleet, described", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{Kind: sim.Outage, Clients: 400, AcceptRate: 50, Down: 2 * time.Second}, 31.9)},
			"the replay's peak ratio 31.9 on the default fleet is over the 0.6 threshold"},
		{"a long outage of the default fleet", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{Kind: sim.LongOutage}, 31.9)},
			"the replay's peak ratio 31.9 on the default fleet is over the 0.6 threshold"},
		{"a storm of the default fleet", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{Kind: sim.Storm, AcceptRate: 500}, 31.9)},
			"the replay's peak ratio 31.9 on the default fleet is over the 0.6 threshold"},
		{"a fleet of its own", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{Clients: 50000}, 31.9)},
			"the replay's peak ratio 31.9 is over the 0.6 threshold"},
		{"a server of its own", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{AcceptRate: 3000}, 31.9)},
			"the replay's peak ratio 31.9 is over the 0.6 threshold"},
		{"an outage of its own", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{Down: time.Minute}, 31.9)},
			"the replay's peak ratio 31.9 is over the 0.6 threshold"},
		{"a recording of 400 devices", Report{Verdict: verdict.Fail, Replay: onFleet(sim.Scenario{IDs: make([]string, 400)}, 31.9)},
			"the replay's peak ratio 31.9 is over the 0.6 threshold"},
		{"a comparison", Report{Verdict: verdict.Pass, Comparisons: []Comparison{{}}},
			"nothing was judged: the report compares policies, with no checks and no replay"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, verdictReason(tt.r), tt.name)
	}
}

// onFleet returns a failed replay of the scenario s, whose peak ratio is
// ratio, after the defaults.
func onFleet(s sim.Scenario, ratio float64) *Replay {
	return &Replay{Status: verdict.Fail, Scenario: s.WithDefaults(), Runs: make([]sim.Run, 3),
		Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: ratio, Low: ratio, High: ratio}}}
}

// TestWhatToChange puts the measured fix first and leaves its sentence out
// of the rest, and otherwise takes the advice in order.
func TestWhatToChange(t *testing.T) {
	fix := Fix{Change: "raise the base from 10s to 50s: full:base=50s,cap=2m", Spec: "full:base=50s,cap=2m",
		PeakRatio: sim.Estimate{Median: 0.546, Low: 0.543, High: 0.55}, AllServed: sim.Estimate{Median: 179.5, Low: 179.3, High: 179.7}}
	r := Report{Fixes: []Fix{fix}}
	r.Advice = []string{fixSentence(fix, true), "Add jitter."}
	ch := whatToChange(r, shown(r))
	assert.Equal(t, "Raise the base from 10s to 50s", ch.First)
	assert.Equal(t, &r.Fixes[0], ch.Fix)
	assert.Equal(t, []string{"Add jitter."}, ch.Rest)
	assert.Equal(t, "full:base=50s,cap=2m", fixPolicy(fix))
	assert.Equal(t, []string{"peak ratio 0.546 [0.543, 0.55], threshold 0.6", "every device served after 179.5 [179.3, 179.7] s"}, fixFigures(fix, 0.6))

	r = Report{Advice: []string{"Add jitter.", "Spread the retries wider."}}
	ch = whatToChange(r, shown(r))
	assert.Equal(t, change{First: "Add jitter.", Rest: []string{"Spread the retries wider."}}, ch)
	assert.Equal(t, change{}, whatToChange(Report{}, Report{}))
}

// TestFindingsFirst orders the checks for a reader: failures, then
// inconclusive checks and warnings, then the rest, each in the order they
// ran.
func TestFindingsFirst(t *testing.T) {
	cs := []properties.Result{{Name: "a", Status: verdict.Pass}, {Name: "b", Status: verdict.Warn}, {Name: "c", Status: verdict.Fail},
		{Name: "d", Status: verdict.Skipped}, {Name: "e", Status: verdict.Inconclusive}, {Name: "f", Status: verdict.Fail}}
	findings, rest := findingsFirst(cs)
	names := func(cs []properties.Result) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	assert.Equal(t, []string{"c", "f", "e", "b"}, names(findings))
	assert.Equal(t, []string{"a", "d"}, names(rest))
	assert.Equal(t, "2 failed, 1 inconclusive, 1 warned, 1 passed, 1 skipped", checkCounts(cs))
}

// TestHistogramScale sets the arrival chart's axis by the retries, the
// budget and the threshold, and cuts a burst of first attempts above them.
func TestHistogramScale(t *testing.T) {
	top, cut := histogramScale([]int{55104, 7000, 100}, []int{5104, 7671, 100}, 3000, 1800)
	assert.Equal(t, 9600.0, top, "the axis: 7,671 retries with room above, rounded up")
	assert.True(t, cut, "the burst of 55,104 arrivals is cut")
	top, cut = histogramScale([]int{1600, 400}, []int{1200, 400}, 50, 30)
	assert.Equal(t, 1800.0, top, "the axis: 1,600 arrivals, less than twice the retries, kept whole")
	assert.False(t, cut)
	top, cut = histogramScale([]int{0, 0}, []int{0, 0}, 0, 0)
	assert.Equal(t, 1.0, top, "an empty chart")
	assert.False(t, cut)
}
