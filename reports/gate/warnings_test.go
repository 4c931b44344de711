package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestFailWarnings replays full jitter's storm in 6m windows, which
// average it away: the replay fails by default, warns (and the gate
// passes) when the window is allowed to average, and fails again when
// every warning fails, saying so.
func TestFailWarnings(t *testing.T) {
	p := gate.SpecPolicy(kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second})
	for _, c := range []struct {
		name        string
		allow, fail bool
		replay      verdict.Status
		verdict     verdict.Status
	}{
		{"by default", false, false, verdict.Fail, verdict.Fail},
		{"the window allowed to average", true, false, verdict.Warn, verdict.Pass},
		{"allowed, every warning failing", true, true, verdict.Fail, verdict.Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := gate.Config{Steps: gate.Replay, Scenario: sim.Scenario{Window: 6 * time.Minute},
				Replay: sim.Config{Runs: 5, AllowWideWindow: c.allow}, FailWarnings: c.fail}
			rep, err := gate.Run(context.Background(), p, cfg)
			require.NoError(t, err)
			require.NotNil(t, rep.Replay)
			assert.Equal(t, c.replay, rep.Replay.Status, rep.Replay.Detail)
			assert.Equal(t, c.verdict, rep.Verdict)
			assert.Contains(t, rep.Replay.Detail, "a 6m window averages the storm away")
			if c.fail {
				assert.Contains(t, rep.Replay.Detail, "which fails, since every warning does")
			}
		})
	}
}

// TestCollapseInEveryFormat gates the bimodal overload, full jitter from
// 1s to 30s under a dip of 1.25s, at seed 1: 6 of its 20 runs collapse
// while the median run recovers at once. The gate fails, and every format
// shows the share of runs that collapsed, its bounds, and how to replay
// the first of them.
func TestCollapseInEveryFormat(t *testing.T) {
	p := gate.SpecPolicy(kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second})
	cfg := gate.Config{Steps: gate.Replay, Scenario: sim.Scenario{Kind: sim.Overload, DipFor: 1250 * time.Millisecond},
		Reproduce: func(step gate.Step, seed uint64) string { return fmt.Sprintf("replay-it --seed %d", seed) }}
	rep, err := gate.Run(context.Background(), p, cfg)
	require.NoError(t, err)
	require.NotNil(t, rep.Replay)
	assert.Equal(t, verdict.Fail, rep.Verdict)
	c := rep.Replay.Collapses
	require.NotNil(t, c)
	assert.Equal(t, 6, c.Collapsed)
	assert.Equal(t, uint64(1), c.Seed)
	assert.Equal(t, "replay-it --seed 1", rep.Replay.Reproduce)
	for _, f := range []struct {
		name  string
		write func(io.Writer, reports.Report) error
		want  []string
	}{
		{"text", reports.WriteText, []string{"6 of 20 runs never recovered", "runs that collapsed (share; each bound one-sided)", "replay-it --seed 1"}},
		{"markdown", reports.WriteMarkdown, []string{"6 of 20 runs collapsed", "runs that collapsed (share; each bound one-sided)", "replay-it --seed 1"}},
		{"html", reports.WriteHTML, []string{"6 of 20 runs collapsed", "runs that collapsed (share; each bound one-sided)", "replay-it --seed 1"}},
		{"junit", reports.WriteJUnit, []string{"6 of 20 runs collapsed", "runs that collapsed (share; each bound one-sided): 0.3 [0.14, 0.508]", "replay-it --seed 1"}},
		{"json", reports.WriteJSON, []string{`"collapses": {`, `"collapsed": 6`, `"reproduce": "replay-it --seed 1"`}},
	} {
		var b bytes.Buffer
		require.NoError(t, f.write(&b, rep), f.name)
		for _, w := range f.want {
			assert.Contains(t, b.String(), w, f.name)
		}
	}
}
