package gate_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestFixOnTheRecordedFleet replays the changes offered for a recording
// of 2,000 devices on 2,000 devices: each built-in's figures are those of
// a gate of it on a fleet of that size, not of the default 400.
func TestFixOnTheRecordedFleet(t *testing.T) {
	cfg := gate.Config{Steps: gate.Replay | gate.Fix, Scenario: sim.Scenario{AcceptRate: 100}, Replay: sim.Config{Runs: 5}}
	rep, err := gate.Run(context.Background(), recording(t, 2000), cfg)
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, rep.Verdict)
	var specs int
	for _, f := range rep.Fixes {
		if f.Spec == "" {
			continue
		}
		specs++
		at := cfg
		at.Steps, at.Scenario.Clients = gate.Replay, 2000
		again, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, f.Spec)), at)
		require.NoError(t, err)
		assert.Equal(t, verdict.Pass, again.Verdict, "%s on 2,000 devices", f.Spec)
		assert.InDelta(t, again.Replay.Summary[sim.PeakRatio].Median, f.PeakRatio.Median, 1e-9, "%s: the fix's figures are the recorded fleet's", f.Spec)
	}
	require.Positive(t, specs, "fixes %v", rep.Fixes)
}

// TestNoSearchUnderRetryAfter gates a jittered policy against a server
// whose fixed Retry-After puts the fleet back in step: no change of the
// policy is searched, since the devices wait the hint, and the advice is
// to spread the hint, not to raise the base.
func TestNoSearchUnderRetryAfter(t *testing.T) {
	cfg := gate.Config{Scenario: sim.Scenario{Server: sim.RetryAfter, RetryAfter: time.Second}, Replay: sim.Config{Runs: 3}}
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "full:base=1s,cap=30s")), cfg)
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, rep.Verdict)
	assert.Empty(t, rep.Fixes)
	assert.False(t, rep.FixesNotSearched, "the search ran, and found that no change of the policy can pass")
	require.Len(t, rep.Advice, 1, "%q", rep.Advice)
	assert.Contains(t, rep.Advice[0], "Spread the Retry-After (peak ratio 8 > 0.6): the server's fixed Retry-After of 1s decides when every device retries, whatever its policy")
	assert.Contains(t, rep.Advice[0], "spread over 13.3s at least")
	assert.NotContains(t, rep.Advice[0], "base")
	require.Len(t, rep.Comparisons, 1)
	c := rep.Comparisons[0]
	assert.Contains(t, c.Note, "every policy replays alike")
	for _, e := range c.Rows[0].Cells {
		assert.Equal(t, c.Rows[0].Cells[0].Median, e.Median, "every column of %q", c.Policies)
	}
}

// TestComparisonNoteShown renders the note of a comparison at a policy's
// own scale in the terminal's text, the Markdown and the HTML report.
func TestComparisonNoteShown(t *testing.T) {
	cfg := gate.Config{Steps: gate.Checks | gate.Replay | gate.Comparison, Checks: properties.Config{Cap: 30 * time.Second}, Replay: sim.Config{Runs: 3}}
	rep, err := gate.Run(context.Background(), gate.GoPolicy("mine", spec(t, "full:base=1s,cap=30s").Factory()), cfg)
	require.NoError(t, err)
	require.Len(t, rep.Comparisons, 1)
	note := "each base is chosen so that the first delays average"
	require.Contains(t, rep.Comparisons[0].Note, note)
	for name, write := range map[string]func(*bytes.Buffer, reports.Report) error{
		"text":     func(b *bytes.Buffer, r reports.Report) error { return reports.WriteText(b, r) },
		"markdown": func(b *bytes.Buffer, r reports.Report) error { return reports.WriteMarkdown(b, r) },
		"html":     func(b *bytes.Buffer, r reports.Report) error { return reports.WriteHTML(b, r) },
	} {
		var b bytes.Buffer
		require.NoError(t, write(&b, rep), name)
		assert.True(t, strings.Contains(b.String(), note), "%s shows the comparison's note", name)
	}
}
