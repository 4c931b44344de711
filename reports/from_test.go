package reports_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestAddChecks carries the checks of a policy without jitter into a
// report: statuses, figures, the counterexample in seconds, early delays.
func TestAddChecks(t *testing.T) {
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	out, err := properties.Run(context.Background(), f, properties.Config{Seed: 1})
	require.NoError(t, err)
	var r reports.Report
	r.AddChecks(out)
	require.Len(t, r.Checks, len(out.Results), "checks")
	spread := *checkNamed(t, &r, properties.NameSpread)
	assert.Equal(t, properties.NameSpread, spread.Name)
	assert.Equal(t, verdict.Fail, spread.Status, "spread")
	assert.Zero(t, spread.Figure, "spread's figure")
	if x := spread.Counterexample; assert.NotNil(t, x, "spread's counterexample") && assert.NotEmpty(t, x.Devices, "spread's counterexample") {
		assert.Equal(t, time.Second, x.Devices[0].Delays[0], "spread's counterexample: the first delay of its first device")
	}
	if assert.Len(t, r.EarlyDelays, 3, "early delays: attempts") {
		assert.Equal(t, 3, r.EarlyDelays[2].Attempt, "the third early delays' attempt")
		assert.Equal(t, 4.0, r.EarlyDelays[2].DelaysS[0], "the third early delay of the first device, in seconds")
	}
}

// TestAddReplay carries the default outage's replay without jitter into a
// report: the scenario after its defaults, the summary figures, the
// histogram of the representative run only.
func TestAddReplay(t *testing.T) {
	f := kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	res, err := sim.Replay(context.Background(), f, sim.Scenario{}, sim.Config{Runs: 3, Seed: 1})
	require.NoError(t, err)
	var r reports.Report
	r.AddReplay(res)
	p := r.Replay
	require.NotNil(t, p)
	assert.Equal(t, sim.Scenario{}.WithDefaults(), p.Scenario)
	assert.Equal(t, verdict.Fail, p.Status)
	assert.Len(t, p.Runs, 3)
	assert.Equal(t, res.Summary, p.Summary)
	assert.Equal(t, 3800.0, p.Summary[sim.Attempts].Median)
	assert.Equal(t, 50.0, p.Budget())
	arrivals, _ := p.Histogram()
	require.NotEmpty(t, arrivals)
	assert.Equal(t, 1600, arrivals[0])
	for i, run := range p.Runs {
		if i != p.Representative {
			assert.Nil(t, run.Arrivals, "run %d keeps no histogram", i)
		}
	}
}
