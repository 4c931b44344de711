package gate_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// Small server models: the default overload over a minute, the dip from
// 10s; the default reconnect scaled down tenfold (200 devices, 200 CPU
// units a second and a warm-up of 400, two seconds of the broker's whole
// CPU as at the defaults) over a minute; and the default contention.
var (
	smallOverload  = sim.Scenario{Kind: sim.Overload, Clients: 50, DipAt: 10 * time.Second, Horizon: time.Minute}
	smallReconnect = sim.Scenario{Kind: sim.Reconnect, Clients: 200, CPU: 200, WarmUp: 400, Horizon: time.Minute}
	contention     = sim.Scenario{Kind: sim.Contention}
)

var (
	// quickRetries is the CLI's default policy: at the overload's
	// defaults each timed-out attempt retries within about 5s, and the
	// queue never drains.
	quickRetries = kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}
	// slowRetries is the reconnect's documented policy (sim's
	// TestReconnectDefaults): under the reset rule it keeps the broker
	// cold, and counting the drop as a failure lets it warm up.
	slowRetries = kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}
	// awsFull is the AWS simulator's full jitter, from 10ms.
	awsFull = kit.Spec{Strategy: kit.Full, Base: 10 * time.Millisecond, Cap: 2 * time.Second}
)

func with(s sim.Scenario, change func(*sim.Scenario)) sim.Scenario {
	change(&s)
	return s
}

// TestModelGateVerdicts gates the replay of each server model, at small
// sizes, and checks that the gate's verdict is sim.Replay's Status of the
// same scenario, policy and seed, with the same figures: the gate judges
// a server model as sim does, and adds nothing of its own.
func TestModelGateVerdicts(t *testing.T) {
	for _, c := range []struct {
		name string
		s    sim.Scenario
		p    kit.Spec
		want verdict.Status
	}{
		{"overload", smallOverload, quickRetries, verdict.Fail},
		{"overload without retries: the policy is never asked", with(smallOverload, func(s *sim.Scenario) { s.Retries = sim.NoRetries }), quickRetries, verdict.Inconclusive},
		{"overload with a queue limit", with(smallOverload, func(s *sim.Scenario) { s.QueueLimit = 50 }), quickRetries, verdict.Pass},
		{"reconnect", smallReconnect, slowRetries, verdict.Fail},
		{"reconnect, on-drop continue", with(smallReconnect, func(s *sim.Scenario) { s.OnDrop = sim.DropContinue }), slowRetries, verdict.Pass},
		{"reconnect, refuse-cold", with(smallReconnect, func(s *sim.Scenario) { s.RefuseCold = true }), slowRetries, verdict.Pass},
		{"contention", contention, awsFull, verdict.Pass},
		// The last of 100 clients succeeds after about 5s: a 1s horizon
		// leaves most unserved.
		{"contention cut short", with(contention, func(s *sim.Scenario) { s.Horizon = time.Second }), awsFull, verdict.Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := gate.Config{Steps: gate.Replay, Scenario: c.s, Replay: sim.Config{Runs: 3}}
			res, err := sim.Replay(context.Background(), c.p.Factory(), c.s, cfg.ReplayConfig())
			require.NoError(t, err, "sim.Replay")
			require.Equal(t, c.want, res.Status(), "sim.Replay's Status: %s", res.Detail())

			rep, err := gate.Run(context.Background(), gate.SpecPolicy(c.p), cfg)
			require.NoError(t, err, "gate.Run")
			require.NotNil(t, rep.Replay, "the gate's replay")
			assert.Equal(t, res.Status(), rep.Verdict, "the gate's verdict; sim says %s", res.Detail())
			assert.Equal(t, res.Status(), rep.Replay.Status, "the gate's replay's status")
			assert.Equal(t, res.Detail(), rep.Replay.Detail, "the gate's replay's detail")
			assert.Equal(t, res.Summary, rep.Replay.Summary, "the gate's replay's summary")
			assert.Equal(t, res.Baselines, rep.Replay.Baselines, "the gate's replay's baselines")
			assert.Empty(t, rep.Fixes, "no fixes without the Fix step")
			assert.Equal(t, c.want == verdict.Fail, rep.FixesNotSearched, "FixesNotSearched")
		})
	}
}

// serverFixes returns the Server of each fix, and checks that each is a
// server change replayed on the gate's runs, that every run recovered.
func serverFixes(t *testing.T, rep reports.Report) []string {
	t.Helper()
	var out []string
	for _, f := range rep.Fixes {
		out = append(out, f.Server)
		assert.NotEmpty(t, f.Server, "fix %q: Server", f.Change)
		assert.Empty(t, f.Spec, "fix %q: a server change keeps the policy's spec", f.Change)
		assert.Zero(t, f.Scale, "fix %q: a server change keeps the policy's delays", f.Change)
		assert.Equal(t, 3, f.Runs, "fix %q: replayed on the gate's runs", f.Change)
		assert.Greater(t, 2*f.Recovered, f.Runs, "fix %q: the median run recovered", f.Change)
		assert.NotNil(t, f.Recovery, "fix %q: its time to recover", f.Change)
	}
	return out
}

// TestModelGateServerFixes fails each recovery model's replay and checks
// the fixes the gate replays: for an overload, no backoff ends a storm of
// timed-out work, and the fixes are a retry budget the fleet shares (four
// of the five replayed recover this fleet in its 3 runs; Finagle's, whose
// reserve lets the storm go on longer, does not) and the server's, a queue bounded at
// half of what it serves in one timeout (100 jobs a second over 1s,
// halved: --queue-limit 50) and the skipping of expired work
// (--drop-expired), each of which ends the storm at the defaults (the
// CLI's replay of the default overload says so). Budgets rank first, then
// by the time to recover. For a reconnect under the reset rule, the
// fixes are the drop counted as a failure (--on-drop continue) and a
// broker that refuses until warm (--refuse-cold), each of which lets the
// broker warm up with the reconnect's documented policy. A contention has
// no server change, and gets none.
func TestModelGateServerFixes(t *testing.T) {
	cfg := func(s sim.Scenario) gate.Config {
		return gate.Config{Steps: gate.Replay | gate.Fix, Scenario: s, Replay: sim.Config{Runs: 3}}
	}
	t.Run("overload", func(t *testing.T) {
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(quickRetries), cfg(smallOverload))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		got := serverFixes(t, rep)
		assert.Subset(t, got, []string{"--budget grpc --budget-scope fleet", "--budget aws --budget-scope fleet", "--budget envoy --budget-scope fleet", "--queue-limit 50", "--drop-expired"}, "the fixes")
		assert.True(t, strings.HasPrefix(got[0], "--budget "), "a budget first: %q", got)
		assert.True(t, strings.HasPrefix(got[len(got)-1], "--"), "the server's last: %q", got)
		assert.NotContains(t, got[:len(got)-2], "--queue-limit 50", "the server's changes after the budgets")
		assert.Contains(t, strings.Join(rep.Advice, "\n"), "(--queue-limit 50; replayed on the same fleet, the service recovers ", "the advice")
	})
	t.Run("overload with its queue already bounded too loosely", func(t *testing.T) {
		// A limit over 50 is no fix already made: the gate offers 50.
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(quickRetries), cfg(with(smallOverload, func(s *sim.Scenario) { s.QueueLimit = 5000 })))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		assert.Contains(t, serverFixes(t, rep), "--queue-limit 50", "the fixes")
	})
	t.Run("reconnect", func(t *testing.T) {
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(slowRetries), cfg(smallReconnect))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		got := serverFixes(t, rep)
		assert.Contains(t, got, "--on-drop continue", "the fixes")
		assert.Contains(t, got, "--refuse-cold", "the fixes")
		assert.NotContains(t, got, "--on-drop reset", "the rule already in place is no fix")
	})
	t.Run("contention", func(t *testing.T) {
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(awsFull), cfg(with(contention, func(s *sim.Scenario) { s.Horizon = time.Second })))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		assert.Empty(t, rep.Fixes, "a contention has no server change to replay")
		assert.False(t, rep.FixesNotSearched, "the Fix step ran")
	})
}

// TestModelCheck runs gate.Check, the go test entry point, on a server
// model: on a passing one it passes and returns Run's report; on a
// failing one, in a process of its own, it fails the test with the
// summary that reports.WriteText makes of Run's report, the summary the
// CLI prints, every line of it.
func TestModelCheck(t *testing.T) {
	passing := gate.Config{Steps: gate.Replay | gate.Fix, Scenario: with(smallOverload, func(s *sim.Scenario) { s.DropExpired = true }), Replay: sim.Config{Runs: 3}}
	failing := gate.Config{Steps: gate.Replay | gate.Fix, Scenario: smallOverload, Replay: sim.Config{Runs: 3}}
	p := gate.SpecPolicy(quickRetries)
	if kittest.InChild(t) {
		gate.Check(t, p, failing)
		return
	}
	rep := gate.Check(t, p, passing)
	want, err := gate.Run(context.Background(), p, passing)
	require.NoError(t, err)
	assert.Equal(t, verdict.Pass, rep.Verdict, "gate.Check's verdict")
	assert.Equal(t, want.Verdict, rep.Verdict, "gate.Check's verdict against gate.Run's")
	assert.Equal(t, want.Replay.Summary, rep.Replay.Summary, "gate.Check's replay against gate.Run's")

	out, failed := kittest.RunChild(t)
	require.True(t, failed, "gate.Check on a failing overload passed:\n%s", out)
	fail, err := gate.Run(context.Background(), p, failing)
	require.NoError(t, err)
	require.Equal(t, verdict.Fail, fail.Verdict)
	var b strings.Builder
	require.NoError(t, reports.WriteText(&b, fail))
	for _, line := range strings.Split(b.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			assert.Contains(t, out, line, "gate.Check's failure")
		}
	}
	assert.NotContains(t, out, "panic:")
}

// TestModelGateAdvice reads the advice of failing reconnects. Under
// --on-drop reset-jitter a device waits up to its first delay after a
// drop, so the advice must not say it reconnects at once; and the
// broker's limit is a number of connects a second, said once.
func TestModelGateAdvice(t *testing.T) {
	cfg := func(s sim.Scenario) gate.Config {
		return gate.Config{Steps: gate.Replay, Scenario: s, Replay: sim.Config{Runs: 3}}
	}
	t.Run("reset-jitter", func(t *testing.T) {
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(slowRetries), cfg(with(smallReconnect, func(s *sim.Scenario) { s.OnDrop = sim.DropResetJitter })))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		advice := strings.Join(rep.Advice, "\n")
		assert.NotContains(t, advice, "(--on-drop reset-jitter) reconnect at once", "the advice")
	})
	t.Run("devices left unconnected", func(t *testing.T) {
		// The default policy's cap of 10s has 200 devices reconnect
		// about 40 times a second against a broker that handshakes 20:
		// under --on-drop continue it still never warms up.
		rep, err := gate.Run(context.Background(), gate.SpecPolicy(quickRetries), cfg(with(smallReconnect, func(s *sim.Scenario) { s.OnDrop = sim.DropContinue })))
		require.NoError(t, err)
		require.Equal(t, verdict.Fail, rep.Verdict, rep.Replay.Detail)
		advice := strings.Join(rep.Advice, "\n")
		assert.Contains(t, advice, "the broker accepted and dropped 1,100 sessions while cold, since the devices' connects take the CPU its warm-up of 400 units needs", "the advice")
	})
}

// TestCompareBudgets checks that a comparison on an Overload adds a row per
// budget kind after its fleet sizes, each labelled by the budget and who
// holds it, on the first fleet size, and held by the fleet unless the
// scenario's budget scope says otherwise; the scenario's own budget
// stands in for its kind. A comparison on another kind adds none.
func TestCompareBudgets(t *testing.T) {
	finagle := sim.Budget{Kind: sim.Finagle, Percent: 0.1, Scope: sim.ScopeDevice}
	for _, tc := range []struct {
		name  string
		s     sim.Scenario
		scope sim.BudgetScope
		first string // the first budget row's spec
	}{
		{"fleet by default", sim.Scenario{Kind: sim.Overload, Clients: 50, Rate: 20, AcceptRate: 25}, sim.ScopeFleet, "finagle"},
		{"the scenario's scope and budget", sim.Scenario{Kind: sim.Overload, Clients: 50, Rate: 20, AcceptRate: 25, Budget: finagle}, sim.ScopeDevice, "finagle:percent=10%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := gate.Compare(context.Background(), []gate.Policy{gate.SpecPolicy(spec(t, "full"))}, []int{50, 60}, gate.Config{Scenario: tc.s, Replay: sim.Config{Runs: sim.MinRunsToPass}})
			require.NoError(t, err)
			require.Len(t, cs, 2, "a comparison per headline figure")
			for _, c := range cs {
				require.Len(t, c.Rows, 2+len(sim.BudgetKinds()), "the rows of %s", c.Figure)
				assert.Equal(t, []int{50, 60}, []int{c.Rows[0].Clients, c.Rows[1].Clients}, "the fleet sizes' rows")
				for i, k := range sim.BudgetKinds() {
					row := c.Rows[2+i]
					assert.Equal(t, 50, row.Clients, "the %s row's fleet", k)
					assert.Equal(t, tc.scope, row.BudgetScope, "the %s row's scope", k)
					assert.True(t, strings.HasPrefix(row.Budget, string(k)), "the %s row's budget is %q", k, row.Budget)
					assert.Len(t, row.Cells, 1, "the %s row's cells", k)
				}
				assert.Equal(t, tc.first, c.Rows[2].Budget, "the first budget row's spec")
				assert.Contains(t, c.Note, "A row named by a retry budget replays the first fleet size", "the comparison's note")
			}
			var b bytes.Buffer
			require.NoError(t, reports.WriteComparisons(&b, cs))
			assert.Contains(t, b.String(), "breaker, "+string(tc.scope)+"  ", "the text table labels a budget's row")
			assert.Contains(t, b.String(), "overload: 50 to 60 clients", "the scenario line spans the fleet sizes alone")
		})
	}
	cs, err := gate.Compare(context.Background(), []gate.Policy{gate.SpecPolicy(spec(t, "full"))}, []int{50}, gate.Config{Scenario: sim.Scenario{Kind: sim.Reconnect, Clients: 50}, Replay: sim.Config{Runs: sim.MinRunsToPass}})
	require.NoError(t, err)
	for _, c := range cs {
		assert.Len(t, c.Rows, 1, "a reconnect's comparison has no budget rows")
	}
}
