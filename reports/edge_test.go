package reports_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestSparseReports renders reports with parts missing or degenerate in
// every format: each renders, and says what it holds.
func TestSparseReports(t *testing.T) {
	tests := []struct {
		name string
		r    reports.Report
		want string // in the text summary
	}{
		{"empty", reports.Report{}, "nothing judged"},
		{"checks only", reports.Report{Verdict: verdict.Pass, Checks: []properties.Result{{Name: "spread", Status: verdict.Pass, Figure: 0.577, Threshold: 0.1}}},
			"nothing: the policy passed every check\n"},
		{"checks too short to judge", reports.Report{Verdict: verdict.Inconclusive, Checks: []properties.Result{{Name: "spread", Status: verdict.Inconclusive, Detail: "ran on 50 of 1,000 devices"}}},
			"nothing found to act on yet"},
		{"a warning without advice", reports.Report{Verdict: verdict.Warn, Checks: []properties.Result{{Name: "reproducibility", Status: verdict.Warn, Detail: "two runs differ"}}},
			"no advice: the findings above carry none"},
		{"a storm replay with no runs", reports.Report{Verdict: verdict.Pass,
			Replay: &reports.Replay{Status: verdict.Pass, Scenario: sim.Scenario{Kind: sim.Storm, Clients: 10}}},
			"storm: 10 clients, window 20ms"},
		{"a replay whose windows are all empty", reports.Report{
			Replay: &reports.Replay{Status: verdict.Pass, Runs: []sim.Run{{Arrivals: []int{0, 0}, RetryArrivals: []int{0, 0}}}}},
			"replay  PASS"},
		{"one fleet size and one policy", reports.Report{Comparisons: []reports.Comparison{{Figure: sim.AllServed, Policies: []string{"full"},
			Rows: []reports.ComparisonRow{{Clients: 400, Cells: []sim.Estimate{{Median: 14.8, Low: 14.2, High: 15.3}}}}}}},
			"14.8 [14.2, 15.3]"},
		{"a comparison where one policy served none", reports.Report{Comparisons: []reports.Comparison{{Figure: sim.AllServed, Policies: []string{"full", "gives up"},
			Rows: []reports.ComparisonRow{{Clients: 400, Cells: []sim.Estimate{{Median: 14.8, Low: 14.2, High: 15.3}, {}}, NoneServed: []bool{false, true}}}}}},
			"– (none served)"},
		{"a comparison with a zero", reports.Report{Comparisons: []reports.Comparison{{Figure: sim.GaveUp, Policies: []string{"a", "b"},
			Rows: []reports.ComparisonRow{{Clients: 1, Cells: []sim.Estimate{{}, {Median: 1000, Low: 900, High: 1100}}}}}}},
			"1,000 [900, 1,100]"},
		{"early delays of one device and none", reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1, DelaysS: []float64{0.1}}, {Attempt: 2}}},
			"what to change"},
		{"early delays only after an attempt no device reached", reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1}, {Attempt: 2, DelaysS: []float64{0.1, 0.3}}}},
			"what to change"},
		{"early delays that no device gave, as of a policy whose every delay was a defect", reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1}, {Attempt: 2}, {Attempt: 3}}},
			"what to change"},
		{"a counterexample of many devices with long lists", reports.Report{Checks: []properties.Result{{Name: "clusters", Status: verdict.Fail,
			Counterexample: &properties.Counterexample{Devices: manyDevices(25, 40)}}}},
			"… and 15 more"},
	}
	for _, tt := range tests {
		for _, w := range writers {
			t.Run(tt.name+"/"+w.ext, func(t *testing.T) {
				var b bytes.Buffer
				require.NoError(t, w.write(&b, tt.r))
				require.NotZero(t, b.Len(), "bytes written")
				if w.ext == "txt" {
					assert.Contains(t, b.String(), tt.want, "the summary")
				}
			})
		}
	}
}

// TestChecksOnlyHasNoScenario pins that a report of the checks alone, as
// jitterkit check writes it, names no scenario in any format meant for
// reading. (The JSON keeps its zero "scenario" object: the schema's keys are
// always there.)
func TestChecksOnlyHasNoScenario(t *testing.T) {
	r := reports.Report{Verdict: verdict.Pass, Policy: reports.Policy{Spec: "full:base=1s,cap=30s"},
		Checks: []properties.Result{{Name: "spread", Status: verdict.Pass, Figure: 0.577, Threshold: 0.05}}}
	for _, w := range writers {
		if w.ext == "json" {
			continue
		}
		var b bytes.Buffer
		require.NoError(t, w.write(&b, r))
		assert.NotContains(t, strings.ToLower(b.String()), "scenario", "%s of a checks-only report names a scenario", w.ext)
		assert.NotContains(t, b.String(), "0 clients", "%s of a checks-only report names a scenario", w.ext)
	}
}

func manyDevices(n, delays int) []properties.DeviceDelays {
	ds := make([]properties.DeviceDelays, n)
	for i := range ds {
		ds[i].ID = "dev-" + strings.Repeat("x", i)
		for j := range delays {
			ds[i].Delays = append(ds[i].Delays, time.Duration(j)*time.Second)
		}
	}
	return ds
}
