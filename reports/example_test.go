package reports_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
)

// A report of a policy without jitter: one failed check, a replay of the
// lab's outage that storms, and the advice derived from both.
func ExampleWriteMarkdown() {
	r := reports.Report{
		Verdict:    verdict.Fail,
		Policy:     reports.Policy{Name: "none:base=100ms,cap=10s", Spec: "none:base=100ms,cap=10s", Source: "spec"},
		Scenario:   reports.Scenario{Name: "outage", Clients: 400, AcceptRate: 50, DownS: 2, WindowS: 1, Runs: 1, Threshold: 0.6},
		KitVersion: "v0.1.0",
		Seed:       1,
		Checks: []reports.Check{{
			Name:      "spread",
			Why:       "devices that draw the same delays retry together.",
			Status:    verdict.Fail,
			Detail:    `delays("dev-000000")[1] = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.1)`,
			Figure:    0,
			Threshold: 0.1,
		}},
		Replay: &reports.Replay{
			Status: verdict.Fail,
			Detail: "median peak ratio 24 > 0.6",
			Runs:   []reports.Run{{Seed: 1, AllServedS: 62.7, BusiestWindowArrivals: 1600, PeakRetryArrivals: 1200, PeakRatio: 24, Attempts: 3800, Served: 400, P50ServedS: 22.7, P99ServedS: 62.7}},
			Summary: reports.Summary{
				AllServedS:            reports.Interval{Median: 62.7, Low: 62.7, High: 62.7},
				BusiestWindowArrivals: reports.Interval{Median: 1600, Low: 1600, High: 1600},
				PeakRetryArrivals:     reports.Interval{Median: 1200, Low: 1200, High: 1200},
				PeakRatio:             reports.Interval{Median: 24, Low: 24, High: 24},
				Attempts:              reports.Interval{Median: 3800, Low: 3800, High: 3800},
				Served:                reports.Interval{Median: 400, Low: 400, High: 400},
				P50ServedS:            reports.Interval{Median: 22.7, Low: 22.7, High: 22.7},
				P99ServedS:            reports.Interval{Median: 62.7, Low: 62.7, High: 62.7},
			},
			Histogram: reports.Histogram{WindowS: 1, Budget: 50, Threshold: 30},
		},
	}
	r.Advice = reports.Advise(r)
	if err := reports.WriteMarkdown(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// # jitterkit: FAIL for none:base=100ms,cap=10s
	//
	// - **Verdict:** FAIL
	// - **Policy:** none:base=100ms,cap=10s (spec)
	// - **Scenario:** outage: 400 clients, accept rate 50/s, down 2s, window 1s, 1 run, threshold 0.6
	// - **Seed:** 1 · jitterkit v0.1.0 · schema jitterkit.report/v1
	//
	// ## Checks
	//
	// | Status | Check | Figure | Threshold | Detail |
	// |---|---|--:|--:|---|
	// | **FAIL** | spread | 0 | 0.1 | delays("dev-000000")\[1\] = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.1) |
	//
	// ## Replay
	//
	// **FAIL**: median peak ratio 24 \> 0.6
	//
	// | Figure | Median | Interval |
	// |---|--:|--:|
	// | all served after | 62.7 s | [62.7, 62.7] |
	// | busiest window (all arrivals) | 1,600 | [1,600, 1,600] |
	// | peak retry arrivals per window | 1,200 | [1,200, 1,200] |
	// | peak ratio (retries / accept budget) | 24 | [24, 24] |
	// | attempts | 3,800 | [3,800, 3,800] |
	// | served | 400 | [400, 400] |
	// | gave up | 0 | [0, 0] |
	// | time to success, p50 | 22.7 s | [22.7, 22.7] |
	// | time to success, p99 | 62.7 s | [62.7, 62.7] |
	//
	// 1 run (seed 1). The busiest window counts first attempts too; the peak ratio is the peak of retry arrivals over the window's accept budget of 50.
	//
	// ## What to change
	//
	// - Give each device its own jitter: every device waits the same delays (CV 0, want at least 0.1). Use full or decorrelated jitter, seeded from a stable hash of the device id, not the clock or a constant.
	// - Spread the retries wider (peak ratio 24 \> 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over at least 13.3s, so raise the base toward that, with the cap above it, or use more jitter.
}

// A device id from a recorded trace, as a terminal or a report shows it:
// the escape sequence, the line break and the right-to-left override are
// written out, and a long id is cut with a note of how much is left out.
func ExampleVisible() {
	fmt.Println(reports.Visible("dev-1\x1b[2J\nPASS\u202e", 256))
	fmt.Println(reports.Visible(strings.Repeat("dev-", 5000), 16))
	// Output:
	// dev-1\x1b[2J\nPASS\u202e
	// dev-dev-dev-dev-…(20.0 kB more)
}
