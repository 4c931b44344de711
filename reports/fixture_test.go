package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/stretchr/testify/require"
)

// The fixtures are built from real figures: the default outage (400
// clients, 50 accepted per second, down for the first 2 s, base 0.1 s, cap
// 10 s) replayed by sim, and the first delays that kit's strategies draw.

// outage is the default outage: 400 clients against a server that accepts 50
// requests a second and is down for the first 2 s.
var outage = sim.Scenario{Kind: sim.Outage, Clients: 400, AcceptRate: 50, Down: 2 * time.Second}

// fixtureRuns are the replications of the fixtures' replays.
var fixtureRuns = sim.Config{Runs: 5, Seed: 1, RepresentativeOnly: true}

// replay replays f on s with sim, five runs from seed 1, and returns the
// replay as a report holds it.
func replay(f kit.Factory, s sim.Scenario) *reports.Replay {
	res, err := sim.Replay(context.Background(), f, s, fixtureRuns)
	if err != nil {
		panic(err)
	}
	var r reports.Report
	r.AddReplay(res)
	return r.Replay
}

// earlyDelays draws the first n delays of devices dev-000000... with f.
func earlyDelays(f kit.Factory, devices, n int) []reports.AttemptDelays {
	out := make([]reports.AttemptDelays, n)
	for a := range out {
		out[a] = reports.AttemptDelays{Attempt: a + 1, DelaysS: make([]float64, devices)}
	}
	for i := range devices {
		ds, err := kit.Delays(f(kit.Device{ID: fmt.Sprintf("dev-%06d", i), Boot: time.Unix(1_700_000_000, 0)}), n)
		if err != nil {
			panic(err)
		}
		for a, d := range ds {
			out[a].DelaysS[i] = d.Seconds()
		}
	}
	return out
}

// comparison compares the four strategies on the default outage at 400 and
// 1,000 clients, by their peak retry arrivals.
func comparison() reports.Comparison {
	c := reports.Comparison{Figure: sim.PeakRetryArrivals, Scenario: outage, Config: fixtureRuns}
	for _, st := range kit.Strategies() {
		c.Policies = append(c.Policies, fixtureSpec(st).String())
	}
	for _, n := range []int{400, 1000} {
		s := outage
		s.Clients = n
		row := reports.ComparisonRow{Clients: n}
		for _, st := range kit.Strategies() {
			row.Cells = append(row.Cells, replay(fixtureSpec(st).Factory(), s).Summary[sim.PeakRetryArrivals])
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// fixtureSpec is the strategy st with the fixtures' base of 100 ms and cap
// of 10 s.
func fixtureSpec(st kit.Strategy) kit.Spec {
	return kit.Spec{Strategy: st, Base: 100 * time.Millisecond, Cap: 10 * time.Second}
}

// failingReport and passingReport return copies of the fixtures, built
// once: a test may change its copy.
func failingReport() reports.Report { return clone(builtFailing()) }
func passingReport() reports.Report { return clone(builtPassing()) }

var (
	builtFailing = sync.OnceValue(buildFailingReport)
	builtPassing = sync.OnceValue(buildPassingReport)
)

// clone copies r deeply through its JSON, which holds every field exactly.
func clone(r reports.Report) reports.Report {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	var c reports.Report
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return c
}

// buildFailingReport is the gate of no jitter on the default outage: the checks
// that fail for it, its replay, the comparison, the measured fix and its
// advice.
func buildFailingReport() reports.Report {
	spec := fixtureSpec(kit.None)
	r := reports.Report{
		Policy:     reports.Policy{Name: spec.String(), Spec: spec.String(), Source: "spec"},
		KitVersion: "v0.1.0",
		Seed:       1,
		Checks: []properties.Result{
			{
				Name: properties.NameSpread, Why: "devices that draw the same delays retry together and arrive as one wave.",
				Status: verdict.Fail, Figure: 0, Threshold: 0.1, Unit: "CV", Want: "≥",
				Cause: properties.NoJitter, Remedy: properties.NoJitter.Remedy(),
				Detail: `delay 1 of "dev-000000" = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.1)`,
				Counterexample: &properties.Counterexample{
					Attempt: 1,
					Devices: []properties.DeviceDelays{
						{ID: "dev-000000", Delays: seconds(0.1, 0.2, 0.4)},
						{ID: "dev-000001", Delays: seconds(0.1, 0.2, 0.4)},
					},
					Replay: "jitterkit check --policy none:base=100ms,cap=10s --seed 1",
				},
			},
			{
				Name: properties.NameClusters, Why: "a group of devices in lockstep storms as one, however spread the rest are.",
				Status: verdict.Fail, Figure: 1, Threshold: 0.01, Unit: "of the fleet", Want: "≤",
				Cause: properties.NoJitter, Remedy: properties.NoJitter.Remedy(),
				Detail: "1000 of 1000 devices share one sequence of delays; want at most 1% of the fleet",
			},
			{
				Name: properties.NameFrozenClock, Why: "devices powered on by one relay boot in the same second.",
				Status: verdict.Pass, Figure: 0, Threshold: 0.1, Unit: "CV", Want: "≥",
				Detail: "the delays do not depend on the boot instant",
			},
			{
				Name: properties.NameReproducibility, Why: "a device that draws the same delays after a restart can be replayed.",
				Status: verdict.Pass, Figure: 1, Threshold: 1, Unit: "of the devices", Want: "≥",
				Detail: "1000 of 1000 devices drew the same delays twice",
			},
			{
				Name: properties.NameCapPhase, Why: "after a long outage every device has reached its cap, and only jitter keeps them apart.",
				Status: verdict.Fail, Figure: 0, Threshold: 0.1, Unit: "CV", Want: "≥",
				Cause: properties.NoJitter, Remedy: properties.NoJitter.Remedy(),
				Detail: `delay 12 of "dev-000000" = 10s for 1000 of 1000 devices; want spread (CV ≥ 0.1)`,
				Counterexample: &properties.Counterexample{
					Attempt: 12,
					Devices: []properties.DeviceDelays{{ID: "dev-000000", Delays: seconds(0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10, 10, 10, 10, 10)}},
					Replay:  "jitterkit check --policy none:base=100ms,cap=10s --seed 1",
				},
			},
			{
				Name: properties.NameBounds, Why: "a negative, infinite or over-cap delay is a bug that waits for an outage.",
				Status: verdict.Pass, Figure: 0, Threshold: 0, Unit: "bad delays", Want: "≤",
				Detail: "36000 delays, all finite and in [0, 10s]",
			},
		},
		Replay:      replay(spec.Factory(), outage),
		Comparisons: []reports.Comparison{comparison()},
		EarlyDelays: earlyDelays(spec.Factory(), 1000, 3),
		Fixes:       []reports.Fix{fixtureFix()},
	}
	r.Verdict = verdict.Fail
	r.Advice = reports.Advise(r)
	return r
}

// fixtureFix is the change the gate finds for no jitter on the fixtures'
// outage, full jitter with a base and a cap of 30 s, replayed here as the
// gate replays it: on the same scenario with the same runs, where it must
// pass.
func fixtureFix() reports.Fix {
	spec := kit.Spec{Strategy: kit.Full, Base: 30 * time.Second, Cap: 30 * time.Second}
	p := replay(spec.Factory(), outage)
	if p.Status != verdict.Pass {
		panic("the fixture's fix does not pass: " + p.Detail)
	}
	return reports.Fix{
		Change:    "use full jitter and raise the base from 100ms to 30s and the cap from 10s to 30s: " + spec.String(),
		Spec:      spec.String(),
		PeakRatio: p.Summary[sim.PeakRatio],
		AllServed: p.Summary[sim.AllServed],
		Checked:   true,
	}
}

// buildPassingReport is the gate of decorrelated jitter (base 1 s, cap 60 s) on
// the default outage's fleet against a server sized for it, 500 accepted per second:
// every check passes and the median peak ratio, 0.474, is under 0.6.
func buildPassingReport() reports.Report {
	spec := kit.Spec{Strategy: kit.Decorrelated, Base: time.Second, Cap: time.Minute}
	s := outage
	s.AcceptRate = 500
	r := reports.Report{
		Policy:     reports.Policy{Name: "decorrelated", Spec: spec.String(), Source: "spec"},
		KitVersion: "v0.1.0",
		Seed:       7,
		Checks: []properties.Result{
			{Name: properties.NameSpread, Why: "devices that draw the same delays retry together and arrive as one wave.",
				Status: verdict.Pass, Figure: 0.291, Threshold: 0.1, Unit: "CV", Want: "≥", Detail: "CV of delay 1 across 1000 devices = 0.291 ≥ 0.1"},
			{Name: properties.NameReproducibility, Why: "a device that draws the same delays after a restart can be replayed.",
				Status: verdict.Warn, Figure: 1, Threshold: 1, Unit: "of the devices", Want: "≥", Detail: "1000 of 1000 devices drew the same delays twice in one process; not tried across processes"},
		},
		Replay:      replay(spec.Factory(), s),
		EarlyDelays: earlyDelays(spec.Factory(), 1000, 3),
	}
	r.Verdict = verdict.Pass
	r.Advice = reports.Advise(r)
	return r
}

// stormComparison is a table of peak retries in one 20 ms window of a storm
// (every client's first retry after one synchronised failure) for 1,000,
// 10,000 and 100,000 clients under the four strategies, median [95% BCa
// interval], the report that jitterkit compare writes.
func stormComparison() reports.Report {
	s := sim.Scenario{Kind: sim.Storm, Clients: 1000, Window: 20 * time.Millisecond}
	iv := func(m, lo, hi float64) sim.Estimate { return sim.Estimate{Median: m, Low: lo, High: hi} }
	return reports.Report{
		Verdict:    verdict.Pass,
		Policy:     reports.Policy{Name: "the four strategies", Source: "spec"},
		KitVersion: "v0.1.0",
		Seed:       0,
		Comparisons: []reports.Comparison{{
			Figure:   sim.PeakRetryArrivals,
			Scenario: s,
			Config:   sim.Config{Runs: 30},
			Policies: []string{"none", "full", "equal", "decorrelated"},
			Rows: []reports.ComparisonRow{
				{Clients: 1000, Cells: []sim.Estimate{iv(1000, 1000, 1000), iv(39, 37, 42), iv(51, 48, 51), iv(20, 18, 20)}},
				{Clients: 10000, Cells: []sim.Estimate{iv(10000, 10000, 10000), iv(327, 314, 327), iv(438, 431, 439), iv(150, 142, 152)}},
				{Clients: 100000, Cells: []sim.Estimate{iv(100000, 100000, 100000), iv(3148, 3113, 3155), iv(4111, 4100, 4114), iv(1347, 1327, 1357)}},
			},
		}},
	}
}

// hostileReport is a report whose strings hold what a trace, a program or a
// config file can put there: escape sequences, a NUL, a forged line,
// invalid UTF-8, a right-to-left override, markup, and a detail too long to
// show whole.
func hostileReport() reports.Report {
	return reports.Report{
		Verdict:    verdict.Fail,
		Policy:     reports.Policy{Name: "evil\u202egnp.exe", Command: "printf '\\033[2J'; python3 policy.py\n# PASS", Source: "exec"},
		KitVersion: "v0.1.0",
		Seed:       1,
		Checks: []properties.Result{
			{
				Name: "spread\x1b[32m PASS\x1b[0m", Why: "why\tnot\u0085", Status: verdict.Fail, Figure: 0, Threshold: 0.1,
				Detail: "got <b>|x|</b>\nPASS  spread  0.577  0.1  fine",
				Counterexample: &properties.Counterexample{
					Attempt: 1,
					Devices: []properties.DeviceDelays{
						{ID: "dev-\x00\a\b\v\f\r\x7f", Delays: seconds(0.1)},
						{ID: "dev-\xff\xfe\u2066\u200b\ufeff", Delays: seconds(0.2), Err: "program said: \x1b]0;pwned\a" + strings.Repeat("x", 5000)},
					},
					Replay: "jitterkit check --exec 'x\ny'",
				},
			},
			{Name: "bounds", Why: "in bounds", Status: verdict.Pass, Detail: "fine\r\n</failure><testcase name=\"forged\">"},
		},
		Advice: []string{"Fix \"spread\\x1b[32m\": it\u2028broke."},
	}
}

// checkNamed returns the check of r named name, to read or change.
func checkNamed(t testing.TB, r *reports.Report, name string) *properties.Result {
	t.Helper()
	for i := range r.Checks {
		if r.Checks[i].Name == name {
			return &r.Checks[i]
		}
	}
	require.Failf(t, "no such check", "no %s in the report", name)
	return nil
}

// seconds returns delays given in seconds as the durations a
// counterexample holds.
func seconds(s ...float64) []time.Duration {
	ds := make([]time.Duration, len(s))
	for i, x := range s {
		ds[i] = time.Duration(math.Round(x * float64(time.Second)))
	}
	return ds
}
