package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
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
		{"checks only", reports.Report{Verdict: verdict.Pass, Checks: []reports.Check{{Name: "spread", Status: verdict.Pass, Figure: 0.577, Threshold: 0.1}}},
			"nothing: the policy passed every check\n"},
		{"a replay with no server limit and no windows", reports.Report{Verdict: verdict.Pass,
			Scenario: reports.Scenario{Name: "storm", Clients: 10},
			Replay:   &reports.Replay{Status: verdict.Pass, Histogram: reports.Histogram{}}},
			"accept rate unlimited"},
		{"a replay whose windows are all empty", reports.Report{
			Replay: &reports.Replay{Status: verdict.Pass, Histogram: reports.Histogram{WindowS: 1, Arrivals: []int{0, 0}, Retries: []int{0, 0}, Budget: 5, Threshold: 3}}},
			"replay  PASS"},
		{"one fleet size and one policy", reports.Report{Comparison: &reports.Comparison{Figure: "all_served_s", Policies: []string{"full"},
			Rows: []reports.ComparisonRow{{Clients: 400, Cells: []reports.Interval{{Median: 14.8, Low: 14.2, High: 15.3}}}}}},
			"14.8 [14.2, 15.3]"},
		{"a comparison with a zero", reports.Report{Comparison: &reports.Comparison{Figure: "gave_up", Policies: []string{"a", "b"},
			Rows: []reports.ComparisonRow{{Clients: 1, Cells: []reports.Interval{{}, {Median: 1000, Low: 900, High: 1100}}}}}},
			"1,000 [900, 1,100]"},
		{"early delays of one device and none", reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1, DelaysS: []float64{0.1}}, {Attempt: 2}}},
			"what to change"},
		{"a counterexample of many devices with long lists", reports.Report{Checks: []reports.Check{{Name: "clusters", Status: verdict.Fail,
			Counterexample: &reports.Counterexample{Devices: manyDevices(25, 40)}}}},
			"… and 15 more"},
	}
	for _, tt := range tests {
		for _, w := range writers {
			t.Run(tt.name+"/"+w.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := w.write(&b, tt.r); err != nil {
					t.Fatal(err)
				}
				if b.Len() == 0 {
					t.Fatal("wrote nothing")
				}
				if w.ext == "txt" && !strings.Contains(b.String(), tt.want) {
					t.Errorf("the summary lacks %q:\n%s", tt.want, b.String())
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
		Checks: []reports.Check{{Name: "spread", Status: verdict.Pass, Figure: 0.577, Threshold: 0.05}}}
	for _, w := range writers {
		if w.ext == "json" {
			continue
		}
		var b bytes.Buffer
		if err := w.write(&b, r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(b.String()), "scenario") || strings.Contains(b.String(), "0 clients") {
			t.Errorf("%s of a checks-only report names a scenario:\n%s", w.ext, b.String())
		}
	}
}

func manyDevices(n, delays int) []reports.DeviceDelays {
	ds := make([]reports.DeviceDelays, n)
	for i := range ds {
		ds[i].ID = "dev-" + strings.Repeat("x", i)
		for j := range delays {
			ds[i].DelaysS = append(ds[i].DelaysS, float64(j))
		}
	}
	return ds
}
