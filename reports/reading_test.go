package reports_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

func TestInconclusive(t *testing.T) {
	tests := []struct {
		name string
		rep  reports.Report
		want []string
	}{
		{"every part judged", reports.Report{Checks: []properties.Result{{Name: "spread", Status: verdict.Pass}}, Replay: &reports.Replay{Status: verdict.Fail}}, nil},
		{"a check", reports.Report{Checks: []properties.Result{{Name: "spread", Status: verdict.Pass}, {Name: "frozen-clock", Status: verdict.Inconclusive}}}, []string{"frozen-clock"}},
		{"checks and the replay", reports.Report{Checks: []properties.Result{{Name: "spread", Status: verdict.Inconclusive}, {Name: "bounds", Status: verdict.Inconclusive}}, Replay: &reports.Replay{Status: verdict.Inconclusive}}, []string{"spread", "bounds", "replay"}},
		{"a skipped check is judged not to apply", reports.Report{Checks: []properties.Result{{Name: "frozen-clock", Status: verdict.Skipped}}}, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.rep.Inconclusive(), tt.name)
	}
}

// TestReplayWriteJSON writes the replay a report holds as sim writes its
// result, byte for byte (the gate keeps the representative run's
// histograms alone), and refuses a stopped replay.
func TestReplayWriteJSON(t *testing.T) {
	s := kit.Spec{Strategy: kit.Full}
	res, err := sim.Replay(t.Context(), s.Factory(), sim.Scenario{Clients: 50}, sim.Config{Runs: 3, RepresentativeOnly: true})
	require.NoError(t, err)
	var rep reports.Report
	rep.AddReplay(res)
	var got, want bytes.Buffer
	require.NoError(t, rep.Replay.WriteJSON(&got, s.String()))
	require.NoError(t, res.WriteJSON(&want, s.String()))
	assert.Equal(t, want.String(), got.String())

	stopped := &reports.Replay{Stopped: &properties.Counterexample{}}
	assert.ErrorIs(t, stopped.WriteJSON(&got, "p"), reports.ErrNoFigures)
}

// TestComparisonStrategy finds a strategy's cell by the column's policy,
// wherever it stands.
func TestComparisonStrategy(t *testing.T) {
	c := reports.Comparison{
		Policies: []string{"my-policy", "equal:base=1s,cap=30s", "none:base=1s,cap=30s"},
		Rows:     []reports.ComparisonRow{{Clients: 400, Cells: []sim.Estimate{{Median: 1}, {Median: 2}, {Median: 3}}}},
	}
	got, ok := c.Strategy(0, kit.None)
	assert.True(t, ok)
	assert.Equal(t, 3.0, got.Median, "no jitter's cell")
	got, ok = c.Strategy(0, kit.Equal)
	assert.True(t, ok)
	assert.Equal(t, 2.0, got.Median, "equal jitter's cell")
	_, ok = c.Strategy(0, kit.Full)
	assert.False(t, ok, "no column is full jitter")
	_, ok = c.Strategy(1, kit.None)
	assert.False(t, ok, "no second row")
}
