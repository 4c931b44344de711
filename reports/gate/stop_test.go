package gate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestGateOfDefaultRuns gates a policy without jitter with the default
// runs: its replay, every cell of its comparison and the replay of its fix
// stop once their verdicts are decided, and the report says where.
func TestGateOfDefaultRuns(t *testing.T) {
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "none:base=1s,cap=30s")), gate.Config{Steps: gate.Replay | gate.Comparison | gate.Fix})
	require.NoError(t, err)
	require.NotNil(t, rep.Replay)
	require.NotNil(t, rep.Replay.Stop, "the replay's stop")
	assert.Equal(t, sim.Stop{Runs: 6, MaxRuns: defaultRuns, Reason: sim.StopClear}, *rep.Replay.Stop, "the replay's stop")
	assert.Len(t, rep.Replay.Runs, 6, "the replay's runs")
	assert.Equal(t, defaultRuns, rep.Replay.Config.Runs, "the replay's configured runs, the most")
	require.Len(t, rep.Comparisons, 1)
	for _, row := range rep.Comparisons[0].Rows {
		require.Len(t, row.Runs, len(row.Cells), "the runs of each cell of row %+v", row)
		for i, n := range row.Runs {
			assert.Contains(t, []int{6, 12, defaultRuns}, n, "the runs of cell %d", i)
		}
	}
	require.NotEmpty(t, rep.Fixes, "the fixes")
	for _, f := range rep.Fixes {
		assert.Contains(t, []int{0, 6, 12}, f.Runs, "the runs of the replay of %s; 0 for all %d", f.Change, defaultRuns)
	}
}

// defaultRuns is the most runs a replay takes when Config.Runs is zero.
var defaultRuns = sim.Config{}.WithDefaults().Runs
