package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit/verdict"
)

// TestReplayWideWindowFails replays the default outage's storm of full
// jitter in 6m windows: its window's peak ratio is far under the
// threshold, and the replay fails (warns with --allow-wide-window, and
// fails again with --warnings fail) with the 1s figure and what to change
// instead of passing. A warning exits 0, as a check's does.
func TestReplayWideWindowFails(t *testing.T) {
	r := jitterkit(t, context.Background(), "replay", "--window", "6m", "--policy", "full:base=100ms,cap=10s", "--runs", "5")
	assert.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
	assert.Contains(t, r.stdout, "replay  FAIL  ", "the replay's line")
	assert.NotContains(t, r.stdout, "Spread the retries wider", "what to change")

	allowed := jitterkit(t, context.Background(), "replay", "--window", "6m", "--policy", "full:base=100ms,cap=10s", "--runs", "5", "--allow-wide-window")
	assert.Equal(t, exitPass, allowed.code, "--allow-wide-window: exit code; stderr %q", allowed.stderr)
	assert.Contains(t, allowed.stdout, "replay  WARN  ", "--allow-wide-window: the replay's line")

	strict := jitterkit(t, context.Background(), "replay", "--window", "6m", "--policy", "full:base=100ms,cap=10s", "--runs", "5", "--allow-wide-window", "--warnings", "fail")
	assert.Equal(t, exitFail, strict.code, "--allow-wide-window --warnings fail: exit code; stderr %q", strict.stderr)
	assert.Contains(t, strict.stdout, "which fails, since every warning does", "--warnings fail: the replay's detail")

	bad := jitterkit(t, context.Background(), "replay", "--policy", "full", "--warnings", "maybe")
	assert.Equal(t, exitUsage, bad.code)
	assert.Contains(t, bad.stderr, `--warnings: "maybe" is not what a warning makes of the verdict (want pass or fail)`)
	assert.Contains(t, r.stdout, "a 6m window averages the storm away, which 1s windows show: at 1s the peak ratio is ", "the replay's detail")
	assert.Contains(t, r.stdout, "  - A 6m window averages the storm away, which 1s windows show: at 1s the peak ratio is ", "what to change")
	assert.Contains(t, r.stdout, "peak retry arrivals per 1s", "the figures")
}

// TestReplayPeriodicAligned replays timers on the minute: the figures show
// the timer load apart from the re-sends, and the advice is about the
// timers' offsets and the re-sends, never a longer base.
func TestReplayPeriodicAligned(t *testing.T) {
	r := jitterkit(t, context.Background(), "replay", "--scenario", "periodic-aligned", "--clients", "2000", "--accept-rate", "100",
		"--policy", "none:base=1s,cap=1s", "--runs", "5")
	assert.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
	for _, want := range []string{
		"timer load (firings / accept budget)  ",
		"peak re-sends of rejected firings per window  ",
		"  - The timers alone put up to 2,000 firings in one 1s window, a timer load of 20 over the 0.6 threshold",
	} {
		assert.Contains(t, r.stdout, want)
	}
	assert.NotContains(t, r.stdout, "raise the base", "what to change")
	assert.NotContains(t, r.stdout, "the base must", "what to change")
}

// TestReplayTimerOffsetFlag takes the timers' offsets from the policy with
// --timer-offset policy, and refuses it outside the periodic scenarios and
// an unknown source, as usage errors.
func TestReplayTimerOffsetFlag(t *testing.T) {
	r := jitterkit(t, context.Background(), "replay", "--scenario", "periodic", "--period", "30s", "--timer-offset", "policy",
		"--clients", "3000", "--accept-rate", "200", "--policy", "none:base=1s,cap=1s", "--runs", "3", "--fix=false")
	assert.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
	assert.Contains(t, r.stdout, "period 30s, timer offsets from the policy", "the scenario's line")
	assert.Contains(t, r.stdout, "up to 3,000 firings in one 1s window, over the budget from the policy's offsets", "the replay's detail")

	r = jitterkit(t, context.Background(), "replay", "--timer-offset", "policy", "--policy", "full")
	assert.Equal(t, exitUsage, r.code, "exit code of --timer-offset policy on an outage; stdout %q", r.stdout)
	assert.Contains(t, r.stderr, `timer offset "policy" is for the periodic kinds, not outage`)
	r = jitterkit(t, context.Background(), "replay", "--scenario", "periodic", "--timer-offset", "boot", "--policy", "full")
	assert.Equal(t, exitUsage, r.code, "exit code of --timer-offset boot; stdout %q", r.stdout)
	assert.Contains(t, r.stderr, `"boot" is not a timer offset (want scenario, policy)`)
}

// TestReplayCollapse replays the bimodal overload at seed 1: under a dip
// of 1.25s, 6 of 20 runs collapse, under 1.28s, 8, while the median run
// recovers at once. The replay fails, names the first run that collapsed
// and the command that replays it, and that command fails too.
func TestReplayCollapse(t *testing.T) {
	for _, c := range []struct{ dip, want string }{
		{"1250ms", "6 of 20 runs never recovered from the trigger within the replay's 5m horizon: a chance of collapse of 30%: at least 14% and at most 50.8%, each bound at 95%"},
		{"1280ms", "8 of 20 runs never recovered from the trigger within the replay's 5m horizon: a chance of collapse of 40%: at least 21.7% and at most 60.6%, each bound at 95%"},
	} {
		r := jitterkit(t, context.Background(), "replay", "--scenario", "overload", "--policy", "full:base=1s,cap=30s", "--dip-for", c.dip, "--seed", "1", "--fix=false")
		assert.Equal(t, exitFail, r.code, "--dip-for %s: exit code; stderr %q", c.dip, r.stderr)
		assert.Contains(t, r.stdout, c.want, "--dip-for %s", c.dip)
		again := "jitterkit replay --scenario overload --policy full:base=1s,cap=30s --dip-for " + c.dip + " --fix=false --runs 3 --seed 1"
		assert.Contains(t, r.stdout, "The first run that never recovered is run 0, seed 1; it replays with: "+again, "--dip-for %s", c.dip)
	}
	r := jitterkit(t, context.Background(), "replay", "--scenario", "overload", "--policy", "full:base=1s,cap=30s", "--dip-for", "1250ms", "--fix=false", "--runs", "3", "--seed", "1")
	assert.Equal(t, exitFail, r.code, "the replay of the first collapsed run; stderr %q", r.stderr)

	pass := jitterkit(t, context.Background(), "replay", "--scenario", "overload", "--policy", "full:base=1s,cap=30s", "--dip-for", "1150ms", "--seed", "1", "--fix=false")
	assert.Equal(t, exitPass, pass.code, "--dip-for 1150ms; stderr %q", pass.stderr)
	assert.Contains(t, pass.stdout, "0 of 20 runs collapsed: a chance of collapse below 13.9% at 95%")

	bound := jitterkit(t, context.Background(), "replay", "--scenario", "overload", "--policy", "full:base=1s,cap=30s", "--dip-for", "1150ms", "--seed", "1", "--fix=false", "--collapse-bound", "5%")
	assert.Equal(t, exitFail, bound.code, "--collapse-bound 5%%; stderr %q", bound.stderr)
	assert.Contains(t, bound.stdout, "Stopped after 59 of at most 59 runs: a run collapsed.")
}

// TestGateTimersOverload gates the policy a failing gate on the same
// aligned timers once offered as its fix: its re-sends pass, but the
// timers alone put 10,000 firings into one second against 500/s. The gate
// fails with that figure, says the fix belongs to the timers' offsets, and
// offers no retry policy.
func TestGateTimersOverload(t *testing.T) {
	dir := t.TempDir()
	r := jitterkit(t, context.Background(), "gate", "--policy", "full:base=50s,cap=50s", "--scenario", "periodic-aligned",
		"--clients", "10000", "--accept-rate", "500", "--runs", "5", "--report", dir)
	assert.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
	assert.Contains(t, r.stdout, "the timers alone put up to 10,000 firings in one 1s window against a budget of 500, a timer load of 20.00: the server rejects at least 95% of them on their first try, whatever the retry policy")
	assert.Contains(t, r.stdout, "give each device its own offset within the 1m period", "what to change")
	rep := readReport(t, dir+"/report.json")
	assert.Equal(t, verdict.Fail, rep.Verdict)
	assert.Empty(t, rep.Fixes, "no retry policy fixes timers that alone exceed the server")
}

// TestGateRefuseCold gates a reconnect whose broker already refuses until
// warm: the policy fails, and the search for a fix, which offers such a
// broker no drop rule, is no usage error. The gate exits 1 and writes its
// report over the previous one.
func TestGateRefuseCold(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a reconnect of 40,000 devices and its fixes")
	}
	dir := t.TempDir()
	for _, fix := range []string{"--fix=false", "--fix=true"} {
		r := jitterkit(t, context.Background(), "gate", "--scenario", "reconnect", "--policy", "full:base=10ms,cap=100ms", "--refuse-cold",
			"--runs", "3", fix, "--report", dir)
		assert.Equal(t, exitFail, r.code, "%s: exit code; stderr %q", fix, r.stderr)
		assert.NotContains(t, r.stderr, "no effect", fix)
		assert.NotContains(t, r.stderr, "was removed", fix)
		rep := readReport(t, dir+"/report.json")
		assert.Equal(t, verdict.Fail, rep.Verdict, fix)
		for _, f := range rep.Fixes {
			assert.NotContains(t, f.Server, "--on-drop", "%s: a refusing broker drops no session", fix)
		}
	}
}

// TestServerArgs makes a server change on a command line as a user would:
// a flag given takes the change's value, the others are added.
func TestServerArgs(t *testing.T) {
	for _, tc := range []struct{ args, flags, want string }{
		{"--scenario reconnect --on-drop reset-jitter --runs 3", "--refuse-cold", "--scenario reconnect --on-drop reset-jitter --runs 3 --refuse-cold"},
		{"--scenario reconnect --on-drop reset-jitter --runs 3", "--on-drop continue", "--scenario reconnect --on-drop continue --runs 3"},
		{"--scenario overload --drop-expired", "--budget envoy --budget-scope fleet", "--scenario overload --drop-expired --budget envoy --budget-scope fleet"},
		{"--refuse-cold --scenario reconnect", "--refuse-cold", "--refuse-cold --scenario reconnect"},
	} {
		assert.Equal(t, tc.want, strings.Join(serverArgs(strings.Fields(tc.args), tc.flags), " "), "%s + %s", tc.args, tc.flags)
	}
}
