package sim

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
)

// drawFactory draws a policy: a built-in strategy, one that never waits
// (to reach MaxAttempts), or one that stops after three retries.
func drawFactory(t *rapid.T) (string, kit.Factory) {
	switch kind := rapid.SampledFrom([]string{"spec", "spec", "spec", "zero", "stops"}).Draw(t, "policy"); kind {
	case "zero":
		return kind, func(kit.Device) kit.Policy {
			return kit.FromFunc(func(int) time.Duration { return 0 })
		}
	case "stops":
		return kind, func(kit.Device) kit.Policy {
			return kit.FromSlice([]time.Duration{300 * time.Millisecond, time.Second, 2 * time.Second})
		}
	default:
		base := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(time.Second)).Draw(t, "base"))
		spec := kit.Spec{
			Strategy: rapid.SampledFrom(kit.Strategies()).Draw(t, "strategy"),
			Base:     base,
			Cap:      base * time.Duration(rapid.SampledFrom([]int64{1, 10, 100}).Draw(t, "capTimesBase")),
		}
		return spec.String(), spec.Factory()
	}
}

// TestReplayMatchesHeap checks the calendar engine against heapReplay, the
// plain priority-queue replay, on drawn scenarios and policies: every figure
// of the run must be equal, the periodic kinds' timer load and missed
// firings and a wide window's 1s peaks among them.
func TestReplayMatchesHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Scenario{
			Kind:        rapid.SampledFrom([]Kind{Outage, LongOutage, Periodic, PeriodicAligned}).Draw(t, "kind"),
			Server:      rapid.SampledFrom(Servers()).Draw(t, "server"),
			Clients:     rapid.IntRange(1, 300).Draw(t, "clients"),
			AcceptRate:  rapid.Float64Range(0.3, 200).Draw(t, "acceptRate"),
			Down:        time.Duration(rapid.Int64Range(1, 5e9).Draw(t, "down")),
			StartSpread: time.Duration(rapid.Int64Range(1, 3e9).Draw(t, "startSpread")),
			Window:      rapid.SampledFrom([]time.Duration{100 * time.Millisecond, time.Second, 2500 * time.Millisecond}).Draw(t, "window"),
			Horizon:     rapid.SampledFrom([]time.Duration{30 * time.Second, time.Hour}).Draw(t, "horizon"),
			MaxAttempts: rapid.IntRange(0, 40).Draw(t, "maxAttempts"),
		}
		switch s.Server {
		case TokenBucket:
			s.Burst = rapid.SampledFrom([]float64{0, 1, 2.5, 20}).Draw(t, "burst")
		case RetryAfter:
			s.RetryAfter = rapid.SampledFrom([]time.Duration{300 * time.Millisecond, time.Second, 5 * time.Second}).Draw(t, "retryAfter")
		}
		if s.Kind.Periodic() {
			s.Period = rapid.SampledFrom([]time.Duration{time.Second, 7 * time.Second, time.Minute}).Draw(t, "period")
			s.TimerOffset = rapid.SampledFrom(Offsets()).Draw(t, "timerOffset")
		}
		name, f := drawFactory(t)
		seed := rapid.Uint64().Draw(t, "seed")
		res, err := Replay(context.Background(), f, s, Config{Runs: 1, Seed: seed})
		require.NoError(t, err, "Replay(%s, %+v)", name, s)
		require.Equal(t, heapReplay(f, s, seed), res.Runs[0], "Replay(%s, %+v): the heap's run against the calendar's", name, s)
	})
}

// TestCalendarFar replays delays longer than the calendar's ring, so that
// arrivals wait in its far list and move into the ring as it turns: the
// figures must match the heap's.
func TestCalendarFar(t *testing.T) {
	f := func(d kit.Device) kit.Policy {
		// Every device waits 1h30m, then 3h, then 20s forever: beyond
		// the ring (68 minutes), then within it.
		return kit.FromFunc(func(n int) time.Duration {
			switch n {
			case 1:
				return 90 * time.Minute
			case 2:
				return 3 * time.Hour
			}
			return 20 * time.Second
		})
	}
	s := Scenario{Clients: 500, AcceptRate: 40, Down: 4 * time.Hour, Horizon: 6 * time.Hour, StartSpread: 20 * time.Minute}
	res, err := Replay(context.Background(), f, s, Config{Runs: 1, Seed: 7})
	require.NoError(t, err)
	got := res.Runs[0]
	require.Equal(t, heapReplay(f, s, 7), got, "the heap's run against the calendar's")
	assert.Equal(t, 500, got.Served, "served; want all 500")
}

func TestSelectFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.SliceOfN(rapid.Uint64Range(0, 50), 1, 200).Draw(t, "x")
		k := rapid.IntRange(0, len(x)-1).Draw(t, "k")
		y := append([]uint64(nil), x...)
		selectFirst(y, k)
		for i := range k {
			require.LessOrEqual(t, y[i], y[k], "after selectFirst(%v, %d): y[%d] against y[%d]", x, k, i, k)
		}
		for i := k + 1; i < len(y); i++ {
			require.GreaterOrEqual(t, y[i], y[k], "after selectFirst(%v, %d): y[%d] against y[%d]", x, k, i, k)
		}
	})
}

// TestQuotaLast checks the quota's last event against a sort, on seconds
// whose events crowd into one slice of the second as a fleet in step does
// (within a nanosecond, a microsecond, a millisecond) or spread over it, in
// chunks of any size: quotaLast narrows the slices it counts until few
// enough events are left to copy.
func TestQuotaLast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{2, 100, int(selectMost(0)) + 1, 3 * int(selectMost(0))}).Draw(t, "events")
		spread := rapid.SampledFrom([]uint64{1, 4, 1000, 1 << 20, 1e9 - 1}).Draw(t, "spread")
		chunk := rapid.IntRange(1, 500).Draw(t, "chunk")
		quota := rapid.Int64Range(1, int64(n)-1).Draw(t, "quota")
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		var chunks [][]uint64
		all := make([]uint64, 0, n)
		for dev := range n {
			ev := packEvent(int64(rng.Uint64N(spread)), uint32(dev))
			if len(chunks) == 0 || len(chunks[len(chunks)-1]) == chunk {
				chunks = append(chunks, nil)
			}
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], ev)
			all = append(all, ev)
		}
		slices.Sort(all)
		e := &engine{n: n}
		require.Equal(t, all[quota-1], e.quotaLast(chunks, quota), "quotaLast of %d events within %dns, quota %d", n, spread, quota)
		require.LessOrEqual(t, int64(cap(e.sel)), 2*selectMost(n), "the events copied to select among")
	})
}

// TestTunedHeap checks the benchmark's tuned priority queue against Replay,
// so that the benchmark compares two replays of the same model.
func TestTunedHeap(t *testing.T) {
	for _, st := range kit.Strategies() {
		f := kit.Spec{Strategy: st}.Factory()
		for _, seed := range []uint64{0, 3} {
			res, err := Replay(context.Background(), f, Scenario{Clients: 5000, AcceptRate: 625}, Config{Runs: 1, Seed: seed})
			require.NoError(t, err)
			attempts, last := tunedHeapReplay(f, Scenario{Clients: 5000, AcceptRate: 625}, seed)
			got := res.Runs[0]
			assert.Equal(t, attempts, got.Attempts, "%s, seed %d: Replay's attempts against the tuned heap's", st, seed)
			assert.Equal(t, last, got.AllServed, "%s, seed %d: Replay's all served after, against the tuned heap's", st, seed)
		}
	}
}
