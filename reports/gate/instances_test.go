package gate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// shared is a factory with the defect of one instance for the whole fleet:
// a spec's policy, seeded from a constant, made once and returned to every
// device. Its one stream of delays spreads across devices, and a replay of
// it passes.
func shared(t *testing.T) kit.Factory {
	one := spec(t, "full:base=1s,cap=30s,seed=constant").Factory()(kit.Device{ID: "dev-000001"})
	return func(kit.Device) kit.Policy { return one }
}

// numbered are the devices of the tests whose messages name them.
var numbered = []string{"dev-000001", "dev-000002", "dev-000003"}

func TestSharedInstanceFailsTheGate(t *testing.T) {
	cfg := gate.Config{Checks: properties.Config{IDs: numbered}, Replay: sim.Config{Runs: 3}}
	rep, err := gate.Run(context.Background(), gate.GoPolicy("shared", shared(t)), cfg)
	require.NoError(t, err, "a shared instance is the policy's defect, not an error of the gate")
	assert.Equal(t, verdict.Fail, rep.Verdict)
	b := checkNamed(t, rep, properties.NameBounds)
	assert.Equal(t, verdict.Fail, b.Status)
	want := `the factory returned the same policy for "dev-000001" and "dev-000002": a fleet runs one instance per device; make a new policy in each call`
	assert.Contains(t, b.Detail, want, "bounds detail")
	require.NotNil(t, b.Counterexample)
	assert.Equal(t, "dev-000002", b.Counterexample.Devices[0].ID)
	assert.Contains(t, b.Counterexample.Devices[0].Err, want)
	assert.Nil(t, rep.Replay, "one instance is no fleet: nothing is replayed")
	assert.Empty(t, rep.Comparisons)
	assert.Empty(t, rep.Fixes)
}

// TestCheckFailsASharedInstance runs gate.Check, in a process of its own,
// on the factory with the defect: the test fails naming both devices.
func TestCheckFailsASharedInstance(t *testing.T) {
	if kittest.InChild(t) {
		gate.Check(t, gate.GoPolicy("shared", shared(t)), gate.Config{Checks: properties.Config{IDs: numbered}, Replay: sim.Config{Runs: 3}})
		return
	}
	out, failed := kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, `the factory returned the same policy for "dev-000001" and "dev-000002": a fleet runs one instance per device; make a new policy in each call`)
	assert.NotContains(t, out, "panic:")
}

// TestInsideABubble calls the gate inside a testing/synctest bubble:
// RunFrozen returns an InputError saying why it cannot run there, and
// Check, in a process of its own, fails the test with it instead of
// panicking.
func TestInsideABubble(t *testing.T) {
	const why = "gate: cannot run inside a testing/synctest bubble: its clock is fake, so no call of the policy can be timed (one that never returns would deadlock the bubble) and go test's deadline cannot be read; call gate.Check outside synctest.Test: its frozen-clock check makes a bubble of its own"
	p, cfg := gate.SpecPolicy(passing), gate.Config{Steps: gate.Checks}
	if kittest.InChild(t) {
		synctest.Test(t, func(t *testing.T) { gate.Check(t, p, cfg) })
		return
	}
	synctest.Test(t, func(t *testing.T) {
		_, err := gate.RunFrozen(t, p, cfg)
		var ie *gate.InputError
		require.ErrorAs(t, err, &ie)
		assert.EqualError(t, err, why)
	})
	out, failed := kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, why)
	assert.NotContains(t, out, "panic:")
}

// blocks is a factory whose policies' Next never returns until release is
// closed.
func blocks(release <-chan struct{}) kit.Factory {
	return func(kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) {
			<-release
			return 0, kit.ErrStop
		})
	}
}

// hangCfg times each call of the checks for 100ms, well beyond the
// microseconds a policy's Next takes.
var hangCfg = gate.Config{Checks: properties.Config{IDs: numbered, CallTimeout: 100 * time.Millisecond}, Replay: sim.Config{Runs: 3}}

// TestHangEndsTheGate gates a policy whose Next never returns: the checks
// name the hang, and nothing is replayed, which would wait on it for ever.
func TestHangEndsTheGate(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	rep, err := gate.Run(context.Background(), gate.GoPolicy("blocks", blocks(release)), hangCfg)
	require.NoError(t, err, "a hang is the policy's defect, not an error of the gate")
	assert.Equal(t, verdict.Fail, rep.Verdict)
	b := checkNamed(t, rep, properties.NameBounds)
	assert.Equal(t, verdict.Fail, b.Status)
	assert.Contains(t, b.Detail, `device "dev-000001" attempt 1: Next did not return within 100ms`, "bounds detail")
	assert.Nil(t, rep.Replay, "a replay would wait on the call that hung")
	assert.Empty(t, rep.Comparisons)
	assert.Empty(t, rep.Fixes)
}

// TestCheckNamesAHangWhateverTheTimeout runs gate.Check on a policy whose
// Next never returns, in a test binary without a deadline, in one with a
// deadline of two minutes, and in one whose deadline of 20s is shorter
// than the default call timeout: each time the test fails naming the hang,
// its device and its delay, and none dies, hangs or reports an
// interruption.
func TestCheckNamesAHangWhateverTheTimeout(t *testing.T) {
	byDefault := hangCfg
	byDefault.Checks.IDs, byDefault.Checks.CallTimeout = numbered[:1], 0
	for _, tt := range []struct {
		name, timeout string
		cfg           gate.Config
		want          string
	}{
		{"no deadline", "0", hangCfg, `device "dev-000001" attempt 1: Next did not return within 100ms`},
		{"a deadline of 2m", "2m", hangCfg, `device "dev-000001" attempt 1: Next did not return within 100ms`},
		// The gate stops 5s before go test's deadline and times each call
		// for a quarter of the time left then, under 3.75s.
		{"a deadline shorter than the call timeout", "20s", byDefault, `device "dev-000001" attempt 1: Next did not return within \d(\.\d+)?s`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if kittest.InChild(t) {
				gate.Check(t, gate.GoPolicy("blocks", blocks(make(chan struct{}))), tt.cfg)
				return
			}
			out, failed := kittest.RunChild(t, "-test.timeout="+tt.timeout)
			require.True(t, failed, out)
			assert.Regexp(t, tt.want, out)
			for _, never := range []string{"interrupted", "panic:", "fatal error", "all goroutines are asleep"} {
				assert.NotContains(t, out, never)
			}
		})
	}
}

// checkNamed returns the check of the report named name.
func checkNamed(t *testing.T, rep reports.Report, name string) properties.Result {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	require.Failf(t, "no such check", "no %s in the report", name)
	return properties.Result{}
}
