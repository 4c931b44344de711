package sim

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// judged returns the result of runs of a scenario of 400 devices, with
// their summary as Replay computes it.
func judged(kind Kind, runs []Run) Result {
	s := Scenario{Kind: kind, Clients: 400}.WithDefaults()
	cfg := Config{Runs: len(runs), Seed: 1}.WithDefaults()
	return Result{Scenario: s, Config: cfg, Runs: runs, Summary: summarize(runs, s, cfg)}
}

// runsOf returns runs with a peak ratio of 0.3 and the given counts of
// devices that gave up and that were still retrying at the horizon.
func runsOf(gaveUp, pending []int) []Run {
	runs := make([]Run, len(gaveUp))
	for i := range runs {
		runs[i] = Run{Seed: uint64(i), PeakRetryArrivals: 15, PeakRatio: 0.3, Served: 400 - gaveUp[i] - pending[i], GaveUp: gaveUp[i], Pending: pending[i]}
	}
	return runs
}

// TestWarnings holds every warning to its statistic over the runs: one
// device in one run, or a share of the fleet at the limit, does not warn;
// a median run over the limit does.
func TestWarnings(t *testing.T) {
	zero := []int{0, 0, 0, 0, 0}
	tests := []struct {
		name    string
		kind    Kind
		gaveUp  []int
		pending []int
		want    []Warning
	}{
		{"nothing", Outage, zero, zero, nil},
		{"one device of one run gave up", Outage, []int{0, 0, 1, 0, 0}, zero, nil},
		{"one device of every run gave up", Outage, []int{1, 1, 1, 1, 1}, zero, nil},
		{"1% of the fleet in every run gave up: at the limit", Outage, []int{4, 4, 4, 4, 4}, zero, nil},
		{"a tenth of the fleet in two runs of five gave up", Outage, []int{40, 40, 0, 0, 0}, zero, nil},
		{"over 1% of the fleet gave up in three runs of five", Outage, []int{5, 6, 9, 0, 0}, zero, []Warning{GaveUpUnserved}},
		{"a long outage's devices gave up", LongOutage, []int{20, 20, 20}, []int{0, 0, 0}, []Warning{GaveUpUnserved}},
		{"a periodic fleet's firings gave up: its own figure, no warning", Periodic, []int{20, 20, 20}, []int{0, 0, 0}, nil},
		{"one device of one run still retrying", Outage, zero, []int{0, 1, 0, 0, 0}, nil},
		{"over 1% still retrying in the median run", Storm, zero, []int{5, 5, 5, 0, 0}, []Warning{StillPending}},
		{"both", Outage, []int{8, 8, 8}, []int{8, 8, 8}, []Warning{StillPending, GaveUpUnserved}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := judged(tt.kind, runsOf(tt.gaveUp, tt.pending))
			assert.Equal(t, tt.want, r.Warnings(), "gave up %v, pending %v of 400", tt.gaveUp, tt.pending)
			want := verdict.Pass
			if len(tt.want) > 0 {
				want = verdict.Warn
			}
			assert.Equal(t, want, r.Status(), r.Detail())
		})
	}

	t.Run("interval over the threshold", func(t *testing.T) {
		runs := runsOf([]int{0, 0, 0, 0, 0}, []int{0, 0, 0, 0, 0})
		runs[4].PeakRatio = 0.7
		r := judged(Outage, runs)
		assert.Equal(t, []Warning{IntervalOver}, r.Warnings(), "peak ratio %v", r.Summary[PeakRatio])
		assert.Equal(t, verdict.Warn, r.Status(), r.Detail())
	})
	t.Run("limits of the caller's", func(t *testing.T) {
		r := judged(Outage, runsOf([]int{2, 2, 2}, []int{0, 0, 0}))
		assert.Empty(t, r.Warnings(), "2 of 400 under the default limit")
		r.Config.Thresholds.MaxGaveUp = 0.004
		assert.Equal(t, []Warning{GaveUpUnserved}, r.Warnings(), "2 of 400 over a limit of 0.4%")
	})
	t.Run("one device of one run retried", func(t *testing.T) {
		runs := make([]Run, 5)
		runs[2] = Run{PeakRetryArrivals: 1, PeakRatio: 0.02, Served: 1}
		r := judged(Outage, runs)
		assert.Equal(t, verdict.Inconclusive, r.Status(), "a median run without a retry: %s", r.Detail())
		runs[1], runs[3] = runs[2], runs[2]
		r = judged(Outage, runs)
		assert.Equal(t, verdict.Pass, r.Status(), "retries in the median run: %s", r.Detail())
	})
	t.Run("no runs", func(t *testing.T) {
		assert.Empty(t, Result{}.Warnings())
	})
}

// TestWarningsOfAPolicyThatGivesUp replays policies whose devices stop
// retrying before the server is back: a thirtieth of the fleet warns at
// every seed, a four-hundredth (one device a run on average) at none.
func TestWarningsOfAPolicyThatGivesUp(t *testing.T) {
	// The devices whose id hashes to 0 modulo every give up after one
	// retry, within the outage; the others draw full jitter.
	full := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 10 * time.Second}.Factory()
	stopping := func(every uint64) kit.Factory {
		return func(d kit.Device) kit.Policy {
			if kit.HashID(d.ID)%every == 0 {
				return kit.FromSlice([]time.Duration{time.Second})
			}
			return full(d)
		}
	}
	s := Scenario{AcceptRate: 5000}
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		r, err := Replay(context.Background(), stopping(30), s, Config{Runs: 5, Seed: seed})
		require.NoError(t, err)
		assert.Equal(t, []Warning{GaveUpUnserved}, r.Warnings(), "seed %d, 1 in 30: %s", seed, r.Detail())

		r, err = Replay(context.Background(), stopping(400), s, Config{Runs: 5, Seed: seed})
		require.NoError(t, err)
		assert.Empty(t, r.Warnings(), "seed %d, 1 in 400: %s", seed, r.Detail())
		assert.Equal(t, verdict.Pass, r.Status(), "seed %d, 1 in 400: %s", seed, r.Detail())
	}
}

// TestWarningChances computes the chances that Thresholds and Warning
// state, from the binomial distribution they are derived from.
func TestWarningChances(t *testing.T) {
	// over is P(Bin(n, p) > c).
	over := func(n int, p, c float64) float64 {
		return 1 - distuv.Binomial{N: float64(n), P: p}.CDF(math.Floor(c))
	}
	// median is the upper bound of the chance that the median of r runs
	// is over the limit, when each run is with probability p.
	median := func(r int, p float64) float64 { return over(r, p, float64((r-1)/2)) }
	share := func(n, r int, q float64) float64 { return median(r, over(n, q, defaultMaxGaveUp*float64(n))) }

	assert.InDelta(t, 0.0036, over(400, 0.0025, 4), 0.00005, "p of q = 0.25%%, 400 devices")
	assert.Less(t, share(400, 20, 0.0025), 1e-15, "P of q = 0.25%%, 20 runs of 400")
	assert.Less(t, share(400, 20, 0.005), 2e-8, "P of q = 0.5%%, 20 runs of 400")
	assert.Less(t, 1-share(400, 20, 0.02), 1e-6, "1−P of q = 2%%, 20 runs of 400")
	assert.InEpsilon(t, 2e-9, share(500, 5, 0.002), 0.05, "P of q = 0.2%%, 5 runs of 500")
	assert.InEpsilon(t, 7e-4, share(500, 5, 0.005), 0.05, "P of q = 0.5%%, 5 runs of 500")
	assert.InEpsilon(t, 3e-5, 1-share(500, 5, 0.025), 0.15, "1−P of q = 2.5%%, 5 runs of 500")
	for _, q := range []float64{0.007, 0.02} {
		p := share(400, 20, q)
		assert.Greater(t, 2*p*(1-p), 1e-6, "q = %v, 20 runs of 400: the edge of the limit flips", q)
	}

	// The interval's high end: with 5 runs the highest, with 20 between
	// the 14th and the 15th.
	high := func(r int, p float64, k float64) float64 { return over(r, p, k-1) }
	assert.InDelta(t, 0.049, high(5, 0.01, 1), 0.0005, "P of 5 runs, p = 1%%")
	flip := 2 * high(5, 0.01, 1) * (1 - high(5, 0.01, 1))
	assert.InDelta(t, 0.093, flip, 0.0005, "flip of 5 runs, p = 1%%")
	assert.InEpsilon(t, 3e-8, high(20, 0.01, 6), 0.15, "P of 20 runs, p = 1%%")
}

// TestIntervalHighEnd holds the order statistics that IntervalOver's
// chances are stated with: the high end of the 95% interval of 5 runs is
// their highest value, and that of 20 runs lies above the 14th and at most
// at the 15th.
func TestIntervalHighEnd(t *testing.T) {
	for _, n := range []int{5, 20} {
		for seed := range uint64(50) {
			runs := make([]Run, n)
			for i := range runs {
				runs[i].PeakRatio = 0.2 + 0.4*float64(splitmix64(seed*100+uint64(i))>>11)/(1<<53)
			}
			r := judged(Outage, runs)
			x := make([]float64, n)
			for i, run := range runs {
				x[i] = run.PeakRatio
			}
			slices.Sort(x)
			high := r.Summary[PeakRatio].High
			if n == 5 {
				assert.Equal(t, x[4], high, "seed %d: %v", seed, x)
			} else {
				assert.True(t, x[13] < high && high <= x[14], "seed %d: high end %v; want in (%v, %v]", seed, high, x[13], x[14])
			}
		}
	}
}

// TestThresholdsOutOfRange refuses limits that are not shares of a fleet.
func TestThresholdsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		th   Thresholds
		want string
	}{
		{Thresholds{MaxGaveUp: 1.5}, "sim: gave-up share 1.5 is not in (0, 1]"},
		{Thresholds{MaxGaveUp: -0.01}, "sim: gave-up share -0.01 is not in (0, 1]"},
		{Thresholds{MaxPending: math.NaN()}, "sim: pending share NaN is not in (0, 1]"},
	} {
		assert.EqualError(t, Scenario{}.Validate(nil, Config{Thresholds: c.th}), c.want, "%+v", c.th)
	}
	assert.NoError(t, Scenario{}.Validate(nil, Config{Thresholds: Thresholds{MaxGaveUp: 1, MaxPending: 1e-9}}))
}
