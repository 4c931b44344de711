package gate_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// misobserving is full jitter whose device bad does fault at its first
// Observe.
func misobserving(t *testing.T, bad string, fault func()) gate.Policy {
	full := spec(t, "full:base=1s,cap=30s").Factory()
	return gate.GoPolicy("misobserves", func(d kit.Device) kit.Policy {
		p := full(d)
		if d.ID != bad {
			return p
		}
		return &faultyObserver{p, fault}
	})
}

// faultyObserver is a policy whose Observe does fault.
type faultyObserver struct {
	kit.Policy
	fault func()
}

func (p *faultyObserver) Observe(kit.Outcome) { p.fault() }

// TestCheckNamesAnObserveThatFails gates, in a test binary of its own, a
// policy whose one device's Observe panics, never returns, or ends its
// goroutine: the checks name it, or, when the gate runs only the replay,
// the replay does, with its device and the call; the test fails, and
// nothing crashes or hangs.
func TestCheckNamesAnObserveThatFails(t *testing.T) {
	checks := gate.Config{Checks: properties.Config{IDs: numbered, CallTimeout: time.Second}, Replay: sim.Config{Runs: 3}}
	replay := gate.Config{Steps: gate.Replay, Replay: sim.Config{Runs: 3, CallTimeout: time.Second}}
	for _, tt := range []struct {
		name  string
		fault func()
		cfg   gate.Config
		bad   string
		want  string
	}{
		{"panics in the checks", func() { panic("boom") }, checks, "dev-000002",
			`device "dev-000002" attempt 1: Observe\(rejection\) panicked: boom`},
		{"blocks in the checks", func() { select {} }, checks, "dev-000002",
			`device "dev-000002" attempt 1: Observe\(rejection\) did not return within 1s`},
		{"ends its goroutine in the checks", func() { runtime.Goexit() }, checks, "dev-000002",
			`device "dev-000002" attempt 1: Observe\(rejection\) ended its goroutine instead of returning`},
		{"panics in the replay", func() { panic("boom") }, replay, "dev-00000001-0000003",
			`the replay stopped at device "dev-00000001-0000003", delay \d+: the policy's Observe\((rejection|success)\) panicked: boom`},
		{"blocks in the replay", func() { select {} }, replay, "dev-00000001-0000003",
			`the replay stopped at device "dev-00000001-0000003", delay \d+: the policy's Observe\((rejection|success)\) did not return within 1s \(hung\)`},
		{"ends its goroutine in the replay", func() { runtime.Goexit() }, replay, "dev-00000001-0000003",
			`the replay stopped at device "dev-00000001-0000003", delay \d+: the policy's Observe\((rejection|success)\) ended its goroutine instead of returning`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if kittest.InChild(t) {
				tt.cfg.Seed = 1
				gate.Check(t, misobserving(t, tt.bad, tt.fault), tt.cfg)
				return
			}
			out, failed := kittest.RunChild(t, "-test.timeout=2m")
			require.True(t, failed, out)
			assert.Regexp(t, tt.want, out)
			for _, never := range []string{"panic: boom", "fatal error", "all goroutines are asleep", "test timed out"} {
				assert.NotContains(t, out, never)
			}
		})
	}
}
