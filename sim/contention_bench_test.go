package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkContention replays 30 runs of the default contention (100
// clients) per iteration, for each of the simulator's strategies, as one
// worker would: "engine" on one contentionEngine, "oracle" the reference
// replay. ns/event is the time per event of the model (a message's
// arrival: reads and writes at the server, replies at the clients; the
// same count for both), and runs/s the runs replayed a second; their cpu-
// forms count the process's CPU time instead of the elapsed time, which
// on a shared machine includes the time other processes held the core.
//
//	go test -run='^$' -bench=Contention -benchtime=5x -count=3 -cpu=1 ./sim
func BenchmarkContention(b *testing.B) {
	const runs = 30
	c := defaultContention()
	for s := awsNone; s <= awsDecorrelated; s++ {
		f := awsBackoff(s, defaultContentionBase, defaultContentionCap)
		for _, impl := range []struct {
			name   string
			replay func(b *testing.B) func(int, uint64) (contentionRun, error)
		}{
			{"engine", func(b *testing.B) func(int, uint64) (contentionRun, error) {
				e, err := newContentionEngine(c, f)
				if err != nil {
					b.Fatal(err)
				}
				return e.replay
			}},
			{"oracle", func(*testing.B) func(int, uint64) (contentionRun, error) {
				return func(run int, seed uint64) (contentionRun, error) { return oracleContention(c, f, run, seed) }
			}},
		} {
			b.Run(s.String()+"/"+impl.name, func(b *testing.B) {
				benchModel(b, runs, impl.replay(b), func(r contentionRun) int { return r.Events })
			})
		}
	}
}

// BenchmarkContentionFloor is the least an event of the contention engine
// can cost, against which BenchmarkContention's engine is measured: per
// event, one draw of a message's network delay, one write of the heap's
// top and its sift (the engine's own net and fix), on a heap of the default
// contention's 100 clients, and nothing of the model. Its events/run are
// those of the default full-jitter run, for a like comparison.
//
//	go test -run='^$' -bench='Contention(Floor|/.*/engine)' -benchtime=5x -count=3 -cpu=1 ./sim
func BenchmarkContentionFloor(b *testing.B) {
	const runs, events = 30, 4_000
	e, err := newContentionEngine(defaultContention(), nil)
	require.NoError(b, err)
	benchModel(b, runs, func(run int, seed uint64) (int, error) {
		if err := e.start(run, seed); err != nil {
			return 0, err
		}
		for range events {
			e.heap[0].t += e.net()
			e.fix()
		}
		return events, nil
	}, func(n int) int { return n })
}

// benchModel replays runs runs of a model per iteration with replay and
// reports the time per event (events counts a run's), the runs replayed a
// second, and their cpu- forms, which count the process's CPU time instead
// of the elapsed time.
func benchModel[R any](b *testing.B, runs int, replay func(int, uint64) (R, error), events func(R) int) {
	n := 0
	b.ReportAllocs()
	cpu := cpuTime()
	for range b.N {
		for run := range runs {
			r, err := replay(run, runSeed(1, run))
			if err != nil {
				b.Fatal(err)
			}
			n += events(r)
		}
	}
	cpu = cpuTime() - cpu
	s := b.Elapsed().Seconds()
	b.ReportMetric(s*1e9/float64(n), "ns/event")
	b.ReportMetric(float64(runs*b.N)/s, "runs/s")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/event")
		b.ReportMetric(float64(runs*b.N)/cpu.Seconds(), "cpu-runs/s")
	}
	b.ReportMetric(float64(n)/float64(runs*b.N), "events/run")
}
