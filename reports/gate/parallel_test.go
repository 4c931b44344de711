package gate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestCellsSideBySideChangeNothing compares with one worker a cell, where the
// cells run side by side, and again with every core given to each cell,
// where they run one after another: the comparisons are the same, since a
// replay's result depends on its policy, scenario and seed alone.
func TestCellsSideBySideChangeNothing(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: cells never run side by side")
	}
	cfg := Config{Scenario: sim.Scenario{Clients: 2000, AcceptRate: 250}, Seed: 7, Replay: sim.Config{Runs: sim.MinRunsToPass, Workers: 1}}
	var policies []Policy
	for _, s := range builtins(nil, sim.Outage, 0) {
		policies = append(policies, SpecPolicy(s))
	}
	sizes := []int{1000, 2000}

	g := &gate{cfg: cfg.withDefaults()}
	atOnce, _ := g.plan([]cell{{p: policies[0]}, {p: policies[1]}}, 0)
	require.Greater(t, atOnce, 1, "one worker each: the cells run side by side")
	side, err := Compare(context.Background(), policies, sizes, cfg)
	require.NoError(t, err)

	cfg.Replay.Workers = runtime.GOMAXPROCS(0)
	g = &gate{cfg: cfg.withDefaults()}
	atOnce, _ = g.plan([]cell{{p: policies[0]}, {p: policies[1]}}, 0)
	require.Equal(t, 1, atOnce, "every core to each cell: one after another")
	serial, err := Compare(context.Background(), policies, sizes, cfg)
	require.NoError(t, err)
	assert.Equal(t, summaries(serial), summaries(side))
}

// summaries are a comparison's figures, without the configuration, whose
// Workers differ between the two plans and are not part of a result.
func summaries(cs []reports.Comparison) [][]reports.ComparisonRow {
	var out [][]reports.ComparisonRow
	for _, c := range cs {
		out = append(out, c.Rows)
	}
	return out
}

// TestPlanStaysWithinTheMemoryLimit gives the cells a memory limit that one
// replay fits in but two do not: they run one after another.
func TestPlanStaysWithinTheMemoryLimit(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: cells never run side by side")
	}
	s := sim.Scenario{Clients: 100_000, AcceptRate: 12_500}
	// What one cell needs, as the gate replays it: one worker each, and
	// only the representative run's histograms kept.
	p := SpecPolicy(kit.Spec{Strategy: kit.Full})
	one := s.Memory(p.Factory, sim.Config{Runs: 1, Workers: 1, RepresentativeOnly: true})
	cells := []cell{{p: p}, {p: p}}
	for _, tt := range []struct {
		name  string
		limit int64
		want  int
	}{
		{"room for both", 2 * one, 2},
		{"room for one", 2*one - 1, 1},
	} {
		s.MemoryLimit = tt.limit
		g := &gate{cfg: Config{Scenario: s, Replay: sim.Config{Runs: 1}}.withDefaults()}
		atOnce, _ := g.plan(cells, 0)
		assert.Equal(t, tt.want, atOnce, tt.name)
	}
}

// TestEachReturnsTheFirstCellsError makes the later cells fail first: the
// error is the lowest cell's, whichever finished first.
func TestEachReturnsTheFirstCellsError(t *testing.T) {
	var calls atomic.Int32
	var later sync.WaitGroup // cells 2 and 3, which fail before cell 1 does
	later.Add(2)
	err := each(4, 4, func(i int) error {
		calls.Add(1)
		switch i {
		case 1:
			later.Wait()
		case 2, 3:
			defer later.Done()
		}
		if i >= 1 {
			return fmt.Errorf("cell %d", i)
		}
		return nil
	})
	assert.EqualError(t, err, "cell 1")
	assert.Equal(t, int32(4), calls.Load(), "every cell ran")

	err = each(3, 1, func(i int) error { return errors.New("first") })
	assert.EqualError(t, err, "first")
}
