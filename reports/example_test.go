package reports_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// A report of a policy without jitter, built from a real replay of the
// default outage (400 devices, a server that accepts 50 a second and is down for
// the first 2s) and one check: the replay storms, and the advice says why.
func ExampleWriteMarkdown() {
	spec := kit.Spec{Strategy: kit.None}
	res, err := sim.Replay(context.Background(), spec.Factory(), sim.Scenario{}, sim.Config{Runs: 3, Seed: 1})
	if err != nil {
		panic(err)
	}
	r := reports.Report{
		Verdict:    verdict.Fail,
		Policy:     reports.Policy{Name: spec.String(), Spec: spec.String(), Source: "spec"},
		KitVersion: "v0.1.0",
		Seed:       1,
		Checks: []properties.Result{{
			Name:      properties.NameSpread,
			Why:       "devices that draw the same delays retry together.",
			Status:    verdict.Fail,
			Detail:    `delay 1 of "dev-000000" = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.05)`,
			Figure:    0,
			Threshold: 0.05,
			Cause:     properties.NoJitter,
			Remedy:    properties.NoJitter.Remedy(),
		}},
	}
	r.AddReplay(res)
	r.Advice = reports.Advise(r)
	if err := reports.WriteMarkdown(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// # jitterkit: FAIL for none:base=100ms,cap=10s
	//
	// **FAIL**: the replay's peak ratio 24 on the default fleet is over the 0.6 threshold, and the spread check failed.
	//
	// ## What to change first
	//
	// Add jitter: draw each delay at random within its backoff window (full jitter: uniform between 0 and the window; decorrelated: between the base and three times the previous delay), from a generator seeded per device.
	//
	// Also:
	//
	// - Spread the retries wider (peak ratio 24 \> 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over 13.3s at least, so the base must be longer than that, with the cap above it; no change was found that passes.
	//
	// ## Checks: 1 failed
	//
	// | Status | Check | Figure | Threshold | Detail |
	// |---|---|--:|--:|---|
	// | **FAIL** | spread | 0 | 0.05 | delay 1 of "dev-000000" = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.05) |
	//
	// ## Arrivals per window
	//
	// ```mermaid
	// xychart-beta
	//     title "Most retries in one 1s window per 3s, run 2 of 3"
	//     x-axis "time since the failure (s)" [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60]
	//     y-axis "retries per 1s window" 0 --> 1500
	//     bar [1200, 400, 350, 0, 300, 0, 0, 250, 0, 0, 200, 0, 0, 0, 150, 0, 0, 100, 0, 0, 50]
	//     line [50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50]
	//     line [30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30]
	// ```
	//
	// The bars are the retries of run 2 (seed 16860738450190168606), each bar the most in one 1s window within its 3s, up to 1,200; the first attempts are left out. The upper line is the accept budget, 50, the lower the threshold, 0.6 × budget = 30.
	//
	// ## Replay
	//
	// **FAIL**: peak ratio 24.00 \[24.00, 24.00\] \> threshold 0.6: up to 1,200 retries in one 1s window against a budget of 50 (median of 3 runs, 95% CI); busiest window 1,600 arrivals; all served after 62.7s; 3,800 attempts; 400 of 400 served
	//
	// | Figure | Median | 95% interval |
	// |---|--:|--:|
	// | all served, from t=0 | 62.7 s | [62.7, 62.7] s |
	// | busiest window (all arrivals) | 1,600 | [1,600, 1,600] |
	// | peak retry arrivals per window | 1,200 | [1,200, 1,200] |
	// | peak ratio (retries / accept budget) | 24 | [24, 24] |
	// | attempts | 3,800 | [3,800, 3,800] |
	// | served | 400 | [400, 400] |
	// | gave up | 0 | [0, 0] |
	// | time to success, p50 (from t=0 or the firing) | 22.7 s | [22.7, 22.7] s |
	// | time to success, p99 (from t=0 or the firing) | 62.7 s | [62.7, 62.7] s |
	//
	// 3 runs (seeds 1, 16860738450190168606, 16171810823986729605). The busiest window counts first attempts too; the peak ratio is the peak of retry arrivals over the window's accept budget of 50.
	//
	// ---
	//
	// - **Policy:** none:base=100ms,cap=10s (spec)
	// - **Scenario:** outage: 400 clients, accept rate 50/s, down 2s, window 1s, 3 runs, threshold 0.6
	// - **Seed:** 1 · jitterkit v0.1.0 · schema jitterkit.report/v2
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
