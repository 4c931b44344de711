package reports

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// TestStopLines pins how each format says how many runs a replay of the
// default runs made and why no more, and how a comparison and a fix say
// the runs of theirs, against a replay whose runs were set, which says
// neither.
func TestStopLines(t *testing.T) {
	stopped := &Replay{Scenario: sim.Scenario{}, Config: sim.Config{Runs: 20},
		Stop: &sim.Stop{Runs: 6, MaxRuns: 20, Reason: sim.StopClear}}
	full := &Replay{Scenario: sim.Scenario{}, Config: sim.Config{Runs: 20},
		Stop: &sim.Stop{Runs: 20, MaxRuns: 20, Reason: sim.StopMaxRuns, Undecided: sim.PeakRatio, Limit: 0.6}}
	set := &Replay{Scenario: sim.Scenario{}, Config: sim.Config{Runs: 20}}
	for _, c := range []struct {
		name       string
		p          *Replay
		line, stop string
	}{
		{"stopped early", stopped, "outage: 400 clients, accept rate 50/s, down 2s, window 1s, 6 of at most 20 runs, threshold 0.6",
			"Stopped after 6 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, and by a retry or a device at least."},
		{"every run", full, "outage: 400 clients, accept rate 50/s, down 2s, window 1s, 20 runs, threshold 0.6",
			"All 20 runs: the interval of the peak ratio (retries / accept budget) was neither clear of its limit of 0.6 by 10% of it nor narrower than 1% of it."},
		{"runs set", set, "outage: 400 clients, accept rate 50/s, down 2s, window 1s, 20 runs, threshold 0.6", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.line, replayLine(c.p), "the replay's line")
			assert.Equal(t, c.stop, stopLine(c.p), "the stop's sentence")
		})
	}

	cmp := Comparison{Scenario: sim.Scenario{}, Config: sim.Config{Runs: 20, Seed: 1}, Rows: []ComparisonRow{{Clients: 400, Runs: []int{6, 12}}, {Clients: 4000, Runs: []int{6, 6}}}}
	assert.Equal(t, "outage: 400 to 4,000 clients, accept rate 50/s, down 2s, window 1s, 6 to 12 of at most 20 runs per cell, seed 1", comparisonScenario(cmp))
	cmp.Rows[0].Runs = []int{6, 6}
	assert.Equal(t, "6 of at most 20 runs", cellRuns(cmp))
	cmp.Rows[0].Runs, cmp.Rows[1].Runs = []int{20, 20}, []int{20, 20}
	assert.Equal(t, "20 runs", cellRuns(cmp), "cells that all made the most")
	cmp.Rows[0].Runs, cmp.Rows[1].Runs = nil, nil
	assert.Equal(t, "20 runs", cellRuns(cmp), "cells of set runs")

	assert.Equal(t, "6 of at most 20 runs", fixRuns(*stopped, Fix{Runs: 6}), "a fix replayed with the default runs that stopped early")
	assert.Equal(t, "20 runs", fixRuns(*set, Fix{}), "a fix replayed with set runs")
}

// TestStopRendered replays a policy clearly over the threshold with the
// default runs, and finds where it stopped in the report's every format
// and in the replay's JSON.
func TestStopRendered(t *testing.T) {
	spec := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}
	res, err := sim.Replay(context.Background(), spec.Factory(), sim.Scenario{}, sim.Config{Seed: 1, RepresentativeOnly: true})
	require.NoError(t, err)
	require.NotNil(t, res.Stop)
	var r Report
	r.AddReplay(res)
	require.Equal(t, res.Stop, r.Replay.Stop, "the report's stop")
	want := "Stopped after 6 of at most 20 runs: every interval the verdict reads lies clear of its limit by 10% of it, and by a retry or a device at least."
	for _, f := range Formats() {
		var b bytes.Buffer
		require.NoError(t, WriteFormat(&b, f, r), string(f))
		if f == JUnit || f == JSON {
			continue
		}
		assert.Contains(t, b.String(), strings.TrimSuffix(want, "."), "%s", f)
	}
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, r))
	assert.Contains(t, text.String(), "\n  "+want+"\n", "the text summary")
	assert.Contains(t, text.String(), "6 of at most 20 runs, threshold 0.6", "the text summary's replay line")

	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, r))
	assert.Contains(t, js.String(), `"stop": {
      "runs": 6,
      "max_runs": 20,
      "reason": "clear"
    }`, "report.json")
}
