package sim

import (
	"context"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// BenchmarkModelReplay replays each server model's scenario at its
// defaults through Replay, 30 runs on one worker per iteration, with the
// baselines Replay adds (an overload's fleet without retries, a
// contention's five simulator strategies): the whole cost a gate pays for
// one replay of these kinds on one core. s/30-fleets is the elapsed time
// per replay and cpu-s/30-fleets the process's CPU time.
//
//	go test -run='^$' -bench=ModelReplay -benchtime=3x -count=3 -cpu=1 ./sim
func BenchmarkModelReplay(b *testing.B) {
	full := func(base, cap time.Duration) kit.Factory {
		return kit.Spec{Strategy: kit.Full, Base: base, Cap: cap}.Factory()
	}
	for _, c := range []struct {
		name string
		s    Scenario
		f    kit.Factory
	}{
		{"overload", Scenario{Kind: Overload}, full(100*time.Millisecond, 10*time.Second)},
		{"overload-queue-limit", Scenario{Kind: Overload, QueueLimit: 50}, full(100*time.Millisecond, 10*time.Second)},
		{"reconnect-reset", Scenario{Kind: Reconnect}, full(time.Second, 30*time.Second)},
		{"reconnect-continue", Scenario{Kind: Reconnect, OnDrop: DropContinue}, full(time.Second, 30*time.Second)},
		{"contention", Scenario{Kind: Contention}, full(10*time.Millisecond, 2*time.Second)},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{Runs: 30, Workers: 1, Seed: 1}
			cpu := cpuTime()
			for range b.N {
				if _, err := Replay(context.Background(), c.f, c.s, cfg); err != nil {
					b.Fatal(err)
				}
			}
			cpu = cpuTime() - cpu
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/30-fleets")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/30-fleets")
		})
	}
}
