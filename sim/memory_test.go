package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// The hostile review's three cases on the CLI, each of which ran far past
// the 4 GiB guard, pinned here with limits in megabytes: Validate refuses
// them up front, saying what to change, and the variants it accepts stay
// within their limit.
func TestMemoryHostileCases(t *testing.T) {
	const mib = 1 << 20
	none300 := kit.Spec{Strategy: kit.None, Base: 300 * time.Second, Cap: 300 * time.Second}.Factory()
	full := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	for _, c := range []struct {
		name string
		f    kit.Factory
		s    Scenario
		cfg  Config
		want string // Validate's error, or "" to replay it within the limit
	}{
		// 1. One client over a month in 10ms windows: 9.8 GB for one run,
		// 14 GB and killed with 20.
		{"month in 10ms windows", none300, Scenario{Clients: 1, Down: maxHorizon - time.Hour, Horizon: maxHorizon, Window: 10 * time.Millisecond, MemoryLimit: 64 * mib}, Config{Runs: 1},
			"sim: 10ms windows over 744h0m0s make 267,840,000 windows, more than 10,000,000: use wider windows or a shorter horizon"},
		{"month in 1s windows, 20 runs", none300, Scenario{Clients: 1, Down: maxHorizon - time.Hour, Horizon: maxHorizon, MemoryLimit: 256 * mib}, Config{Runs: 20},
			"sim: 20 runs of 1 client over 744h0m0s in 1s windows would need about 886.5 MiB, above the memory limit of 256.0 MiB: what is kept of 20 runs needs 843.5 MiB; replay fewer runs, over a shorter horizon or in wider windows, keep only the representative run's histograms (Config.RepresentativeOnly), or raise the limit"},
		{"month in 1s windows, one run", none300, Scenario{Clients: 1, Down: maxHorizon - time.Hour, Horizon: maxHorizon, MemoryLimit: 256 * mib}, Config{Runs: 1}, ""},
		// 2. Nanosecond windows over 400ms: 13.2 GB for one run, with an
		// estimate under 4 GiB.
		{"400ms in 1ns windows", full, Scenario{Window: time.Nanosecond, Horizon: 400 * time.Millisecond, Down: 100 * time.Millisecond, MemoryLimit: 64 * mib}, Config{Runs: 1},
			"sim: 1ns windows over 400ms make 400,000,000 windows, more than 10,000,000: use wider windows or a shorter horizon"},
		{"400ms in 100ns windows", full, Scenario{Window: 100 * time.Nanosecond, Horizon: 400 * time.Millisecond, Down: 100 * time.Millisecond, MemoryLimit: 64 * mib}, Config{Runs: 1},
			"sim: 1 run of 400 clients over 400ms in 100ns windows would need about 127.2 MiB, above the memory limit of 64.0 MiB: one run needs 63.5 MiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit"},
		{"400ms in 100ns windows within 512 MiB", full, Scenario{Window: 100 * time.Nanosecond, Horizon: 400 * time.Millisecond, Down: 100 * time.Millisecond, MemoryLimit: 512 * mib}, Config{Runs: 3, Workers: 2}, ""},
		// 3. One client, many runs: 60 to 100 KB a run, 3.0 GB for 50,000
		// runs, a million runs accepted and killed at 8 GB.
		{"one client, 2,000 runs", full, Scenario{Clients: 1, MemoryLimit: 128 * mib}, Config{Runs: 2000},
			"sim: 2,000 runs of 1 client over 1h0m0s in 1s windows would need about 134.2 MiB, above the memory limit of 128.0 MiB: what is kept of 2,000 runs needs 133.4 MiB; replay fewer runs, over a shorter horizon or in wider windows, keep only the representative run's histograms (Config.RepresentativeOnly), or raise the limit"},
		{"one client, 2,000 runs, representative only", full, Scenario{Clients: 1, MemoryLimit: 128 * mib}, Config{Runs: 2000, RepresentativeOnly: true, Resamples: 200}, ""},
		{"one client, a million runs", full, Scenario{Clients: 1, MemoryLimit: 128 * mib}, Config{Runs: 1_000_000, RepresentativeOnly: true},
			"sim: 1,000,000 runs of 1 client over 1h0m0s in 1s windows would need about 27.6 GiB, above the memory limit of 128.0 MiB: what is kept of 1,000,000 runs needs 27.6 GiB; replay fewer runs, over a shorter horizon or in wider windows, or raise the limit"},
		// 4. A server model has no windows to widen: its refusal names
		// only what it takes.
		{"overload of a million clients", full, Scenario{Kind: Overload, Clients: 1_000_000, MemoryLimit: 64 * mib}, Config{Runs: 3},
			"sim: 3 runs of 1,000,000 clients over 5m0s would need about 473.6 MiB, above the memory limit of 64.0 MiB: one run needs 469.6 MiB; replay fewer clients, over a shorter horizon, or raise the limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Validate(c.f, c.cfg)
			if c.want != "" {
				assert.EqualError(t, err, c.want)
				_, rerr := Replay(context.Background(), c.f, c.s, c.cfg)
				assert.EqualError(t, rerr, c.want, "Replay refuses what Validate refuses")
				return
			}
			require.NoError(t, err)
			need := c.s.Memory(c.f, c.cfg)
			require.LessOrEqual(t, need, c.s.MemoryLimit, "Memory within the limit Validate accepted")
			var rerr error
			used := kittest.PeakHeap(time.Millisecond, func() { _, rerr = Replay(context.Background(), c.f, c.s, c.cfg) })
			require.NoError(t, rerr)
			t.Logf("peak heap %s; estimate %s; limit %s", prose.FormatBytes(used), prose.FormatBytes(need), prose.FormatBytes(c.s.MemoryLimit))
			assert.LessOrEqual(t, used, need, "the estimate must cover the peak")
		})
	}
}

// TestMemoryCoversThePeak replays a few shapes whose memory goes to
// different parts of the estimate, and checks that the estimate covers the
// peak heap measured: many clients, one client with many runs, and a long
// horizon in fine windows. Where a kit.Spec's fleet of an outage holds
// the memory, the estimate is also within half again of the peak.
func TestMemoryCoversThePeak(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full}.Factory()
	none := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, c := range []struct {
		name string
		f    kit.Factory
		s    Scenario
		cfg  Config
		// within is the most the estimate may be over the peak, or 0.
		within float64
	}{
		{"many clients", full, outageAt(200_000), Config{Runs: 4, Workers: 2}, 1.5},
		{"many clients in step", none, Scenario{Clients: 200_000, AcceptRate: 10_000, Down: 30 * time.Second}, Config{Runs: 4, Workers: 2}, 1.5},
		{"many clients, policies called", general(full), outageAt(200_000), Config{Runs: 4, Workers: 2}, 0},
		{"many clients, long outage", kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 2 * time.Hour}.Factory(),
			Scenario{Kind: LongOutage, Clients: 100_000, AcceptRate: 1000, Window: 10 * time.Millisecond}, Config{Runs: 2, Workers: 2}, 0},
		{"many clients, token bucket", full, Scenario{Server: TokenBucket, Clients: 100_000, AcceptRate: 12_500}, Config{Runs: 3, Workers: 1}, 0},
		{"many clients, periodic", full, Scenario{Kind: Periodic, Clients: 50_000, AcceptRate: 500, Period: 10 * time.Second}, Config{Runs: 3, Workers: 2}, 0},
		{"many clients, periodic, policies called", general(full), Scenario{Kind: Periodic, Clients: 50_000, AcceptRate: 500, Period: 10 * time.Second}, Config{Runs: 3, Workers: 2}, 0},
		{"many clients, storm", full, Scenario{Kind: Storm, Clients: 100_000, Window: 20 * time.Millisecond}, Config{Runs: 4, Workers: 2}, 0},
		{"one client, many runs", full, Scenario{Clients: 1}, Config{Runs: 5000, Resamples: 300}, 0},
		{"one client, many runs, representative only", full, Scenario{Clients: 1}, Config{Runs: 5000, Resamples: 300, RepresentativeOnly: true}, 0},
		{"overload in a storm", kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond}.Factory(), Scenario{Kind: Overload}, Config{Runs: 4, Workers: 2}, 0},
		{"reconnect, many devices", kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory(),
			Scenario{Kind: Reconnect, Clients: 100_000, CPU: 100_000}, Config{Runs: 3, Workers: 2}, 0},
		{"contention", full, Scenario{Kind: Contention}, Config{Runs: 4, Workers: 2}, 0},
		{"long horizon in fine windows", kit.Spec{Strategy: kit.None, Base: 300 * time.Second, Cap: 300 * time.Second}.Factory(),
			Scenario{Clients: 100, Down: 71 * time.Hour, Horizon: 72 * time.Hour, Window: 100 * time.Millisecond}, Config{Runs: 3, Workers: 2}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.s.Clients >= 100_000 {
				t.Skip("large fleets are skipped under -short")
			}
			require.NoError(t, c.s.Validate(c.f, c.cfg))
			var err error
			used := kittest.PeakHeap(time.Millisecond, func() { _, err = Replay(context.Background(), c.f, c.s, c.cfg) })
			require.NoError(t, err)
			need := c.s.Memory(c.f, c.cfg)
			t.Logf("peak heap %s; estimate %s (%.2f times)", prose.FormatBytes(used), prose.FormatBytes(need), float64(need)/float64(used))
			assert.LessOrEqual(t, used, need, "the estimate must cover the peak")
			if c.within > 0 {
				assert.LessOrEqual(t, float64(need), c.within*float64(used), "the estimate %s of a peak of %s", prose.FormatBytes(need), prose.FormatBytes(used))
			}
		})
	}
}

// Replays one after another each hold what their estimate says, as a
// gate's do: a large replay first collects the garbage of the one before,
// which the collector would otherwise leave on the heap beside it.
func TestMemoryReplaysInARow(t *testing.T) {
	if testing.Short() {
		t.Skip("replays of millions of devices are skipped under -short")
	}
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	s, cfg := Scenario{Clients: 1_500_000, AcceptRate: 75_000, Down: 30 * time.Second}, Config{Runs: 1, Workers: 1}
	need := s.Memory(f, cfg)
	require.Greater(t, need, int64(collectFirst), "a replay that collects first")
	var err error
	used := kittest.PeakHeap(time.Millisecond, func() {
		for range 3 {
			if _, err = Replay(context.Background(), f, s, cfg); err != nil {
				return
			}
		}
	})
	require.NoError(t, err)
	t.Logf("peak heap %s over three replays; estimate of one %s", prose.FormatBytes(used), prose.FormatBytes(need))
	assert.LessOrEqual(t, used, need, "the estimate of one replay must cover the peak of three in a row")
}

// A server model's state that grows with its events, beyond what the
// estimate counts ahead, is held to the room the limit leaves each run: the
// run stops with a memory error that says what grew.
func TestMemoryModelGrowth(t *testing.T) {
	for _, c := range []struct {
		name string
		f    kit.Factory
		s    Scenario
		grew string
	}{
		// Timed-out retries fill the queue with tens of thousands of jobs.
		{"overload queue", kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond}.Factory(), Scenario{Kind: Overload}, "the queue grew past"},
		// Delays of a nanosecond make each device fail every round trip,
		// and the engine keeps each delay for the device's resets.
		{"reconnect kept delays", kit.Spec{Strategy: kit.None, Base: time.Nanosecond, Cap: time.Nanosecond}.Factory(),
			Scenario{Kind: Reconnect, RefuseCold: true}, "the devices' kept delays grew past"},
		// A policy the engine does not recognise may keep each delay it
		// gave, as an exec program's does.
		{"reconnect policies' delays", general(kit.Spec{Strategy: kit.None, Base: time.Nanosecond, Cap: time.Nanosecond}.Factory()),
			Scenario{Kind: Reconnect, RefuseCold: true}, "the devices' policies were asked for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Runs: 3, Workers: 1}
			s := c.s
			b := s.WithDefaults().budget(c.f, cfg.WithDefaults())
			s.MemoryLimit = heapMinimum + 2*(b.kept+b.perRun) + 2*(64<<10)
			require.NoError(t, s.Validate(c.f, cfg), "the state counted ahead fits")
			_, err := Replay(context.Background(), c.f, s, cfg)
			var ce *kit.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.True(t, ce.Memory, "a memory refusal")
			assert.Contains(t, err.Error(), "run 0 (seed ")
			assert.Contains(t, err.Error(), c.grew)
			if testing.Short() {
				return // the replay in full, of millions of events, is left to the full run
			}
			s.MemoryLimit = 0
			_, err = Replay(context.Background(), c.f, s, cfg)
			assert.NoError(t, err, "within the default limit")
		})
	}
}

// A server model's replay stays within its memory limit, whether its
// growing state fits (the replay succeeds) or not (it stops with a memory
// error): a storm whose queue grows by thousands of jobs a second, with
// policies made for each request.
func TestMemoryModelsWithinLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a storm of millions of jobs is skipped under -short")
	}
	f := general(kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond}.Factory())
	for _, limit := range []int64{512 << 20} {
		s := Scenario{Kind: Overload, Rate: 7000, AcceptRate: 10_000, Clients: 20_000, MemoryLimit: limit}
		cfg := Config{Runs: 3, Workers: 2}
		require.NoError(t, s.Validate(f, cfg))
		var err error
		used := kittest.PeakHeap(time.Millisecond, func() { _, err = Replay(context.Background(), f, s, cfg) })
		t.Logf("limit %s: peak heap %s, %v", prose.FormatBytes(limit), prose.FormatBytes(used), err)
		var ce *kit.ConfigError
		if err != nil {
			require.ErrorAs(t, err, &ce)
			assert.True(t, ce.Memory, "only a memory refusal")
		}
		assert.LessOrEqual(t, used, limit, "the peak within the limit")
	}
}

// TestMemoryWorkers checks that Replay replays as many runs at once as
// fit in the memory limit, and at least one.
func TestMemoryWorkers(t *testing.T) {
	s, cfg := outageAt(100_000), Config{Runs: 20, Workers: 8}
	s.MemoryLimit = 1 << 40
	all := s.WithDefaults().budget(nil, cfg.WithDefaults())
	require.Equal(t, 8, all.workers, "runs at once within 1 TiB")
	within := func(workers int64) int64 { return 2*(all.kept+workers*all.perRun) + heapMinimum }
	for _, workers := range []int{1, 2, 5} {
		for _, limit := range []int64{within(int64(workers)), within(int64(workers)+1) - 1} {
			s.MemoryLimit = limit
			b := s.WithDefaults().budget(nil, cfg.WithDefaults())
			assert.Equal(t, workers, b.workers, "runs at once within %d bytes", limit)
			assert.LessOrEqual(t, b.need, limit, "the estimate within %d bytes", limit)
			assert.Equal(t, b.need, s.Memory(nil, cfg), "Memory")
		}
	}
	s.MemoryLimit = within(1) - 1
	assert.ErrorContains(t, s.Validate(nil, cfg), "above the memory limit", "one byte short of one run")
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{512, "512 B"}, {1536, "1.5 KiB"}, {12 << 30, "12.0 GiB"}, {1 << 62, "4.0 EiB"}} {
		assert.Equal(t, c.want, prose.FormatBytes(c.n), "prose.FormatBytes(%d)", c.n)
	}
	assert.Equal(t, "1,234,567", prose.FormatCount(1234567))
	assert.Equal(t, fmt.Sprint(999), prose.FormatCount(999))
}

// TestSizeClasses holds the estimate's picture of the allocator to the
// runtime's: every size class is what append rounds an array of that
// size to, and one byte more rounds to the next; and appended grows a
// slice to the capacities append gives it, for elements with and without
// pointers.
func TestSizeClasses(t *testing.T) {
	for i, c := range sizeClasses {
		assert.Equal(t, c, int64(cap(append([]byte(nil), make([]byte, c)...))), "the size class of %d bytes", c)
		if i+1 < len(sizeClasses) {
			assert.Equal(t, sizeClasses[i+1], int64(cap(append([]byte(nil), make([]byte, c+1)...))), "the size class of %d bytes", c+1)
		}
	}
	assert.Equal(t, int64(40<<10), objectBytes(32<<10+1, false), "a large object takes whole pages")

	var words []uint64
	var lists [][]uint64
	for n := int64(1); n <= 5000; n++ {
		words = append(words, 0)
		lists = append(lists, nil)
		if n < 8 {
			continue // the first arrays may be on the stack
		}
		held, _ := appended(n, 8, false)
		assert.Equal(t, objectBytes(int64(cap(words))*8, false), held, "a slice of %d words", n)
		held, _ = appended(n, 24, true)
		assert.Equal(t, objectBytes(int64(cap(lists))*24, true), held, "a slice of %d slices", n)
	}
}
