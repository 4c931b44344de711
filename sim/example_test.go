package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// The zero Scenario is the default outage: 400 devices against a server
// that accepts 50 requests a second and is down for the first 2s. With
// backoff from 100ms to 10s and no jitter it is deterministic: every run
// serves the last of the 400 devices after 62.7s.
func ExampleReplay() {
	f := kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	r, err := sim.Replay(context.Background(), f, sim.Scenario{}, sim.Config{Runs: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	run := r.Runs[0]
	fmt.Printf("all served after %.1fs, busiest second %d arrivals, %d attempts\n",
		run.AllServed.Seconds(), run.BusiestWindowArrivals, run.Attempts)
	fmt.Println(r.Status())
	fmt.Println(r.Detail())
	// Output:
	// all served after 62.7s, busiest second 1600 arrivals, 3800 attempts
	// fail
	// peak ratio 24.00 [24.00, 24.00] > threshold 0.6: up to 1,200 retries in one 1s window against a budget of 50 (median of 5 runs, 95% CI); busiest window 1,600 arrivals; all served after 62.7s; 3,800 attempts; 400 of 400 served
}

// A storm counts retries only: 10,000 devices fail at once and retry ten
// times. Without jitter the whole fleet lands in one 20ms window.
func ExampleReplay_storm() {
	s := sim.Scenario{Kind: sim.Storm, Clients: 10_000, Window: 20 * time.Millisecond, Retries: 10}
	for _, st := range []kit.Strategy{kit.None, kit.Decorrelated} {
		f := kit.Spec{Strategy: st, Base: time.Second, Cap: 30 * time.Second}.Factory()
		r, err := sim.Replay(context.Background(), f, s, sim.Config{Runs: 5})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: peak %.0f retries in one window\n", st, r.Summary[sim.PeakRetryArrivals].Median)
	}
	// Output:
	// none: peak 10000 retries in one window
	// decorrelated: peak 153 retries in one window
}

// A fleet that obeys a constant Retry-After hint retries in lockstep,
// whatever its jitter: all 400 devices come back in the same 10ms.
func ExampleScenario_retryAfter() {
	f := kit.Spec{Strategy: kit.Full}.Factory()
	s := sim.Scenario{Server: sim.RetryAfter, RetryAfter: time.Second, Window: 10 * time.Millisecond}
	r, err := sim.Replay(context.Background(), f, s, sim.Config{Runs: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Runs[0].PeakRetryArrivals)
	// Output:
	// 400
}

// Each server model says in one line what it accepts.
func ExampleServers() {
	for _, s := range sim.Servers() {
		fmt.Printf("%s: %s\n", s, s.Description())
	}
	// Output:
	// per-second: at most the accept rate in each whole second, the first requests to arrive, and none while down
	// token-bucket: a token a request, refilled continuously at the accept rate up to the burst, full when the server comes up, and none while down
	// retry-after: per-second, answering every rejection with a fixed Retry-After hint that the devices obey instead of their policy
}

// Validate refuses a scenario whose run would not fit in memory, saying
// how much it would need: less with a kit.Spec's policies, which the
// replay keeps in a few numbers a device, than with policies it knows
// nothing of yet (nil).
func ExampleScenario_Validate() {
	full := kit.Spec{Strategy: kit.Full}.Factory()
	fmt.Println(sim.Scenario{Clients: 1e9}.Validate(full, sim.Config{}))
	fmt.Println(sim.Scenario{Clients: 1e9}.Validate(nil, sim.Config{}))
	fmt.Println(sim.Scenario{AcceptRate: -5}.Validate(nil, sim.Config{}))
	// Output:
	// sim: 20 runs of 1,000,000,000 clients over 1h0m0s in 1s windows would need about 50.2 GiB, above the memory limit of 4.0 GiB: one run needs 50.2 GiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit
	// sim: 20 runs of 1,000,000,000 clients over 1h0m0s in 1s windows would need about 339.3 GiB, above the memory limit of 4.0 GiB: one run needs 339.3 GiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit
	// sim: accept rate -5 per second is not a positive number
}

// Timers that every device fires on the minute load the server with the
// whole fleet at once, far more than it accepts, which fails whatever the
// policy; offset by a hash of each id, they spread over the minute, and
// the few firings a busy second rejects are re-sent on the policy, whose
// re-sends are what the replay judges.
func ExampleScenario_periodic() {
	f := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, kind := range []sim.Kind{sim.PeriodicAligned, sim.Periodic} {
		s := sim.Scenario{Kind: kind, Clients: 3000, AcceptRate: 60, Period: time.Minute}
		r, err := sim.Replay(context.Background(), f, s, sim.Config{Runs: 3})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: timer load %.1f, peak ratio of the re-sends %.2f: %s\n",
			kind, r.Summary[sim.TimerLoadRatio].Median, r.Summary[sim.PeakRatio].Median, r.Status())
	}
	// Output:
	// periodic-aligned: timer load 50.0, peak ratio of the re-sends 62.03: fail
	// periodic: timer load 1.1, peak ratio of the re-sends 0.07: pass
}

// WriteJSON writes the replay in the shape of `jitterkit replay --json`.
func ExampleResult_WriteJSON() {
	spec := kit.Spec{Strategy: kit.Equal}
	r, err := sim.Replay(context.Background(), spec.Factory(), sim.Scenario{}, sim.Config{Runs: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b, spec.String()); err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		Schema  string
		Policy  string
		Runs    []json.RawMessage
		Summary map[sim.Figure]sim.Estimate
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Schema, doc.Policy, len(doc.Runs), "runs")
	fmt.Printf("all served after %.1fs\n", doc.Summary[sim.AllServed].Median)
	// Output:
	// jitterkit.replay/v1 equal:base=100ms,cap=10s 10 runs
	// all served after 20.5s
}

// printTB prints a test's failures, as the test's output would.
type printTB struct{ testing.TB }

func (printTB) Helper()                           {}
func (printTB) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printTB) Logf(format string, args ...any)   { fmt.Printf(format+"\n", args...) }

// Check fails a test whose policy's peak ratio is over the threshold, with
// the figures in the message. Without jitter, the default outage's 400
// devices retry 1,200 times in their first second, 24 times what the
// server accepts.
func ExampleCheck() {
	var t testing.TB = printTB{} // in a test, its *testing.T
	f := kit.Spec{Strategy: kit.None}.Factory()
	sim.Check(t, f, sim.Scenario{}, sim.Config{Runs: 5})
	// Output:
	// sim.Check: peak ratio 24.00 [24.00, 24.00] > threshold 0.6: up to 1,200 retries in one 1s window against a budget of 50 (median of 5 runs, 95% CI); busiest window 1,600 arrivals; all served after 62.7s; 3,800 attempts; 400 of 400 served
}
