package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// outageAt is the default outage scaled to n devices: the server accepts
// n/8 requests per second (125,000 for a million devices; 50 for the
// default 400) and is down for 2s.
func outageAt(n int) Scenario {
	return Scenario{Clients: n, AcceptRate: float64(n) / 8}
}

// BenchmarkReplay replays the default outage under each strategy's
// default spec at four fleet sizes, one run per iteration, and reports the
// cost per attempt,
// elapsed and in CPU time (on a shared machine the elapsed time counts
// other processes too), and the bytes the replay allocates per device,
// everything included. The factory is a kit.Spec's, which the engine
// replays on compact state; "general" wraps it, so that the engine calls
// each device's policy, as it does any other factory's. The strategies'
// costs per attempt differ (none draws nothing, decorrelated the most
// arithmetic), and so do their attempts a device. policy-B/device
// is what making the fleet's policies alone allocates, which the general
// path allocates among its B/device.
//
//	go test -run='^$' -bench=Replay -benchtime=3x -count=3 ./sim
//	go test -run='^$' -bench='Replay$/outage/./devices=1000000$' -benchtime=3x -count=2 -cpu=1 ./sim
func BenchmarkReplay(b *testing.B) {
	for _, st := range kit.Strategies() {
		spec := kit.Spec{Strategy: st}.Factory()
		for _, path := range []struct {
			name string
			f    kit.Factory
		}{{"outage/" + string(st), spec}, {"outage/" + string(st) + "/general", general(spec)}} {
			for _, n := range []int{10_000, 100_000, 1_000_000, 10_000_000} {
				b.Run(fmt.Sprintf("%s/devices=%d", path.name, n), func(b *testing.B) {
					if testing.Short() && n > 100_000 {
						b.Skip("large fleets are skipped under -short")
					}
					benchReplay(b, path.f, outageAt(n), func(ctx context.Context, s Scenario) (Run, error) {
						r, err := Replay(ctx, path.f, s, Config{Runs: 1, Workers: 1})
						if err != nil {
							return Run{}, err
						}
						return r.Runs[0], nil
					})
				})
			}
		}
	}
}

// BenchmarkReplayLongOutage replays the default long outage (down an hour)
// scaled to 100,000 devices under full jitter, one run per iteration: 730
// attempts a device, whose seconds each hold a fifth of the fleet in runs
// from the ten seconds before, where reading the devices' state in order
// matters most.
//
//	go test -run='^$' -bench=ReplayLongOutage -benchtime=1x -count=5 ./sim
func BenchmarkReplayLongOutage(b *testing.B) {
	spec := kit.Spec{Strategy: kit.Full}.Factory()
	for _, path := range []struct {
		name string
		f    kit.Factory
	}{{"full", spec}, {"full/general", general(spec)}} {
		n := 100_000
		b.Run(fmt.Sprintf("%s/devices=%d", path.name, n), func(b *testing.B) {
			if testing.Short() {
				b.Skip("a long outage takes seconds a run")
			}
			s := Scenario{Kind: LongOutage, Clients: n, AcceptRate: float64(n) / 8}
			benchReplay(b, path.f, s, func(ctx context.Context, s Scenario) (Run, error) {
				r, err := Replay(ctx, path.f, s, Config{Runs: 1, Workers: 1})
				if err != nil {
					return Run{}, err
				}
				return r.Runs[0], nil
			})
		})
	}
}

// BenchmarkReplayCrowdedSeconds replays a million devices of each
// strategy (base 1s, cap 30s) against 50,000 accepted a second, down 30s,
// one run per iteration: its seconds hold hundreds of thousands of
// arrivals each, of devices in no order, whose state is read ahead in
// blocks (see readAheadBlock) so that the cache misses of a block overlap.
//
//	go test -run='^$' -bench=ReplayCrowdedSeconds -benchtime=3x -count=3 ./sim
func BenchmarkReplayCrowdedSeconds(b *testing.B) {
	s := Scenario{Clients: 1_000_000, AcceptRate: 50_000, Down: 30 * time.Second}
	for _, st := range kit.Strategies() {
		f := kit.Spec{Strategy: st, Base: time.Second, Cap: 30 * time.Second}.Factory()
		b.Run(string(st), func(b *testing.B) {
			if testing.Short() {
				b.Skip("a million devices are skipped under -short")
			}
			benchReplay(b, f, s, func(ctx context.Context, s Scenario) (Run, error) {
				r, err := Replay(ctx, f, s, Config{Runs: 1, Workers: 1})
				if err != nil {
					return Run{}, err
				}
				return r.Runs[0], nil
			})
		})
	}
}

// BenchmarkReplayServers replays each server model under full jitter's
// default spec, 100,000 devices against 12,500 accepted a second, one run
// per iteration: the default outage, and the periodic-aligned timers,
// whose every second the engine decides arrival by arrival, in time order,
// asking the server about each. The per-second server's outage takes the
// fast path of BenchmarkReplay; the token bucket's every second is asked
// arrival by arrival.
//
//	go test -run='^$' -bench=ReplayServers -benchtime=3x -count=5 ./sim
func BenchmarkReplayServers(b *testing.B) {
	f := kit.Spec{Strategy: kit.Full}.Factory()
	const n = 100_000
	for _, kind := range []Kind{Outage, PeriodicAligned} {
		for _, server := range Servers() {
			b.Run(fmt.Sprintf("%s/%s/devices=%d", kind, server, n), func(b *testing.B) {
				s := outageAt(n)
				s.Kind, s.Server = kind, server
				benchReplay(b, f, s, func(ctx context.Context, s Scenario) (Run, error) {
					r, err := Replay(ctx, f, s, Config{Runs: 1, Workers: 1})
					if err != nil {
						return Run{}, err
					}
					return r.Runs[0], nil
				})
			})
		}
	}
}

// BenchmarkHeap replays the same experiment with the obvious design, one
// priority queue of every pending arrival, for comparison with the
// calendar of seconds that Replay uses: "plain" is heapReplay, the test
// oracle (container/heap, a map of seconds); "tuned" is tunedHeapReplay
// (a typed heap, the per-second server only).
//
//	go test -run='^$' -bench='Replay|Heap' -benchtime=3x -count=3 ./sim
func BenchmarkHeap(b *testing.B) {
	f := kit.Spec{Strategy: kit.Full}.Factory()
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("plain/outage/full/devices=%d", n), func(b *testing.B) {
			if testing.Short() && n > 100_000 {
				b.Skip("large fleets are skipped under -short")
			}
			benchReplay(b, f, outageAt(n), func(_ context.Context, s Scenario) (Run, error) {
				return heapReplay(f, s, 0), nil
			})
		})
		b.Run(fmt.Sprintf("tuned/outage/full/devices=%d", n), func(b *testing.B) {
			if testing.Short() && n > 100_000 {
				b.Skip("large fleets are skipped under -short")
			}
			benchReplay(b, f, outageAt(n), func(_ context.Context, s Scenario) (Run, error) {
				attempts, last := tunedHeapReplay(f, s, 0)
				return Run{Attempts: attempts, AllServed: last}, nil
			})
		})
	}
}

func benchReplay(b *testing.B, f kit.Factory, s Scenario, replay func(context.Context, Scenario) (Run, error)) {
	n := s.Clients
	policyBytes := allocated(func() {
		prefix := devicePrefix(0)
		for i := range n {
			policySink = f(kit.Device{ID: serialID(prefix, i), Boot: epoch})
		}
	})
	var attempts int
	var bytes uint64
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		bytes += allocated(func() {
			r, err := replay(context.Background(), s)
			if err != nil {
				b.Fatal(err)
			}
			attempts += r.Attempts
		})
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/float64(attempts), "ns/attempt")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(attempts), "cpu-ns/attempt")
	}
	b.ReportMetric(float64(attempts)/float64(b.N)/float64(n), "attempts/device")
	b.ReportMetric(float64(bytes)/float64(b.N)/float64(n), "B/device")
	b.ReportMetric(float64(policyBytes)/float64(n), "policy-B/device")
}

// policySink keeps the policies the benchmarks make from being optimised
// away.
var policySink kit.Policy

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkReferenceScript does the work of the reference Python
// simulation of the default outage at the given size: the outage replayed
// once each with no, equal and full jitter, backoff from 0.1s to 10s.
// "sequential" replays them one after the other on one goroutine, as the
// script does (run it with GOMAXPROCS=1 to keep the garbage collector on
// the same core); "concurrent" replays the three at once, as a comparison
// of policies would. Compare with the Python script at a million devices,
//
//	python3 retry-storm-no-jitter-versus-full.py --clients 1000000 --capacity 125000
//
// against
//
//	go test -run='^$' -bench=ReferenceScript -benchtime=1x -count=5 ./sim
func BenchmarkReferenceScript(b *testing.B) {
	modes := []kit.Strategy{kit.None, kit.Equal, kit.Full}
	replay := func(b *testing.B, s Scenario, st kit.Strategy) {
		f := kit.Spec{Strategy: st, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
		if _, err := Replay(context.Background(), f, s, Config{Runs: 1, Workers: 1}); err != nil {
			b.Error(err)
		}
	}
	for _, n := range []int{400, 100_000, 1_000_000} {
		s := outageAt(n)
		b.Run(fmt.Sprintf("sequential/devices=%d", n), func(b *testing.B) {
			if testing.Short() && n > 100_000 {
				b.Skip("large fleets are skipped under -short")
			}
			for range b.N {
				for _, st := range modes {
					replay(b, s, st)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/script")
		})
		b.Run(fmt.Sprintf("concurrent/devices=%d", n), func(b *testing.B) {
			if testing.Short() && n > 100_000 {
				b.Skip("large fleets are skipped under -short")
			}
			for range b.N {
				var wg sync.WaitGroup
				for _, st := range modes {
					wg.Go(func() { replay(b, s, st) })
				}
				wg.Wait()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/script")
		})
	}
}
