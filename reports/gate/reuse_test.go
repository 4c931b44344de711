//go:build unix

package gate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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

// jitterProgram is a Python policy of full jitter, base 10ms and cap
// 100ms, that logs each request it reads to a file of its own under the
// directory $LOGS. seed is the Python expression its generator is seeded
// with for each request, from req, the request.
func jitterProgram(seed string) string {
	return `exec python3 -c '
import hashlib, json, random, sys
log = open(sys.argv[1], "w")
for line in sys.stdin:
    log.write(line); log.flush()
    req = json.loads(line)
    rng = random.Random(` + seed + `)
    print(json.dumps([rng.uniform(0, min(0.1, 0.01 * 2**n)) for n in range(req["attempts"])]), flush=True)
' "$LOGS/$$"`
}

// replayed matches the ids of the devices of a replay's fleets: the checks
// make devices of other shapes.
var replayed = regexp.MustCompile(`"device":"dev-[0-9a-f]{8}-[0-9]{7}"`)

// repeated returns how many requests for the devices of a replay's fleet
// reached the programs that logged to dir after the first of the same.
func repeated(t *testing.T, dir string) int {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	seen := map[string]int{}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if replayed.MatchString(line) {
				seen[line]++
			}
		}
	}
	require.NotEmpty(t, seen, "the replays' requests")
	again := 0
	for _, n := range seen {
		again += n - 1
	}
	return again
}

// TestReuseReplies gates exec programs whose fleet fails, so that the
// search for a fix replays the program slowed down on the gate's own runs,
// the same devices again. A program seeded from the device's id is asked
// each request of the replays once, and its report is the one it gets when
// every request reaches it; a program whose generator is seeded afresh
// from the system for each request is found not reproducible by the checks,
// which see its answers change, and every replay asks it again.
func TestReuseReplies(t *testing.T) {
	if testing.Short() {
		t.Skip("gates a Python program three times")
	}
	cfg := gate.Config{
		Steps:    gate.Checks | gate.Replay | gate.Fix,
		Scenario: sim.Scenario{Clients: 100, AcceptRate: 20, Down: 2 * time.Second},
		Replay:   sim.Config{Runs: 3},
	}
	tests := []struct {
		name         string
		seed         string
		reproducible verdict.Status
		reused       bool
	}{
		{name: "seeded from the id", seed: `hashlib.sha256(req["device"].encode()).digest()`, reproducible: verdict.Pass, reused: true},
		{name: "seeded by the system", seed: ``, reproducible: verdict.Warn, reused: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := t.TempDir()
			t.Setenv("LOGS", logs)
			p, err := gate.ExecPolicy(context.Background(), jitterProgram(tt.seed), 0)
			require.NoError(t, err)
			rep, err := gate.Run(context.Background(), p, cfg)
			require.NoError(t, err)
			require.Equal(t, verdict.Fail, rep.Verdict, "the verdict: the search for a fix must run")
			require.NotEmpty(t, rep.Fixes, "the fixes")
			assert.Equal(t, tt.reproducible, checkNamed(t, rep, properties.NameReproducibility).Status, "the reproducibility check")

			if again := repeated(t, logs); tt.reused {
				assert.Zero(t, again, "requests of the replays that reached the program again")
			} else {
				assert.Positive(t, again, "requests of the replays that reached the program again")
			}
			if !tt.reused {
				return
			}
			// The same gate with every request asked of the program: the
			// replays ask again, and the report is the same.
			logs = t.TempDir()
			t.Setenv("LOGS", logs)
			p, err = gate.ExecPolicy(context.Background(), jitterProgram(tt.seed), 0)
			require.NoError(t, err)
			fresh, err := gate.Run(context.Background(), gate.WithoutReuse(p), cfg)
			require.NoError(t, err)
			assert.Positive(t, repeated(t, logs), "requests of the replays that reached the program again, none reused")
			var got, want bytes.Buffer
			require.NoError(t, reports.WriteJSON(&got, rep))
			require.NoError(t, reports.WriteJSON(&want, fresh))
			assert.Equal(t, want.String(), got.String(), "the report with the replies reused")
		})
	}
}
