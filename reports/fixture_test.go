package reports_test

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
)

// The fixtures are built from real figures: the lab's scenario of seed 001
// (400 clients, 50 accepted per second, down for the first 2 s, base 0.1 s,
// cap 10 s) replayed by labReplay, a transcription of the lab's script onto
// kit's policies, and the first delays that kit's strategies draw.

// lab is the scenario of the lab, seed 001.
var lab = reports.Scenario{
	Name: "outage", Clients: 400, AcceptRate: 50, DownS: 2, WindowS: 1,
	StartSpreadS: 0.01, HorizonS: 3600, Runs: 5, Threshold: 0.6,
}

// labReplay replays the lab's model: clients fail together, their first
// attempts spread over StartSpreadS; the server accepts at most AcceptRate
// attempts in each whole second and none while down; a rejected device asks
// its policy for the next delay. It returns the run's figures and its
// arrival histogram.
func labReplay(f kit.Factory, s reports.Scenario, seed uint64) (reports.Run, reports.Histogram) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	policies := make([]kit.Policy, s.Clients)
	q := make(events, s.Clients)
	for i := range policies {
		policies[i] = f(kit.Device{ID: fmt.Sprintf("dev-%06d", i), Boot: time.Unix(1_700_000_000, 0)})
		q[i] = event{t: rng.Float64() * s.StartSpreadS, device: i}
	}
	heap.Init(&q)
	run := reports.Run{Seed: seed}
	var arrivals, retries []int
	accepted := map[int]int{}
	var servedAt []float64
	for q.Len() > 0 {
		e := heap.Pop(&q).(event)
		if e.t > s.HorizonS {
			break
		}
		run.Attempts++
		w := int(e.t / s.WindowS)
		for len(arrivals) <= w {
			arrivals, retries = append(arrivals, 0), append(retries, 0)
		}
		arrivals[w]++
		if e.retry > 0 {
			retries[w]++
		}
		sec := int(e.t)
		if e.t >= s.DownS && float64(accepted[sec]) < s.AcceptRate {
			accepted[sec]++
			servedAt = append(servedAt, e.t)
			continue
		}
		d, err := policies[e.device].Next()
		if err != nil {
			run.GaveUp++
			continue
		}
		heap.Push(&q, event{t: e.t + d.Seconds(), device: e.device, retry: e.retry + 1})
	}
	slices.Sort(servedAt)
	run.Served = len(servedAt)
	run.AllServedS = servedAt[len(servedAt)-1]
	run.P50ServedS = servedAt[(len(servedAt)-1)/2]
	run.P99ServedS = servedAt[int(math.Ceil(0.99*float64(len(servedAt))))-1]
	run.BusiestWindowArrivals = slices.Max(arrivals)
	run.PeakRetryArrivals = slices.Max(retries)
	budget := s.AcceptRate * s.WindowS
	run.PeakRatio = float64(run.PeakRetryArrivals) / budget
	return run, reports.Histogram{
		Seed: seed, WindowS: s.WindowS, Arrivals: arrivals, Retries: retries,
		Budget: budget, Threshold: s.Threshold * budget,
	}
}

type event struct {
	t      float64
	device int
	retry  int
}

type events []event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].device < q[j].device
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// median returns the median of xs and, as its interval, the smallest and
// the largest: for n runs, the probability that the median of the
// distribution lies outside [min, max] is 2·(1/2)ⁿ, so five runs give a
// 93.75% interval.
func median(xs []float64) reports.Interval {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return reports.Interval{Median: m, Low: s[0], High: s[len(s)-1]}
}

// replay runs the lab's replay s.Runs times with seeds 1, 2, ... and
// summarises it; the histogram is the first run's.
func replay(f kit.Factory, s reports.Scenario) *reports.Replay {
	p := &reports.Replay{}
	for i := range s.Runs {
		run, h := labReplay(f, s, uint64(i+1))
		p.Runs = append(p.Runs, run)
		if i == 0 {
			p.Histogram = h
		}
	}
	figure := func(get func(reports.Run) float64) reports.Interval {
		xs := make([]float64, len(p.Runs))
		for i, r := range p.Runs {
			xs[i] = get(r)
		}
		return median(xs)
	}
	p.Summary = reports.Summary{
		Level:                 1 - 2*math.Pow(0.5, float64(s.Runs)),
		AllServedS:            figure(func(r reports.Run) float64 { return r.AllServedS }),
		BusiestWindowArrivals: figure(func(r reports.Run) float64 { return float64(r.BusiestWindowArrivals) }),
		PeakRetryArrivals:     figure(func(r reports.Run) float64 { return float64(r.PeakRetryArrivals) }),
		PeakRatio:             figure(func(r reports.Run) float64 { return r.PeakRatio }),
		Attempts:              figure(func(r reports.Run) float64 { return float64(r.Attempts) }),
		Served:                figure(func(r reports.Run) float64 { return float64(r.Served) }),
		GaveUp:                figure(func(r reports.Run) float64 { return float64(r.GaveUp) }),
		P50ServedS:            figure(func(r reports.Run) float64 { return r.P50ServedS }),
		P99ServedS:            figure(func(r reports.Run) float64 { return r.P99ServedS }),
	}
	p.Status = reports.Pass
	p.Detail = fmt.Sprintf("median peak ratio %s ≤ %s", fmtFloat(p.Summary.PeakRatio.Median), fmtFloat(s.Threshold))
	if p.Summary.PeakRatio.Median > s.Threshold {
		p.Status = reports.Fail
		p.Detail = fmt.Sprintf("median peak ratio %s > %s: %s retries in one window against an accept budget of %s",
			fmtFloat(p.Summary.PeakRatio.Median), fmtFloat(s.Threshold),
			fmtFloat(p.Summary.PeakRetryArrivals.Median), fmtFloat(p.Histogram.Budget))
	}
	return p
}

func fmtFloat(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.3g", x)
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

// comparison compares the four strategies on the lab's scenario at 400 and
// 1,000 clients, by their peak retry arrivals.
func comparison() *reports.Comparison {
	c := &reports.Comparison{Figure: "peak_retry_arrivals", Scenario: lab}
	for _, st := range kit.Strategies() {
		c.Policies = append(c.Policies, labSpec(st).String())
	}
	for _, n := range []int{400, 1000} {
		s := lab
		s.Clients = n
		row := reports.ComparisonRow{Clients: n}
		for _, st := range kit.Strategies() {
			row.Cells = append(row.Cells, replay(labSpec(st).Factory(), s).Summary.PeakRetryArrivals)
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

func labSpec(st kit.Strategy) kit.Spec {
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

// buildFailingReport is the gate of no jitter on the lab's scenario: the checks
// that fail for it, its replay, the comparison and its advice.
func buildFailingReport() reports.Report {
	spec := labSpec(kit.None)
	r := reports.Report{
		Policy:     reports.Policy{Name: spec.String(), Spec: spec.String(), Source: "spec"},
		Scenario:   lab,
		KitVersion: "v0.1.0",
		Seed:       1,
		Checks: []reports.Check{
			{
				Name: "spread", Why: "devices that draw the same delays retry together and arrive as one wave.",
				Status: reports.Fail, Figure: 0, Threshold: 0.1,
				Detail: `delays("dev-000000")[1] = 100ms for 1000 of 1000 devices; want spread (CV ≥ 0.1)`,
				Counterexample: &reports.Counterexample{
					Attempt: 1,
					Devices: []reports.DeviceDelays{
						{ID: "dev-000000", DelaysS: []float64{0.1, 0.2, 0.4}},
						{ID: "dev-000001", DelaysS: []float64{0.1, 0.2, 0.4}},
					},
					Replay: "jitterkit check --policy none:base=100ms,cap=10s --seed 1",
				},
			},
			{
				Name: "clusters", Why: "a group of devices in lockstep storms as one, however spread the rest are.",
				Status: reports.Fail, Figure: 1, Threshold: 0.01,
				Detail: "1000 of 1000 devices share one sequence of delays; want at most 1% of the fleet",
			},
			{
				Name: "frozen clock", Why: "devices powered on by one relay boot in the same second.",
				Status: reports.Pass, Figure: 0, Threshold: 0.1,
				Detail: "the delays do not depend on the boot instant",
			},
			{
				Name: "reproducibility", Why: "a device that draws the same delays after a restart can be replayed.",
				Status: reports.Pass, Figure: 1, Threshold: 1,
				Detail: "1000 of 1000 devices drew the same delays twice",
			},
			{
				Name: "cap phase", Why: "after a long outage every device has reached its cap, and only jitter keeps them apart.",
				Status: reports.Fail, Figure: 0, Threshold: 0.1,
				Detail: `delays("dev-000000")[12] = 10s for 1000 of 1000 devices; want spread (CV ≥ 0.1)`,
				Counterexample: &reports.Counterexample{
					Attempt: 12,
					Devices: []reports.DeviceDelays{{ID: "dev-000000", DelaysS: []float64{0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10, 10, 10, 10, 10}}},
					Replay:  "jitterkit check --policy none:base=100ms,cap=10s --seed 1",
				},
			},
			{
				Name: "bounds", Why: "a negative, infinite or over-cap delay is a bug that waits for an outage.",
				Status: reports.Pass, Figure: 0, Threshold: 0,
				Detail: "36000 delays, all finite and in [0, 10s]",
			},
		},
		Replay:      replay(spec.Factory(), lab),
		Comparison:  comparison(),
		EarlyDelays: earlyDelays(spec.Factory(), 1000, 3),
	}
	r.Verdict = reports.Fail
	r.Advice = reports.Advise(r)
	return r
}

// buildPassingReport is the gate of decorrelated jitter (base 1 s, cap 60 s) on
// the lab's fleet against a server sized for it, 500 accepted per second:
// every check passes and the median peak ratio, 0.474, is under 0.6.
func buildPassingReport() reports.Report {
	spec := kit.Spec{Strategy: kit.Decorrelated, Base: time.Second, Cap: time.Minute}
	s := lab
	s.AcceptRate = 500
	r := reports.Report{
		Policy:     reports.Policy{Name: "decorrelated", Spec: spec.String(), Source: "spec"},
		Scenario:   s,
		KitVersion: "v0.1.0",
		Seed:       7,
		Checks: []reports.Check{
			{Name: "spread", Why: "devices that draw the same delays retry together and arrive as one wave.",
				Status: reports.Pass, Figure: 0.291, Threshold: 0.1, Detail: "CV of the 1st delay across 1000 devices = 0.291 ≥ 0.1"},
			{Name: "reproducibility", Why: "a device that draws the same delays after a restart can be replayed.",
				Status: reports.Warn, Figure: 1, Threshold: 1, Detail: "1000 of 1000 devices drew the same delays twice in one process; not tried across processes"},
		},
		Replay:      replay(spec.Factory(), s),
		EarlyDelays: earlyDelays(spec.Factory(), 1000, 3),
	}
	r.Verdict = reports.Pass
	r.Advice = reports.Advise(r)
	return r
}

// stormComparison is seed 000's published table: peak retries in one window
// for 1,000, 10,000 and 100,000 clients under the four strategies, median
// [95% BCa interval], the report that jitterkit compare writes.
func stormComparison() reports.Report {
	s := reports.Scenario{Name: "storm", Clients: 1000, WindowS: 1, Runs: 30, Threshold: 0.6}
	iv := func(m, lo, hi float64) reports.Interval { return reports.Interval{Median: m, Low: lo, High: hi} }
	return reports.Report{
		Verdict:    reports.Pass,
		Policy:     reports.Policy{Name: "the four strategies", Source: "spec"},
		Scenario:   s,
		KitVersion: "v0.1.0",
		Seed:       0,
		Comparison: &reports.Comparison{
			Figure:   "peak_retry_arrivals",
			Scenario: s,
			Policies: []string{"none", "full", "equal", "decorrelated"},
			Rows: []reports.ComparisonRow{
				{Clients: 1000, Cells: []reports.Interval{iv(1000, 1000, 1000), iv(39, 37, 42), iv(51, 48, 51), iv(20, 18, 20)}},
				{Clients: 10000, Cells: []reports.Interval{iv(10000, 10000, 10000), iv(327, 314, 327), iv(438, 431, 439), iv(150, 142, 152)}},
				{Clients: 100000, Cells: []reports.Interval{iv(100000, 100000, 100000), iv(3148, 3113, 3155), iv(4111, 4100, 4114), iv(1347, 1327, 1357)}},
			},
		},
	}
}
