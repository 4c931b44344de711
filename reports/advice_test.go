package reports_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestAdvise(t *testing.T) {
	// finding is a check as the property checks report it: a finding
	// carries its root cause and that cause's remedy.
	finding := func(name string, status verdict.Status, cause properties.Cause) properties.Result {
		return properties.Result{Name: name, Status: status, Detail: "what was measured",
			Cause: cause, Remedy: cause.Remedy()}
	}
	passed := func(name string) properties.Result {
		return properties.Result{Name: name, Status: verdict.Pass, Detail: "what was measured"}
	}
	scenario := sim.Scenario{Kind: sim.Outage, Clients: 400, AcceptRate: 50, Threshold: 0.6}
	replayOn := func(s sim.Scenario, status verdict.Status, ratio, gaveUp float64) *reports.Replay {
		return &reports.Replay{Status: status, Scenario: s, Summary: map[sim.Figure]sim.Estimate{
			sim.PeakRatio: {Median: ratio, Low: ratio, High: ratio},
			sim.GaveUp:    {Median: gaveUp, Low: gaveUp, High: gaveUp},
		}}
	}
	replay := func(status verdict.Status, ratio, gaveUp float64) *reports.Replay {
		return replayOn(scenario, status, ratio, gaveUp)
	}
	raise := reports.Fix{
		Change:    "raise the base from 10s to 50s: full:base=50s,cap=2m",
		Spec:      "full:base=50s,cap=2m",
		PeakRatio: sim.Estimate{Median: 0.546, Low: 0.52, High: 0.57},
		AllServed: sim.Estimate{Median: 412, Low: 405, High: 420},
		Checked:   true,
	}
	slower := reports.Fix{
		Change:    "slow every delay down 3 times",
		Scale:     3,
		PeakRatio: sim.Estimate{Median: 0.5, Low: 0.48, High: 0.53},
		AllServed: sim.Estimate{Median: 600, Low: 590, High: 611},
	}
	crowd := "Spread the retries wider (peak ratio 0.93 > 0.6): a wave of 400 retries stays within 0.6 of 50/s only when spread over 13.3s at least, so the base must be longer than that, with the cap above it; no change was found that passes."
	tests := []struct {
		name string
		r    reports.Report
		want []string
	}{
		{
			name: "nothing fails",
			r: reports.Report{Replay: replay(verdict.Pass, 0.47, 0),
				Checks: []properties.Result{passed(properties.NameSpread), passed(properties.NameCapPhase)}},
			want: nil,
		},
		{
			name: "a finding gets its cause's remedy",
			r:    reports.Report{Checks: []properties.Result{finding(properties.NameSpread, verdict.Fail, properties.NoJitter)}},
			want: []string{properties.NoJitter.Remedy()},
		},
		{
			name: "one cause behind several checks is one remedy",
			r: reports.Report{Checks: []properties.Result{
				finding(properties.NameSpread, verdict.Fail, properties.ClockSeed),
				finding(properties.NameClusters, verdict.Fail, properties.ClockSeed),
				finding(properties.NameFrozenClock, verdict.Fail, properties.ClockSeed),
				finding(properties.NameCapPhase, verdict.Fail, properties.ClockSeed),
			}},
			want: []string{properties.ClockSeed.Remedy()},
		},
		{
			name: "two causes, in the order of the checks",
			r: reports.Report{Checks: []properties.Result{
				finding(properties.NameSpread, verdict.Fail, properties.SmallJitter),
				finding(properties.NameCapPhase, verdict.Fail, properties.JitterLostAtCap),
				finding(properties.NameClusters, verdict.Fail, properties.SmallJitter),
			}},
			want: []string{properties.SmallJitter.Remedy(), properties.JitterLostAtCap.Remedy()},
		},
		{
			name: "a warning advises too",
			r:    reports.Report{Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator)}},
			want: []string{properties.SharedGenerator.Remedy()},
		},
		{
			name: "a check without a remedy is passed on with its detail",
			r:    reports.Report{Checks: []properties.Result{{Name: "latency", Status: verdict.Fail, Detail: "what was measured."}, passed("jitter budget")}},
			want: []string{`Fix "latency": what was measured.`},
		},
		{
			name: "inconclusive and skipped checks are no finding",
			r: reports.Report{Replay: replay(verdict.Inconclusive, 3, 7), Checks: []properties.Result{
				{Name: properties.NameSpread, Status: verdict.Inconclusive, Detail: "too few devices answered"},
				{Name: properties.NameFrozenClock, Status: verdict.Skipped, Detail: "a recorded trace has no clock"}}},
			want: nil,
		},
		{
			name: "the fix of a spec comes first, measured, and the others are alternatives",
			r: reports.Report{Policy: reports.Policy{Spec: "full:base=10s,cap=2m"}, Replay: replay(verdict.Fail, 0.93, 0), Fixes: []reports.Fix{raise, slower},
				Checks: []properties.Result{finding(properties.NameSpread, verdict.Fail, properties.SmallJitter)}},
			want: []string{
				"Raise the base from 10s to 50s: full:base=50s,cap=2m (replayed on the same scenario, its peak ratio is 0.546 [0.52, 0.57] and every device is served after 412s; it passes every check).",
				"Or slow every delay down 3 times (replayed on the same scenario, its peak ratio is 0.5 [0.48, 0.53] and every device is served after 600s).",
				properties.SmallJitter.Remedy(),
			},
		},
		{
			name: "a policy of the user's own: what to change in its code first, then the built-in that does it",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Fail, 0.93, 0),
				Fixes: []reports.Fix{{Change: "replace the policy with the built-in full:base=50s,cap=2m", Spec: "full:base=50s,cap=2m",
					PeakRatio: raise.PeakRatio, AllServed: raise.AllServed, Checked: true}},
				Checks: []properties.Result{
					finding(properties.NameSpread, verdict.Fail, properties.SmallJitter),
					finding(properties.NameCapPhase, verdict.Fail, properties.JitterLostAtCap),
				}},
			want: []string{
				properties.SmallJitter.Remedy(),
				"The built-in full:base=50s,cap=2m does that and passes (replayed on the same scenario, its peak ratio is 0.546 [0.52, 0.57] and every device is served after 412s; it passes every check).",
				properties.JitterLostAtCap.Remedy(),
			},
		},
		{
			name: "a policy of the user's own that only storms: its fix comes first",
			r:    reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Fail, 0.93, 0), Fixes: []reports.Fix{slower}},
			want: []string{"Slow every delay down 3 times (replayed on the same scenario, its peak ratio is 0.5 [0.48, 0.53] and every device is served after 600s)."},
		},
		{
			name: "a policy of the user's own that storms and warns: the fix of the storm first, then the warning's remedy",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Fail, 0.93, 0), Fixes: []reports.Fix{slower},
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator)}},
			want: []string{"Slow every delay down 3 times (replayed on the same scenario, its peak ratio is 0.5 [0.48, 0.53] and every device is served after 600s).",
				properties.SharedGenerator.Remedy()},
		},
		{
			name: "a policy of the user's own that warns alone: the warning's remedy",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Pass, 0.4, 0),
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator)}},
			want: []string{properties.SharedGenerator.Remedy()},
		},
		{
			name: "a failure's remedy comes before a warning's, whatever the order of the checks",
			r: reports.Report{Policy: reports.Policy{Name: "client"},
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator),
					finding(properties.NameSpread, verdict.Fail, properties.NoJitter)}},
			want: []string{properties.NoJitter.Remedy(), properties.SharedGenerator.Remedy()},
		},
		{
			name: "a policy of the user's own that storms without a fix and warns: the storm's advice first",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Fail, 0.93, 0),
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator)}},
			want: []string{crowd, properties.SharedGenerator.Remedy()},
		},
		{
			name: "a policy of the user's own that warns over a replay that crowds: the crowd first",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Pass, 0.93, 0),
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.SharedGenerator)}},
			want: []string{crowd, properties.SharedGenerator.Remedy()},
		},
		{
			name: "a generator the runtime seeds per process is stated by its check, not advised",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Pass, 0.4, 0),
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.ProcessGenerator)}},
			want: nil,
		},
		{
			name: "a generator the runtime seeds per process beside a failure: the failure's remedy alone",
			r: reports.Report{Policy: reports.Policy{Name: "client"}, Replay: replay(verdict.Fail, 0.93, 0), Fixes: []reports.Fix{slower},
				Checks: []properties.Result{finding(properties.NameReproducibility, verdict.Warn, properties.ProcessGenerator),
					finding(properties.NameCapPhase, verdict.Fail, properties.JitterLostAtCap)}},
			want: []string{properties.JitterLostAtCap.Remedy(), "Or slow every delay down 3 times (replayed on the same scenario, its peak ratio is 0.5 [0.48, 0.53] and every device is served after 600s)."},
		},
		{
			name: "a storm without a fix says how wide the retries must spread",
			r:    reports.Report{Replay: replay(verdict.Fail, 0.93, 0)},
			want: []string{crowd},
		},
		{
			name: "over the threshold though judged a pass",
			r:    reports.Report{Replay: replay(verdict.Pass, 0.93, 0)},
			want: []string{crowd},
		},
		{
			name: "a storm on a scenario without a server limit",
			r:    reports.Report{Replay: replayOn(sim.Scenario{Kind: sim.Storm, Clients: 1000}, verdict.Fail, 2, 0)},
			want: []string{"Spread the retries wider (peak ratio 2 > 0.6): raise the base and the cap, or use more jitter."},
		},
		{
			name: "a replay stopped by a bad delay gives no crowd advice",
			r: reports.Report{Replay: &reports.Replay{Status: verdict.Fail, Scenario: scenario, Stopped: &properties.Counterexample{Attempt: 2, Devices: []properties.DeviceDelays{{ID: "dev-7", Delays: []time.Duration{time.Second}, Err: "a delay of -1s"}}}},
				Checks: []properties.Result{finding(properties.NameBounds, verdict.Fail, properties.BadDelay)}},
			want: []string{properties.BadDelay.Remedy()},
		},
		{
			name: "a replay stopped by a bad delay, without checks, still says what to change",
			r:    reports.Report{Replay: &reports.Replay{Status: verdict.Fail, Scenario: scenario, Stopped: &properties.Counterexample{Attempt: 2, Devices: []properties.DeviceDelays{{ID: "dev-7", Delays: []time.Duration{time.Second}, Err: "Next did not return within 2s"}}}}},
			want: []string{properties.BadDelay.Remedy()},
		},
		{
			name: "devices give up",
			r:    reports.Report{Replay: replay(verdict.Pass, 0.4, 12)},
			want: []string{"Allow more retries or a longer horizon: 12 devices gave up before they were served (median over the runs)."},
		},
		{
			name: "one device of one run gives up: no advice",
			r: reports.Report{Replay: &reports.Replay{Status: verdict.Pass, Scenario: scenario, Summary: map[sim.Figure]sim.Estimate{
				sim.PeakRatio: {Median: 0.4, Low: 0.3, High: 0.5}, sim.GaveUp: {Median: 0, Low: 0, High: 1}}}},
			want: nil,
		},
		{
			name: "4 devices of 400 give up, at the limit: no advice",
			r:    reports.Report{Replay: replay(verdict.Pass, 0.4, 4)},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reports.Advise(tt.r))
		})
	}
}

// TestEveryCauseHasARemedy guards the table Advise draws on: a cause the
// checks can report without a remedy would leave a finding without advice.
func TestEveryCauseHasARemedy(t *testing.T) {
	for _, c := range []properties.Cause{
		properties.NoJitter, properties.ClockSeed, properties.SharedSeed, properties.WeakSeed,
		properties.SharedGenerator, properties.SmallJitter, properties.JitterLostAtCap,
		properties.AddedJitter, properties.Realigned, properties.OverCap, properties.BadDelay,
		properties.WrongStrategy, properties.UnjitteredDelay, properties.SharedInstance,
	} {
		assert.NotEmpty(t, c.Remedy(), "cause %s", c)
	}
	assert.Empty(t, properties.Cause("unknown").Remedy())
	assert.Empty(t, properties.ProcessGenerator.Remedy(), "a generator the runtime seeds per process leaves its user nothing to change")
}

// TestOwnCodeFirstInEveryFormat renders the advice on a policy of the
// user's own that fails a check: every format says what to change in its
// code first, then the built-in strategy that does that, with its figures.
func TestOwnCodeFirstInEveryFormat(t *testing.T) {
	r := failingReport()
	r.Policy = reports.Policy{Name: "client", Source: "go"}
	r.Fixes = []reports.Fix{{Change: "replace the policy with the built-in full:base=30s,cap=30s", Spec: "full:base=30s,cap=30s",
		PeakRatio: sim.Estimate{Median: 0.44, Low: 0.42, High: 0.46}, AllServed: sim.Estimate{Median: 30.2, Low: 30.1, High: 30.3}, Checked: true}}
	r.Advice = reports.Advise(r)
	remedy := properties.NoJitter.Remedy()
	require.Equal(t, remedy, r.Advice[0])

	var md, html, junit bytes.Buffer
	require.NoError(t, reports.WriteMarkdown(&md, r))
	require.NoError(t, reports.WriteHTML(&html, r))
	require.NoError(t, reports.WriteJUnit(&junit, r))
	assert.Contains(t, md.String(), "## What to change first\n\n**"+remedy+"**\n\nThe built-in strategy that does that passes: `full:base=30s,cap=30s`\n")
	assert.Contains(t, html.String(), `<p class="lead">The built-in strategy that does that passes:</p>`)
	assert.Contains(t, html.String(), `<p class="fix-policy"><code>full:base=30s,cap=30s</code></p>`)
	assert.Contains(t, junit.String(), "what to change first: "+remedy+" The built-in full:base=30s,cap=30s does that and passes")
}

// TestModelAdviceLeadsWithTheFastestFix renders the advice on a failing
// overload and a failing reconnect whose fixes the gate ranks budgets
// first: the root cause leads, the fixes follow by how soon the service
// recovers with each, and where a budget the fleet shares lives is said
// once.
func TestModelAdviceLeadsWithTheFastestFix(t *testing.T) {
	runs := 20
	at := func(s float64) *sim.Estimate { return &sim.Estimate{Median: s, Low: s, High: s} }
	budget := func(kind, name string, rec float64) reports.Fix {
		return reports.Fix{Change: "put " + name + ", with its defaults, where the whole fleet shares it (a proxy or gateway in front of the server, or one client for every caller), so that it bounds the retries the fleet makes as a whole",
			Server: "--budget " + kind + " --budget-scope fleet", Side: sim.SideBudget, Recovery: at(rec), Recovered: runs, Runs: runs}
	}
	server := func(side, change, flags string, rec float64) reports.Fix {
		return reports.Fix{Change: change, Server: flags, Side: side, Recovery: at(rec), Recovered: runs, Runs: runs}
	}
	failing := func(s sim.Scenario, figures map[sim.Figure]float64, fixes ...reports.Fix) reports.Report {
		sum := map[sim.Figure]sim.Estimate{}
		for f, v := range figures {
			sum[f] = sim.Estimate{Median: v, Low: v, High: v}
		}
		return reports.Report{Policy: reports.Policy{Spec: "full:base=100ms,cap=10s"}, Fixes: fixes,
			Replay: &reports.Replay{Status: verdict.Fail, Scenario: s, Summary: sum}}
	}
	tests := []struct {
		name    string
		r       reports.Report
		fastest string // the flags of the fix that recovers soonest
	}{
		{"overload", failing(sim.Scenario{Kind: sim.Overload}, map[sim.Figure]float64{sim.AmplificationFromTrigger: 3.97},
			budget("grpc", "gRPC's retry throttling", 10),
			budget("breaker", "failsafe-go's circuit breaker", 60),
			budget("finagle", "Finagle's retry budget", 67.5),
			server(sim.SideServer, "have the server skip the work whose client has stopped waiting for it", "--drop-expired", 5),
			server(sim.SideServer, "bound the server's queue at 50 jobs, half of what it serves in one 1s timeout, so that it rejects at once what it could not answer in time", "--queue-limit 50", 5)), "--drop-expired"},
		{"reconnect, resetting on a drop", failing(sim.Scenario{Kind: sim.Reconnect, OnDrop: sim.DropReset}, map[sim.Figure]float64{sim.SessionsDropped: 59000},
			budget("breaker", "failsafe-go's circuit breaker", 60),
			server(sim.SideReset, "count a session the broker drops right after accepting it as a failed connect, so that the devices' backoff goes on growing instead of resetting: the fix is the reset rule", "--on-drop continue", 25),
			server(sim.SideServer, "have the broker refuse connects until it is warm instead of accepting and dropping them", "--refuse-cold", 10)), "--refuse-cold"},
	}
	var b strings.Builder
	for _, tt := range tests {
		advice := reports.Advise(tt.r)
		fmt.Fprintf(&b, "# %s\n", tt.name)
		for _, a := range advice {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		b.WriteString("\n")
		t.Run(tt.name, func(t *testing.T) {
			require.Greater(t, len(advice), 2)
			assert.NotContains(t, advice[0], "replayed", "the root cause first: %q", advice[0])
			assert.Contains(t, advice[1], "("+tt.fastest+";", "the fix that recovers soonest next")
			assert.Equal(t, 1, strings.Count(strings.Join(advice, "\n"), "a proxy or gateway in front of the server"), "where a fleet's budget lives, said once")
		})
	}
	kittest.Golden(t, filepath.Join("testdata", "model-advice.txt"), []byte(b.String()))
}

// TestNoServerChangeRecovers names, when no change recovers a failing
// recovery scenario, the changes the search replayed on that scenario:
// a broker that already refuses until warm is tried on no drop rule.
func TestNoServerChangeRecovers(t *testing.T) {
	tests := []struct {
		s          sim.Scenario
		tried, not string
	}{
		{sim.Scenario{Kind: sim.Overload}, "(the budgets of the fleet, a bounded queue, dropped expired work)", "refusing until warm"},
		{sim.Scenario{Kind: sim.Reconnect}, "(the budgets of the fleet, counting a drop as a failure, refusing until warm)", "bounded queue"},
		{sim.Scenario{Kind: sim.Reconnect, RefuseCold: true}, "(the budgets of the fleet)", "counting a drop"},
	}
	for _, tt := range tests {
		r := reports.Report{Policy: reports.Policy{Spec: "full:base=100ms,cap=10s"},
			Replay: &reports.Replay{Status: verdict.Fail, Scenario: tt.s, Summary: map[sim.Figure]sim.Estimate{}}}
		advice := strings.Join(reports.Advise(r), "\n")
		assert.Contains(t, advice, "None of the changes replayed "+tt.tried+" recovers on this scenario", "%s refuse-cold=%v", tt.s.Kind, tt.s.RefuseCold)
		assert.NotContains(t, advice, tt.not, "%s refuse-cold=%v", tt.s.Kind, tt.s.RefuseCold)
	}
}

// TestBimodalOverloadDiagnosis diagnoses an Overload in which a minority
// of the runs collapsed while the median run recovered at once: the
// amplification the diagnosis quotes is that of the runs that collapsed,
// not the median run's, which shows no storm.
func TestBimodalOverloadDiagnosis(t *testing.T) {
	runs := []sim.Run{{Recovered: true, AmplificationFromTrigger: 1}, {AmplificationFromTrigger: 3.6}, {Recovered: true, AmplificationFromTrigger: 1},
		{AmplificationFromTrigger: 3.7}, {Recovered: true, AmplificationFromTrigger: 1}}
	r := reports.Report{Policy: reports.Policy{Spec: "full:base=1s,cap=30s"},
		Replay: &reports.Replay{Status: verdict.Fail, Scenario: sim.Scenario{Kind: sim.Overload, AcceptRate: 100}, Runs: runs,
			Collapses: &sim.Collapses{Runs: 5, Collapsed: 2},
			Summary:   map[sim.Figure]sim.Estimate{sim.AmplificationFromTrigger: {Median: 1, Low: 1, High: 3.7}}}}
	advice := strings.Join(reports.Advise(r), "\n")
	assert.Contains(t, advice, "(3.65 attempts per request from the dip on, median over the 2 runs that collapsed)")
}
