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
