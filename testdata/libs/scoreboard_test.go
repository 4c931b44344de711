package libs

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// The scoreboard: every row of entries judged by the gate, as go test
// judges a policy (gate.RunFrozen: the checks with the frozen-clock
// bubble, the replay, and the search for a fix), written to
// SCOREBOARD.md. go test -run TestScoreboard -update rewrites the file;
// without -update the test fails when the file is not what the rows give.

// scoreboardFile is the document, beside this package.
const scoreboardFile = "SCOREBOARD.md"

// boardScenario is the one fleet scenario every row is replayed on: 500
// devices fail together against a server that accepts 100 requests a
// second and is down for the first 20 s, and each device gives up after
// observedDelays attempts, the most the loop adapter observes of a device.
var boardScenario = sim.Scenario{
	Clients:     500,
	AcceptRate:  100,
	Down:        20 * time.Second,
	MaxAttempts: observedDelays,
}

// boardReplay are the replications of every replay.
var boardReplay = sim.Config{Runs: 5}

// boardSeeds are the seeds every row is judged at. The document shows the
// first; each row's verdicts must be the same at all of them.
var boardSeeds = []uint64{1, 2, 3}

// A judged row is an entry with its version and its report at each seed.
type judged struct {
	entry
	version string
	// reports holds one report per seed, in the order of boardSeeds.
	reports []reports.Report
	// err is why the row could not be judged, or nil.
	err error
}

// gateConfig returns the gate's configuration for e at seed: the first
// seed runs every step the document shows, the others only the steps the
// verdict depends on.
func gateConfig(e entry, seed uint64) gate.Config {
	steps := gate.Checks | gate.Replay
	if seed == boardSeeds[0] {
		steps |= gate.Fix
	}
	return gate.Config{
		Steps:    steps,
		Seed:     seed,
		Checks:   properties.Config{Cap: e.cap, CapAttempts: observedDelays},
		Scenario: boardScenario,
		Replay:   boardReplay,
	}
}

// moduleVersions returns the version go.mod requires of every module, by
// path: the test binary is built with exactly these (go test records no
// dependencies in a test binary's build information, so the file is read).
func moduleVersions(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	versions := map[string]string{}
	block := false
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 2 && fields[0] == "require" && fields[1] == "(":
			block = true
		case block && len(fields) == 1 && fields[0] == ")":
			block = false
		case block && len(fields) == 2:
			versions[fields[0]] = fields[1]
		case len(fields) == 3 && fields[0] == "require":
			versions[fields[1]] = fields[2]
		}
	}
	return versions
}

// signature is what a row's verdict consists of: the gate's verdict, each
// check's status and the replay's status.
func signature(rep reports.Report) string {
	parts := []string{"verdict " + string(rep.Verdict)}
	for _, c := range rep.Checks {
		parts = append(parts, c.Name+" "+string(c.Status))
	}
	if rep.Replay != nil {
		parts = append(parts, "replay "+string(rep.Replay.Status))
	}
	return strings.Join(parts, ", ")
}

// boardWorkers is how many gate runs the scoreboard makes at once. A run
// of a row read through kit/loop leaves its core idle for much of the
// time, as each step of a fake clock hands over from goroutine to
// goroutine, so the runs are more than the cores; more would gain little,
// as the id-populations check of every run holds properties' lock on
// rapid's settings, one run at a time.
func boardWorkers() int { return 2 * runtime.GOMAXPROCS(0) }

func TestScoreboard(t *testing.T) {
	versions := moduleVersions(t)
	for _, e := range entries {
		for _, m := range append([]string{e.module}, e.also...) {
			require.NotEmpty(t, versions[m], "go.mod requires no %s", m)
		}
	}

	// One run of the gate per row and seed, each a subtest of its own,
	// the rows read through kit/loop first: they take the longest.
	type job struct{ row, seed int }
	var jobs []job
	for _, loopFirst := range []bool{true, false} {
		for i, e := range entries {
			if strings.HasPrefix(e.through, "kit/loop") == loopFirst {
				for k := range boardSeeds {
					jobs = append(jobs, job{i, k})
				}
			}
		}
	}
	rows := make([]judged, len(entries))
	for i, e := range entries {
		rows[i] = judged{entry: e, version: versions[e.module], reports: make([]reports.Report, len(boardSeeds))}
	}
	var mu sync.Mutex
	t.Run("rows", func(t *testing.T) {
		queue := make(chan job)
		var wg sync.WaitGroup
		for range boardWorkers() {
			wg.Go(func() {
				for j := range queue {
					e, seed := entries[j.row], boardSeeds[j.seed]
					t.Run(fmt.Sprintf("%02d/seed-%d", j.row+1, seed), func(t *testing.T) {
						start := time.Now()
						rep, err := gate.RunFrozen(t, gate.GoPolicy(e.module+": "+e.config, e.factory(t)), gateConfig(e, seed))
						t.Logf("%s: %s: %v", e.module, e.config, time.Since(start).Round(time.Millisecond))
						mu.Lock()
						defer mu.Unlock()
						if err != nil && rows[j.row].err == nil {
							rows[j.row].err = fmt.Errorf("seed %d: %w", seed, err)
						}
						rows[j.row].reports[j.seed] = rep
					})
				}
			})
		}
		for _, j := range jobs {
			queue <- j
		}
		close(queue)
		wg.Wait()
	})
	if t.Failed() {
		return
	}
	for i, r := range rows {
		for k, rep := range r.reports {
			if rep.Verdict == "" && r.err == nil {
				t.Skipf("row %d was not judged at seed %d (go test -run selected some rows): the document is compared only when every row is", i+1, boardSeeds[k])
			}
		}
	}

	// Each row's verdict is the kit's at one seed; it must not depend on
	// the seed.
	for i, r := range rows {
		if r.err != nil {
			continue
		}
		first := signature(r.reports[0])
		for k, rep := range r.reports[1:] {
			assert.Equal(t, first, signature(rep), "row %d (%s: %s): the verdicts at seed %d differ from those at seed %d",
				i+1, r.module, r.config, boardSeeds[k+1], boardSeeds[0])
		}
	}

	got := renderBoard(rows, versions)
	want, err := readBoard()
	require.NoError(t, err)
	switch diffs := boardDiffs(want, got); {
	case kittest.Updating():
		kittest.Golden(t, scoreboardFile, []byte(got))
	case len(diffs) > 0:
		t.Errorf("%s is stale (go test -run TestScoreboard -update rewrites it):\n%s", scoreboardFile, strings.Join(diffs, "\n"))
	case want != got:
		t.Logf("%s: the figures or the change of unseeded rows moved:\n%s", scoreboardFile, strings.Join(changedLines(want, got), "\n"))
	}
}

// TestBoardDiffs holds the comparison of a regenerated scoreboard with the
// committed one: a line marked unseeded may move its figures and its
// change, and nothing else may differ.
func TestBoardDiffs(t *testing.T) {
	base := "# title\n" +
		"| 1 | lib | pass · CV 0.29 (want ≥ 0.05) | 3.5 [3.1, 3.9] |\n" +
		"| 2 ≈ | lib | pass · CV 0.29 (want ≥ 0.05) | 3.5 [3.1, 3.9] |\n" +
		"- **1** lib, default. Why: spread fail (no-jitter). Change: Use full:base=30s,cap=30s.\n" +
		"- **2 ≈** lib, default. Why: spread fail (no-jitter). Change: Use full:base=30s,cap=30s.\n"
	tests := []struct {
		name, old, new string
		stale          bool
	}{
		{"the same", "", "", false},
		{"an unseeded row's figures", "| 2 ≈ | lib | pass · CV 0.29 (want ≥ 0.05) | 3.5", "| 2 ≈ | lib | pass · CV 0.3 (want ≥ 0.05) | 3.8", false},
		{"an unseeded row's change", "2 ≈** lib, default. Why: spread fail (no-jitter). Change: Use full:base=30s,cap=30s.", "2 ≈** lib, default. Why: spread fail (no-jitter). Change: Use decorrelated:base=7.5s,cap=25.7s.", false},
		{"an unseeded row's status", "| 2 ≈ | lib | pass", "| 2 ≈ | lib | fail", true},
		{"an unseeded row's cause", "2 ≈** lib, default. Why: spread fail (no-jitter)", "2 ≈** lib, default. Why: spread fail (small-jitter)", true},
		{"a seeded row's figure", "| 1 | lib | pass · CV 0.29", "| 1 | lib | pass · CV 0.3", true},
		{"a seeded row's change", "1** lib, default. Why: spread fail (no-jitter). Change: Use full:base=30s", "1** lib, default. Why: spread fail (no-jitter). Change: Use full:base=20s", true},
		{"a row that became unseeded", "| 1 |", "| 1 ≈ |", true},
		{"a line more", "# title\n", "# title\nmore\n", true},
	}
	for _, tt := range tests {
		got := strings.Replace(base, tt.old, tt.new, 1)
		require.True(t, tt.old == "" || got != base, "%s: the case changes nothing", tt.name)
		if tt.stale {
			assert.NotEmpty(t, boardDiffs(base, got), "%s", tt.name)
		} else {
			assert.Empty(t, boardDiffs(base, got), "%s", tt.name)
		}
	}
}
