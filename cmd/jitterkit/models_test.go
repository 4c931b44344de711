package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestModelExitCodes replays each server model from the command line, in
// 3 runs, and checks that the exit code is the verdict.
//
// The default overload (70 requests a second into 100 jobs a second, a
// dip to 10% for 5s) fails with the default policy: every timed-out
// attempt is retried into a queue that still holds its work. Bounding the
// queue at 50 jobs, skipping expired work, or not retrying, each lets it
// recover. The default reconnect fails under the reset rule, and under
// --on-drop continue with the documented policy of 1s to 30s (sim's
// TestReconnectDefaults) it passes; with the default policy, whose cap is
// 10s, 2,000 devices still reconnect about 400 times a second against a
// broker that handshakes 200, and it never has CPU left to warm up. The
// contention passes with the AWS simulator's full jitter.
func TestModelExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--policy", "full", "--scenario", "overload"}, exitFail},
		{[]string{"--policy", "full", "--scenario", "overload", "--queue-limit", "50"}, exitPass},
		{[]string{"--policy", "full", "--scenario", "overload", "--drop-expired"}, exitPass},
		{[]string{"--policy", "full", "--scenario", "overload", "--retries", "0"}, exitNoVerdict},
		{[]string{"--policy", "full", "--scenario", "reconnect"}, exitFail},
		{[]string{"--policy", "full:base=1s,cap=30s", "--scenario", "reconnect"}, exitFail},
		{[]string{"--policy", "full:base=1s,cap=30s", "--scenario", "reconnect", "--on-drop", "continue"}, exitPass},
		{[]string{"--policy", "full", "--scenario", "reconnect", "--on-drop", "continue"}, exitFail},
		{[]string{"--policy", "full", "--scenario", "reconnect", "--refuse-cold"}, exitPass},
		{[]string{"--scenario", "contention", "--policy", "full:base=10ms,cap=2s"}, exitPass},
	} {
		args := append([]string{"replay"}, append(c.args, "--runs", "3")...)
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), args...)
			require.Equal(t, c.code, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
			switch c.code {
			case exitFail:
				assert.Equal(t, "jitterkit: the policy failed the replay\n", r.stderr, "stderr")
				assert.Contains(t, r.stdout, "\nreplay  FAIL  ", "the replay's line")
			case exitPass:
				assert.Empty(t, r.stderr, "stderr")
				assert.Contains(t, r.stdout, "\nreplay  PASS  ", "the replay's line")
			}
		})
	}
}

// TestModelBadParameters gives the server models parameters out of range
// or of another kind: each exits 2, before any work, with a message,
// pinned word for word, that names the flag.
func TestModelBadParameters(t *testing.T) {
	see := ` (see "jitterkit help replay")` + "\n"
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--scenario", "overload", "--dip-for", "10m"},
			"jitterkit: the dip ends at 10m30s (dip-at 30s, dip-for 10m0s, ramp 0s), less than 5s before the 5m0s horizon: recovery could not be judged"},
		{[]string{"--scenario", "overload", "--horizon", "30s"},
			"jitterkit: the dip ends at 35s (dip-at 30s, dip-for 5s, ramp 0s), less than 5s before the 30s horizon: recovery could not be judged"},
		{[]string{"--scenario", "overload", "--rate", "0"}, "jitterkit: --rate: 0 is not a positive number"},
		{[]string{"--scenario", "overload", "--rate", "150"},
			"jitterkit: --rate 150 requests a second is at or over the accept-rate of 100 jobs a second: the server is overloaded without a dip, and no fleet recovers from that"},
		{[]string{"--scenario", "overload", "--accept-rate", "60"},
			"jitterkit: --rate 70 requests a second is at or over the accept-rate of 60 jobs a second: the server is overloaded without a dip, and no fleet recovers from that"},
		{[]string{"--scenario", "overload", "--timeout", "0"}, "jitterkit: --timeout: 0s is not positive"},
		{[]string{"--scenario", "overload", "--rtt", "1s"}, "jitterkit: --rtt 1s is not shorter than the 1s timeout: every attempt would time out"},
		{[]string{"--scenario", "overload", "--dip", "100%"}, `jitterkit: --dip: "100%" is not a fraction of at least 0 and below 1 (such as 10% or 0.1)`},
		{[]string{"--scenario", "overload", "--queue-limit", "0"}, "jitterkit: --queue-limit: 0 is not a positive number"},
		{[]string{"--scenario", "overload", "--retries", "1001"}, "jitterkit: --retries 1001 is not between 0 and 1000"},
		{[]string{"--timeout", "1s"}, "jitterkit: --timeout is a field of the overload scenario, not of outage"},
		{[]string{"--scenario", "outage", "--dip", "50%"}, "jitterkit: --dip is a field of the overload scenario, not of outage"},
		{[]string{"--scenario", "reconnect", "--queue-limit", "50"}, "jitterkit: --queue-limit is a field of the overload scenario, not of reconnect"},
		{[]string{"--scenario", "overload", "--on-drop", "continue"}, "jitterkit: --on-drop is a field of the reconnect scenario, not of overload"},
		{[]string{"--scenario", "contention", "--accept-rate", "10"}, "jitterkit: --accept-rate does not apply to the contention scenario"},
		{[]string{"--scenario", "contention", "--timeout", "1s"}, "jitterkit: --timeout is a field of the overload scenario, not of contention"},
		{[]string{"--scenario", "reconnect", "--accept-rate", "100"},
			"jitterkit: --accept-rate 100 is not the broker's handshakes a second, cpu over handshake (200): set cpu and handshake instead"},
		{[]string{"--scenario", "reconnect", "--on-drop", "never"}, `jitterkit: --on-drop: "never" is not a drop rule (want reset, reset-jitter, continue)`},
		{[]string{"--scenario", "reconnect", "--down", "299s"}, "jitterkit: --down 4m59s ends less than 5s before the 5m0s horizon: recovery could not be judged"},
		{[]string{"--scenario", "overload", "--rate", "0.01"},
			"jitterkit: --rate 0.01 requests a second offers 2.6 requests from the dip's end to the 5m0s horizon, fewer than 100: too few to judge whether 1% of them fail; raise the rate or the horizon"},
		{[]string{"--scenario", "contention", "--horizon", "1ms"},
			"jitterkit: --horizon 1ms is shorter than four messages of the network, 64ms (4 × (latency + 3 × latency-sd)): no client could finish a read and a write"},
		{[]string{"--scenario", "overload", "--retry-after", "2s"}, "jitterkit: --retry-after does not apply to the overload scenario"},
		{[]string{"--scenario", "overload", "--budget-scope", "fleet"},
			"jitterkit: --budget-scope fleet is set without a budget to hold (want a budget of one of finagle, envoy, grpc, aws, aws2026, adaptive, breaker)"},
		{[]string{"--scenario", "overload", "--budget", "hystrix"},
			`jitterkit: --budget: unknown budget "hystrix" (want one of finagle, envoy, grpc, aws, aws2026, adaptive, breaker)`},
		{[]string{"--scenario", "reconnect", "--cpu", "5"}, "jitterkit: --cpu 5 units a second is less than one handshake of 10 units: the broker could accept no connect"},
		{[]string{"--scenario", "reconnect", "--rtt", "290s"},
			"jitterkit: --rtt 4m50s is not shorter than the 4m50s from the broker's return to the last recovery window: no device could connect in time to judge recovery"},
		{[]string{"--scenario", "reconnect", "--cold-drop", "295s"},
			"jitterkit: --cold-drop 4m55s is not shorter than the 4m55s from the broker's return to the horizon: no session accepted cold would be dropped within the replay"},
		{[]string{"--scenario", "reconnect", "--retries", "3"}, "jitterkit: --retries does not apply to the reconnect scenario"},
		{[]string{"--scenario", "reconnect", "--tipping-point"}, "jitterkit: --tipping-point applies to the overload scenario only, not to the reconnect scenario"},
		// --retries 0 is "none" in an overload only: a storm's retries
		// are its figure, and 0 of them is no storm.
		{[]string{"--scenario", "storm", "--retries", "0"}, "jitterkit: --retries 0 applies to the overload scenario only: a storm replay retries at least once"},
		{[]string{"--scenario", "contention", "--latency", "2h"}, "jitterkit: --latency 2h0m0s is not between 0 and 1h0m0s"},
		{[]string{"--scenario", "reconnect", "--cold-drop", "800h"}, "jitterkit: --cold-drop 800h0m0s is not between 0 and 744h0m0s"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), append([]string{"replay", "--policy", "full", "--runs", "3"}, c.args...)...)
			assert.Equal(t, exitUsage, r.code, "exit code")
			assert.Equal(t, c.stderr+see, r.stderr, "stderr")
			assert.Empty(t, r.stdout, "stdout: a usage error is found before any work")
		})
	}
	r := jitterkit(t, context.Background(), "gate", "--policy", "full", "--scenario", "overload", "--dip-for", "10m", "--runs", "3")
	assert.Equal(t, exitUsage, r.code, "gate: exit code")
	assert.Equal(t, `jitterkit: the dip ends at 10m30s (dip-at 30s, dip-for 10m0s, ramp 0s), less than 5s before the 5m0s horizon: recovery could not be judged (see "jitterkit help gate")`+"\n", r.stderr, "gate: stderr")
}

// TestModelGoAndCLIGiveOneReport gates one passing overload with one seed
// from go test (gate.Check) and from the command line (jitterkit gate):
// both judge it the same, and write the same report.json, byte for byte.
func TestModelGoAndCLIGiveOneReport(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}
	dir := t.TempDir()
	fromCLI, fromGo := filepath.Join(dir, "cli"), filepath.Join(dir, "go")

	r := jitterkit(t, context.Background(), "gate", "--policy", spec.String(), "--scenario", "overload", "--queue-limit", "50", "--runs", "3", "--seed", "7", "--report", fromCLI)
	require.Equal(t, exitPass, r.code, r.stderr)
	rep := gate.Check(t, gate.SpecPolicy(spec), gate.Config{Seed: 7, Scenario: sim.Scenario{Kind: sim.Overload, QueueLimit: 50}, Replay: sim.Config{Runs: 3}, ReportDir: fromGo})
	assert.Equal(t, verdict.Pass, rep.Verdict, "gate.Check's verdict")
	require.NotNil(t, rep.Replay)
	assert.Equal(t, sim.Overload, rep.Replay.Scenario.Kind)

	cli, err := os.ReadFile(filepath.Join(fromCLI, "report.json"))
	require.NoError(t, err)
	goReport, err := os.ReadFile(filepath.Join(fromGo, "report.json"))
	require.NoError(t, err)
	assert.Equal(t, string(cli), string(goReport))
}
