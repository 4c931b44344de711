package sim

import (
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// BenchmarkOverload replays 30 runs of the default overload (3 retries,
// full jitter from 100ms) per iteration, as one worker would: "engine" on
// one overloadEngine, "engine-general" with the policies made per request
// through a factory the engine does not recognise, and "oracle" the
// reference replay. ns/event is the time per event of the model (attempts
// sent and arrived, jobs completed or skipped, outcomes learned: the same
// count for all three), and runs/s the runs replayed a second; their cpu-
// forms count the process's CPU time instead of the elapsed time, which
// on a shared machine includes the time other processes held the core.
//
//	go test -run='^$' -bench=Overload -benchtime=5x -count=3 -cpu=1 ./sim
func BenchmarkOverload(b *testing.B) {
	const runs = 30
	o := defaultOverload()
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond}.Factory()
	engine := func(f kit.Factory) func(b *testing.B) func(int, uint64) (overloadRun, error) {
		return func(b *testing.B) func(int, uint64) (overloadRun, error) {
			e, err := newOverloadEngine(o, f)
			if err != nil {
				b.Fatal(err)
			}
			return e.replay
		}
	}
	for _, c := range []struct {
		name   string
		replay func(b *testing.B) func(int, uint64) (overloadRun, error)
	}{
		{"engine", engine(spec)},
		{"engine-general", engine(general(spec))},
		{"oracle", func(*testing.B) func(int, uint64) (overloadRun, error) {
			return func(run int, seed uint64) (overloadRun, error) { return oracleOverload(o, spec, run, seed) }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchModel(b, runs, c.replay(b), func(r overloadRun) int { return r.events() })
		})
	}
}

// BenchmarkOverloadBudget replays 30 runs of the default overload as
// BenchmarkOverload's engine does, under each budget held by each device
// and by the fleet: what the budget's state costs per event.
//
//	go test -run='^$' -bench=OverloadBudget -benchtime=5x -count=3 -cpu=1 ./sim
func BenchmarkOverloadBudget(b *testing.B) {
	const runs = 30
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond}.Factory()
	for _, kind := range append([]BudgetKind{NoBudget}, BudgetKinds()...) {
		for _, scope := range BudgetScopes() {
			if kind == NoBudget && scope == ScopeFleet {
				continue
			}
			o := defaultOverload()
			name := "none"
			if kind != NoBudget {
				o.Budget = Budget{Kind: kind, Scope: scope}.WithDefaults()
				name = string(kind) + "/" + string(scope)
			}
			b.Run(name, func(b *testing.B) {
				e, err := newOverloadEngine(o, spec)
				if err != nil {
					b.Fatal(err)
				}
				benchModel(b, runs, e.replay, func(r overloadRun) int { return r.events() })
			})
		}
	}
}
