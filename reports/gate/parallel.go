package gate

import (
	"runtime"
	"slices"
	"sync"

	"github.com/jitterkit/jitterkit/sim"
)

// A cell is one replay among several of a step: a policy at a fleet size,
// with the scenario's retry budget or another.
type cell struct {
	p       Policy
	clients int // 0 for the configured fleet
	// budget, when it has a kind, replaces the scenario's retry budget.
	budget sim.Budget
}

// plan says how the cells of a step share the machine: how many replays
// run at once, and how many workers each replays its runs on. A replay
// already spreads its runs over the cores, so replays run side by side
// only when each has fewer runs than there are cores, as few as keep every
// core busy, and only as many as fit in the memory limit together: the
// sum of the largest estimates of that many cells stays within the
// smallest limit of them, less the memory the gate keeps beside them (the
// replies of an external program, see reuseReplies). The results do not
// depend on the plan: a replay's result depends on its policy, scenario
// and seed alone.
func (g *gate) plan(cells []cell, runs int) (atOnce int, cfg sim.Config) {
	cfg = g.cfg.Replay
	if runs > 0 {
		cfg.Runs = runs
	}
	cores := runtime.GOMAXPROCS(0)
	workers := cfg.Workers
	if workers <= 0 {
		workers = min(cfg.WithDefaults().Runs, cores)
	}
	atOnce = min(len(cells), max(1, cores/workers))
	if atOnce <= 1 {
		return 1, cfg
	}
	cfg.Workers = workers
	need := make([]int64, 0, len(cells))
	limit := int64(-1)
	for _, c := range cells {
		s, err := g.cellScenario(c)
		if err != nil {
			return 1, g.cfg.Replay
		}
		d := s.WithDefaults()
		need = append(need, d.Memory(c.p.Factory, cfg))
		if limit < 0 || d.MemoryLimit < limit {
			limit = d.MemoryLimit
		}
	}
	limit -= g.reserved
	slices.Sort(need)
	slices.Reverse(need)
	for atOnce > 1 && sum(need[:atOnce]) > limit {
		atOnce--
	}
	if atOnce == 1 {
		return 1, withRuns(g.cfg.Replay, runs)
	}
	return atOnce, cfg
}

func withRuns(cfg sim.Config, runs int) sim.Config {
	if runs > 0 {
		cfg.Runs = runs
	}
	return cfg
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// each calls do(i) for every i in [0, n), atOnce calls at a time, and
// returns the error of the lowest i that failed, whatever the order in
// which the calls finished: the error, like the results, does not depend
// on the plan.
func each(n, atOnce int, do func(i int) error) error {
	errs := make([]error, n)
	if atOnce <= 1 {
		for i := range n {
			if errs[i] = do(i); errs[i] != nil {
				return errs[i]
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, atOnce)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = do(i)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
