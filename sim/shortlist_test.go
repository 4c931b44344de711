package sim

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
)

// TestShortlist adds runs of drawn peaks, ties included, in a drawn order
// of finishing: the shortlist never keeps more than half of the runs (one
// more while it decides), and keeps the representative run's histograms
// to the end.
func TestShortlist(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "runs")
		runs := make([]Run, n)
		for i := range runs {
			runs[i].PeakRetryArrivals = rapid.IntRange(0, 5).Draw(t, "peak")
		}
		order := rapid.Permutation(seq(n)).Draw(t, "order")
		l := newShortlist(n)
		for _, i := range order {
			l.add(runs[i].PeakRetryArrivals, i, func() *histogram {
				require.LessOrEqual(t, l.count+1, (n+1)/2+1, "the histograms the shortlist of %d runs keeps while it decides", n)
				return newHistogram([]int64{int64(i)}, nil)
			})
			require.LessOrEqual(t, l.count, (n+1)/2, "after adding run %d, the histograms the shortlist of %d runs keeps", i, n)
		}
		rep := representative(runs)
		got, _ := l.histogram(rep).ints()
		require.Equal(t, []int{rep}, got, "the histograms the shortlist kept; want those of run %d, the representative", rep)
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestRepresentativeOnly replays each kind with and without
// RepresentativeOnly: the figures are the same, the representative run
// keeps the same histograms, and the other runs keep none, which their
// JSON leaves out.
func TestRepresentativeOnly(t *testing.T) {
	f := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 5 * time.Second}.Factory()
	for _, kind := range fleetKinds {
		t.Run(string(kind), func(t *testing.T) {
			s := Scenario{Kind: kind, Clients: 300, AcceptRate: 20, Down: time.Minute, Period: periodOf(kind), Horizon: 2 * time.Minute, Window: 250 * time.Millisecond}
			all, err := Replay(context.Background(), f, s, Config{Runs: 9, Seed: 4, Resamples: 100})
			require.NoError(t, err)
			one, err := Replay(context.Background(), f, s, Config{Runs: 9, Seed: 4, Resamples: 100, RepresentativeOnly: true})
			require.NoError(t, err)

			require.Equal(t, all.Representative, one.Representative, "the representative run")
			require.Equal(t, all.Summary, one.Summary)
			rep := all.Representative
			for i := range all.Runs {
				a, o := all.Runs[i], one.Runs[i]
				if i == rep {
					assert.Equal(t, a, o, "the representative run %d", i)
					continue
				}
				assert.Nil(t, o.Arrivals, "run %d arrivals", i)
				assert.Nil(t, o.RetryArrivals, "run %d retry arrivals", i)
				a.Arrivals, a.RetryArrivals = nil, nil
				assert.Equal(t, a, o, "run %d without its histograms", i)
				b, err := json.Marshal(o)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "arrivals\":[", "run %d's JSON", i)
			}
		})
	}
}

// TestHistogramCompact keeps histograms at 4 bytes a window, and at 8 when
// a window holds more than 2³¹−1 arrivals, and gives back the same counts.
func TestHistogramCompact(t *testing.T) {
	for _, c := range []struct {
		arrivals, retries []int64
		wide              bool
	}{
		{[]int64{}, []int64{}, false},
		{[]int64{3, 0, math.MaxInt32}, []int64{0, 0, 7}, false},
		{[]int64{math.MaxInt32 + 1, 5}, []int64{math.MaxInt32 + 1}, true},
	} {
		h := newHistogram(c.arrivals, c.retries)
		assert.Equal(t, c.wide, h.wide != nil, "wide for %v", c.arrivals)
		a, r := h.ints()
		assert.Equal(t, ints(c.arrivals), a)
		assert.Equal(t, ints(c.retries), r)
	}
}
