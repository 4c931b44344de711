package reports_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// replayReport replays spec on s and returns the report of that replay.
func replayReport(t *testing.T, spec string, s sim.Scenario) reports.Report {
	t.Helper()
	p, err := kit.ParseSpec(spec)
	require.NoError(t, err)
	res, err := sim.Replay(context.Background(), p.Factory(), s, sim.Config{Runs: 5, Seed: 1})
	require.NoError(t, err)
	r := reports.Report{Policy: reports.Policy{Spec: spec}}
	r.AddReplay(res)
	return r
}

// TestAdvisePeriodicAligned: 2,000 timers on the minute against 100
// accepted a second are a timer load of 20, which the advice puts first as
// the timers' own, to be fixed by their offsets; a measured fix of the
// policy is said as the policy of the re-sends, and no sentence asks for a
// longer base.
func TestAdvisePeriodicAligned(t *testing.T) {
	r := replayReport(t, "none:base=1s,cap=1s", sim.Scenario{Kind: sim.PeriodicAligned, Clients: 2000, AcceptRate: 100})
	require.Equal(t, verdict.Fail, r.Replay.Status, "the replay: %s", r.Replay.Detail)
	r.Fixes = []reports.Fix{{
		Change:    "use full jitter and raise the base from 1s to 50s and the cap from 1s to 50s: full:base=50s,cap=50s",
		Spec:      "full:base=50s,cap=50s",
		PeakRatio: sim.Estimate{Median: 0.45, Low: 0.44, High: 0.46},
	}}
	advice := reports.Advise(r)
	require.NotEmpty(t, advice)
	assert.Equal(t, "The timers alone put up to 2,000 firings in one 1s window, a timer load of 20 over the 0.6 threshold, more than the server accepts: the server rejects firings there whatever the re-sends do; give each device its own offset within the 1m period, such as a hash of its id, which would load about 0.333; no retry policy can fix aligned timers.", advice[0])
	assert.Contains(t, advice, "Time the re-sends of rejected firings with full:base=50s,cap=50s, which passes on the same timers (its peak ratio is 0.45 [0.44, 0.46]).")
	for _, a := range advice {
		assert.NotContains(t, a, "raise the base", "advice on periodic-aligned timers")
		assert.NotContains(t, a, "the base must", "advice on periodic-aligned timers")
	}

	r.Fixes = nil
	for _, a := range reports.Advise(r) {
		assert.NotContains(t, a, "base", "advice on periodic-aligned timers without a fix")
	}
}

// TestAdvisePolicyOffsets: timers whose offsets are the policy's fixed
// first second crowd the server, and the advice says to spread that first
// delay over the period.
func TestAdvisePolicyOffsets(t *testing.T) {
	r := replayReport(t, "none:base=1s,cap=1s", sim.Scenario{Kind: sim.Periodic, Clients: 2000, AcceptRate: 100, TimerOffset: sim.OffsetPolicy})
	require.Equal(t, verdict.Fail, r.Replay.Status, "the replay: %s", r.Replay.Detail)
	advice := reports.Advise(r)
	require.NotEmpty(t, advice)
	assert.Equal(t, "The timers alone put up to 2,000 firings in one 1s window, a timer load of 20 over the 0.6 threshold, more than the server accepts: the server rejects firings there whatever the re-sends do; spread the policy's first delay, each timer's offset, evenly over the 1m period (a full-jitter draw up to the period), which would load about 0.333.", advice[0])
}

// TestAdviseWideWindow: the default outage's storm of full jitter in 6m
// windows warns, and the advice says to judge it in 1s windows.
func TestAdviseWideWindow(t *testing.T) {
	r := replayReport(t, "full:base=100ms,cap=10s", sim.Scenario{Window: 6 * time.Minute})
	require.Equal(t, verdict.Fail, r.Replay.Status, "the replay: %s", r.Replay.Detail)
	advice := reports.Advise(r)
	require.Len(t, advice, 1)
	assert.True(t, strings.HasPrefix(advice[0], "A 6m window averages the storm away, which 1s windows show: at 1s the peak ratio is "), "advice: %q", advice[0])
	assert.True(t, strings.HasSuffix(advice[0], "; judge the replay in 1s windows."), "advice: %q", advice[0])
}

// TestTimerFiguresShown: every format shows the timers' figures of a
// periodic replay and the 1s peaks of a wide window, under their labels or
// JSON names, and leaves them out where the replay has none.
func TestTimerFiguresShown(t *testing.T) {
	periodic := replayReport(t, "full:base=1s,cap=30s", sim.Scenario{Kind: sim.Periodic, Clients: 3000, AcceptRate: 60})
	wide := replayReport(t, "full:base=100ms,cap=10s", sim.Scenario{Window: 6 * time.Minute})
	outage := replayReport(t, "full:base=100ms,cap=10s", sim.Scenario{})
	formats := []struct {
		name  string
		write func(io.Writer, reports.Report) error
	}{
		{"text", reports.WriteText}, {"markdown", reports.WriteMarkdown}, {"html", reports.WriteHTML},
	}
	render := func(write func(io.Writer, reports.Report) error, r reports.Report) string {
		var b bytes.Buffer
		require.NoError(t, write(&b, r))
		return b.String()
	}
	timerLabels := []string{sim.PeakFirings.Label(), sim.FiringsMissed.Label(), "firings served", "devices that missed a firing"}
	wideLabels := []string{sim.PeakRetryArrivals1s.Label()}
	for _, f := range formats {
		got := render(f.write, periodic)
		for _, l := range timerLabels {
			assert.Contains(t, got, l, "%s of a periodic replay", f.name)
		}
		got = render(f.write, wide)
		for _, l := range wideLabels {
			assert.Contains(t, got, l, "%s of a 6m window", f.name)
		}
		got = render(f.write, outage)
		for _, l := range append(timerLabels, wideLabels...) {
			assert.NotContains(t, got, l, "%s of the default outage", f.name)
		}
	}
	got := render(reports.WriteJSON, periodic)
	for _, key := range []sim.Figure{sim.PeakFirings, sim.TimerLoadRatio, sim.FiringsMissed} {
		assert.Contains(t, got, `"`+string(key)+`"`, "JSON of a periodic replay")
	}
	assert.Contains(t, render(reports.WriteJSON, wide), `"`+string(sim.PeakRatio1s)+`"`, "JSON of a 6m window")
}
