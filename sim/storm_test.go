package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// The storm tests replay the Storm kind (every device fails at once and
// retries ten times) under backoff from 1s to 30s, counted in 20ms windows,
// and compare it with the medians a reference simulation of the same storm
// reported, which does not give its base, cap, window or number of retries.
// The peak comes from the first retries, so it depends on the window over
// the base (1/50 here) and hardly at all on the cap or the number of
// retries; 1/50 brings full, equal and decorrelated jitter within a few
// percent of the reference medians at every fleet size.
var (
	stormBase   = time.Second
	stormCap    = 30 * time.Second
	stormWindow = 20 * time.Millisecond
)

func stormScenario(n int) Scenario {
	return Scenario{Kind: Storm, Clients: n, Window: stormWindow, Retries: 10}
}

func stormPolicy(st kit.Strategy) kit.Factory {
	return kit.Spec{Strategy: st, Base: stormBase, Cap: stormCap}.Factory()
}

// stormReference holds the medians of the peak retries in one window that
// the reference simulation of the storm reported, by fleet size.
var stormReference = map[int]map[kit.Strategy]float64{
	1_000:   {kit.None: 1_000, kit.Full: 39, kit.Equal: 51, kit.Decorrelated: 20},
	10_000:  {kit.None: 10_000, kit.Full: 327, kit.Equal: 438, kit.Decorrelated: 150},
	100_000: {kit.None: 100_000, kit.Full: 3_148, kit.Equal: 4_111, kit.Decorrelated: 1_347},
}

// TestStorm checks what the reference simulation found at each of its
// fleet sizes, 1,000, 10,000 and 100,000 devices: without jitter every run
// peaks at exactly N; decorrelated < full < equal < none, each comparison
// beyond the medians' 95% intervals; and an order of magnitude or more
// between none and any jitter. The 100,000 row is skipped under -short.
func TestStorm(t *testing.T) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			if testing.Short() && n > 10_000 {
				t.Skip("the 100,000-device storm is skipped under -short")
			}
			runs := 20
			if n == 100_000 {
				runs = 10
			}
			peak := map[kit.Strategy]Estimate{}
			for _, st := range kit.Strategies() {
				r, err := Replay(context.Background(), stormPolicy(st), stormScenario(n), Config{Runs: runs, Seed: 0})
				require.NoError(t, err)
				peak[st] = r.Summary[PeakRetryArrivals]
				if st == kit.None {
					for _, run := range r.Runs {
						assert.Equal(t, n, run.PeakRetryArrivals, "no jitter, run seed %d: peak retries in one window; want exactly N", run.Seed)
					}
				}
				t.Logf("%-12s peak %8.1f [%.0f, %.0f]   reference %v", st, peak[st].Median, peak[st].Low, peak[st].High, stormReference[n][st])
			}
			d, f, e, no := peak[kit.Decorrelated], peak[kit.Full], peak[kit.Equal], peak[kit.None]
			assert.True(t, d.High < f.Low && f.High < e.Low && e.High < no.Low, "peaks: decorrelated %v, full %v, equal %v, none %v; want decorrelated < full < equal < none, intervals apart", d, f, e, no)
			for _, st := range []kit.Strategy{kit.Full, kit.Equal, kit.Decorrelated} {
				ratio := no.Median / peak[st].High
				assert.GreaterOrEqual(t, ratio, 10.0, "how many times higher no jitter peaks than %s jitter (%v against %v); want an order of magnitude", st, no.Median, peak[st])
			}
		})
	}
}
