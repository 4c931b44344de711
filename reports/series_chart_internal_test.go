package reports

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
)

// TestSeriesBin checks the width of the time-series chart's bins: a second
// up to seriesBins seconds, then the next of 2, 5, 10, 20… that keeps the
// bins within seriesBins.
func TestSeriesBin(t *testing.T) {
	for n, want := range map[int]int{0: 1, 1: 1, 300: 1, 301: 2, 600: 2, 601: 5, 3600: 20, 31 * 24 * 3600: 10_000} {
		got := seriesBin(n)
		assert.Equal(t, want, got, "seriesBin(%d)", n)
		assert.LessOrEqual(t, (n+got-1)/got, seriesBins, "bins of %ds over %d seconds", got, n)
	}
}

// TestBinMeans checks that a bin is the mean per second of its seconds,
// the last one over its own, and that a value that is not finite counts
// as 0.
func TestBinMeans(t *testing.T) {
	assert.Equal(t, []float64{1.5, 3.5, 5}, binMeans(2, []float64{1, 2, 3, 4, 5}))
	assert.Equal(t, []float64{0.5, 0}, binMeans(2, []float64{math.NaN(), 1, math.Inf(1), math.Inf(-1)}))
	assert.Empty(t, binMeans(5, nil))
}

// seriesReplay is a replay of kind whose one run has the series ser.
func seriesReplay(kind sim.Kind, ser *sim.Series, recovered bool) *Replay {
	return &Replay{
		Scenario: sim.Scenario{Kind: kind}.WithDefaults(),
		Runs:     []sim.Run{{Seed: 1, Series: ser, Recovered: recovered, RecoveredAfter: 5 * time.Second}},
	}
}

// zeroSeries returns a series of n seconds, all zero.
func zeroSeries(n int) *sim.Series {
	return &sim.Series{
		FirstSent: make([]int, n), RetriesSent: make([]int, n), Successes: make([]int, n), Failures: make([]int, n),
		Arrivals: make([]int, n), RetryArrivals: make([]int, n), Capacity: make([]float64, n), Jobs: make([]int, n),
	}
}

// TestSeriesChartEdges draws runs at the edges: every count zero, a
// capacity that is not finite, a run shorter than its trigger, a recovery
// past the run's end, and no series at all. None may fail, and every
// number drawn must be finite.
func TestSeriesChartEdges(t *testing.T) {
	bad := zeroSeries(40)
	bad.Capacity[3], bad.Capacity[4], bad.Capacity[5] = math.NaN(), math.Inf(1), math.Inf(-1)
	for _, tc := range []struct {
		name string
		rp   *Replay
	}{
		{"all zero", seriesReplay(sim.Overload, zeroSeries(300), false)},
		{"all zero, recovered", seriesReplay(sim.Reconnect, zeroSeries(300), true)},
		{"capacity not finite", seriesReplay(sim.Overload, bad, false)},
		{"shorter than the trigger", seriesReplay(sim.Overload, zeroSeries(10), false)},
		{"recovered after its end", seriesReplay(sim.Overload, zeroSeries(20), true)},
		{"one second", seriesReplay(sim.Reconnect, zeroSeries(1), false)},
		{"long", seriesReplay(sim.Overload, zeroSeries(7*24*3600), true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := seriesChart(tc.rp)
			require.NoError(t, err)
			require.NotEmpty(t, svg, "the chart")
			assert.Less(t, len(svg), 64<<10, "the chart's SVG, in bytes")
			for _, s := range []string{"NaN", "Inf"} {
				assert.NotContains(t, string(svg), s, "a number of the chart")
			}
			assert.NotEmpty(t, seriesCaption(tc.rp), "the chart's caption")
		})
	}
	for _, rp := range []*Replay{
		seriesReplay(sim.Overload, nil, false),
		seriesReplay(sim.Overload, zeroSeries(0), false),
		{Scenario: sim.Scenario{Kind: sim.Overload}, Representative: 1},
	} {
		svg, err := seriesChart(rp)
		assert.NoError(t, err)
		assert.Nil(t, svg, "the chart of a replay whose representative run has no series")
	}
}

// TestSeriesChartLegend checks that the legend names what the chart
// draws, and no more: the ramp, the recovery and the queue limit only
// when the run has them.
func TestSeriesChartLegend(t *testing.T) {
	rp := seriesReplay(sim.Overload, zeroSeries(60), false)
	svg, err := seriesChart(rp)
	require.NoError(t, err)
	for _, s := range []string{"ramp back", "recovered (at", "queue limit"} {
		assert.NotContains(t, string(svg), s, "the legend of a run without it")
	}
	rp.Scenario.Ramp, rp.Scenario.QueueLimit, rp.Runs[0].Recovered = 10*time.Second, 50, true
	svg, err = seriesChart(rp)
	require.NoError(t, err)
	for _, s := range []string{"ramp back (10s)", "recovered (at 40s)", "queue limit (50 jobs)", "recovered 5s after the dip"} {
		assert.True(t, strings.Contains(string(svg), s), "the legend or title lacks %q", s)
	}
}

// TestRetriesAllowedAgain checks the instant retries are allowed again:
// the second after the last, from the trigger's start on, in which the
// budget refused a retry or rejected an attempt; none when it stopped
// nothing from then on, and never when it still did in the last second.
func TestRetriesAllowedAgain(t *testing.T) {
	for _, tc := range []struct {
		name                string
		refused, throttled  []int
		from                int
		at                  int
		stopped, allowedYet bool
	}{
		{"refused, then none", []int{0, 1, 2, 0, 0}, []int{0, 0, 0, 0, 0}, 1, 3, true, true},
		{"throttled, then none", []int{0, 0, 0, 0, 0}, []int{0, 0, 4, 1, 0}, 0, 4, true, true},
		{"only before the trigger", []int{3, 0, 0, 0}, []int{0, 0, 0, 0}, 1, 0, false, false},
		{"nothing", []int{0, 0, 0}, []int{0, 0, 0}, 0, 0, false, false},
		{"to the last second", []int{0, 1, 0, 0}, []int{0, 0, 0, 2}, 1, 0, true, false},
		{"no throttled series", []int{0, 5, 0}, nil, 0, 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ser := &sim.Series{Refused: tc.refused, Throttled: tc.throttled}
			at, stopped, ok := retriesAllowedAgain(ser, tc.from)
			assert.Equal(t, tc.stopped, stopped, "stopped")
			assert.Equal(t, tc.allowedYet, ok, "allowed again")
			assert.Equal(t, tc.at, at, "the second retries are allowed again")
		})
	}
}

// TestSeriesChartBudgetEdges draws budgeted runs at the edges: a level
// that is not finite or below zero, a breaker's states, and a budget
// whose series are shorter than the run's. None may fail, and every
// number drawn must be finite.
func TestSeriesChartBudgetEdges(t *testing.T) {
	budgeted := func(kind sim.BudgetKind, n int, level func(i int) float64) *Replay {
		ser := zeroSeries(n)
		ser.Refused, ser.Throttled, ser.Budget = make([]int, n), make([]int, n), make([]float64, n)
		for i := range ser.Budget {
			ser.Budget[i] = level(i)
		}
		rp := seriesReplay(sim.Overload, ser, true)
		rp.Scenario.Budget = sim.Budget{Kind: kind, Scope: sim.ScopeFleet}
		return rp
	}
	bad := budgeted(sim.Finagle, 60, func(i int) float64 { return float64(i) })
	bad.Runs[0].Series.Budget[3], bad.Runs[0].Series.Budget[4] = math.NaN(), math.Inf(-1)
	short := budgeted(sim.GRPC, 60, func(int) float64 { return 10 })
	short.Runs[0].Series.Refused, short.Runs[0].Series.Throttled = []int{0, 1}, nil
	for _, tc := range []struct {
		name string
		rp   *Replay
	}{
		{"not finite", bad},
		{"below zero", budgeted(sim.Envoy, 60, func(i int) float64 { return float64(i%7) - 3 })},
		{"breaker", budgeted(sim.Breaker, 60, func(i int) float64 { return float64(i % 3) })},
		{"adaptive", budgeted(sim.Adaptive, 60, func(i int) float64 { return float64(i) / 100 })},
		{"short series", short},
		{"long", budgeted(sim.AWS, 7*24*3600, func(int) float64 { return 500 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := seriesChart(tc.rp)
			require.NoError(t, err)
			assert.Less(t, len(svg), 64<<10, "the chart's SVG, in bytes")
			for _, s := range []string{"NaN", "Inf"} {
				assert.NotContains(t, string(svg), s, "a number of the chart")
			}
			assert.Contains(t, seriesCaption(tc.rp), "The bottom panel is its level", "the chart's caption")
		})
	}
}
