package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// panicsInObserve is full jitter whose policies panic when told an
// outcome.
type panicsInObserve struct{ kit.Policy }

func (panicsInObserve) Observe(o kit.Outcome) { panic("boom") }

// TestAnObserveThatPanicsExitsAsADefect runs the gate's replay as the
// command does (evaluate), on a policy whose Observe panics: the policy
// failed (exit 1), and the summary the command prints names the device
// and the call, not a failure of the kit. The command's own sources (a
// spec, a program, a trace) have no Observe of the user's; a Go factory
// reaches this path through the gate.
func TestAnObserveThatPanicsExitsAsADefect(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	p := gate.GoPolicy("observes", func(d kit.Device) kit.Policy { return panicsInObserve{full(d)} })
	rep, err := gate.Run(context.Background(), p, gate.Config{Steps: gate.Replay, Seed: 1, Replay: sim.Config{Runs: 3, CallTimeout: time.Second}})
	require.NoError(t, err, "a defect of the policy is its verdict, not an error of the gate")
	assert.Equal(t, exitFail, int(rep.Verdict.ExitCode()), "the exit code")
	var summary strings.Builder
	require.NoError(t, reports.WriteText(&summary, rep))
	assert.Regexp(t, `the replay stopped at device "dev-[0-9a-f]{8}-\d{7}", delay \d+: the policy's Observe\((rejection|success)\) panicked: boom`, summary.String())
}
