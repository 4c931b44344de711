package properties

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestCheckPassesFullJitter(t *testing.T) {
	spec, _ := kit.ParseSpec("full:base=100ms,cap=10s")
	Check(t, spec.Factory(), Config{Claim: &spec, Cap: spec.Cap})
}

// BenchmarkRun runs the default suite on a built-in policy: it must take
// well under a second to belong in every unit-test run.
func BenchmarkRun(b *testing.B) {
	spec, _ := kit.ParseSpec("decorrelated:base=100ms,cap=10s")
	f := spec.Factory()
	for b.Loop() {
		out := mustRun(b, context.Background(), f, Config{Claim: &spec})
		require.Equal(b, verdict.Pass, out.Status(), "Status()")
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
	b.ReportMetric(float64(DefaultDevices*defaultCapAttempts)*float64(b.N)/b.Elapsed().Seconds(), "delays/s")
}

// TestCheckReportsTheFailureNotItsEcho fails a policy without jitter: the
// failed checks fail their subtests, while frozen-clock, left inconclusive
// by spread's failure, is skipped with why. With too few devices and nothing
// failed, the inconclusive checks fail the test: too little evidence is
// never a pass.
func TestCheckReportsTheFailureNotItsEcho(t *testing.T) {
	if kittest.InChild(t) {
		switch os.Getenv("CHECK_CASE") {
		case "no jitter":
			Check(t, spec(t, "none"), Config{})
		case "too few":
			Check(t, spec(t, "full"), Config{IDs: serials(20)})
		}
		return
	}
	t.Setenv("CHECK_CASE", "no jitter")
	out, failed := kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, "--- FAIL: TestCheckReportsTheFailureNotItsEcho/spread")
	assert.Contains(t, out, "--- SKIP: TestCheckReportsTheFailureNotItsEcho/frozen-clock")
	assert.Contains(t, out, "frozen-clock (inconclusive)")

	t.Setenv("CHECK_CASE", "too few")
	out, failed = kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, "--- FAIL: TestCheckReportsTheFailureNotItsEcho/spread")
	assert.Contains(t, out, "(inconclusive)")
}

// TestCheckJudgesOnlyTheSubtestsRun runs Check under go test -run with one
// check's subtest: only that check is judged, with what its verdict reads
// of others. The policy counts the devices made: the population alone when
// spread runs alone, more when frozen-clock makes them again.
func TestCheckJudgesOnlyTheSubtestsRun(t *testing.T) {
	if kittest.InChild(t) {
		var made atomic.Int64
		inner := spec(t, os.Getenv("CHECK_POLICY"))
		Check(t, func(d kit.Device) kit.Policy {
			made.Add(1)
			return inner(d)
		}, Config{})
		t.Logf("devices made: %d", made.Load())
		return
	}
	cases := []struct {
		name, policy, check string
		failed              bool
		// want are lines of the child's output; made is the count of
		// devices made, or 0 for more than the population.
		want []string
		made int
	}{
		{"spread alone makes the population only", "full", NameSpread, false,
			[]string{"--- PASS: TestCheckJudgesOnlyTheSubtestsRun/spread"}, DefaultDevices},
		{"frozen-clock makes devices again", "full", NameFrozenClock, false,
			[]string{"--- PASS: TestCheckJudgesOnlyTheSubtestsRun/frozen-clock"}, 0},
		{"a cause reads the checks it needs", "none", NameClusters, true,
			[]string{"--- FAIL: TestCheckJudgesOnlyTheSubtestsRun/clusters", "what to change: " + NoJitter.Remedy()}, 0},
		{"an inconclusive check reads whether another failed", "none", NameFrozenClock, false,
			[]string{"--- SKIP: TestCheckJudgesOnlyTheSubtestsRun/frozen-clock", "frozen-clock (inconclusive)"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CHECK_POLICY", c.policy)
			parent := strings.Split(t.Name(), "/")[0]
			out, failed := kittest.RunChild(&childOf{T: t, name: parent}, "-test.run=^"+parent+"$/^"+regexp.QuoteMeta(c.check)+"$")
			assert.Equal(t, c.failed, failed, out)
			for _, want := range c.want {
				assert.Contains(t, out, want)
			}
			for _, other := range Checks() {
				if other.Name != c.check {
					assert.NotContains(t, out, "=== RUN   "+parent+"/"+other.Name+"\n", "subtests of other checks")
				}
			}
			m := regexp.MustCompile(`devices made: (\d+)`).FindStringSubmatch(out)
			require.NotNil(t, m, out)
			made, _ := strconv.Atoi(m[1])
			if c.made > 0 {
				assert.Equal(t, c.made, made, "devices made")
			} else {
				assert.Greater(t, made, DefaultDevices, "devices made")
			}
		})
	}
}

// childOf is a subtest that runs its parent test in a child process: the
// child is the parent, whose name it takes.
type childOf struct {
	*testing.T
	name string
}

func (c *childOf) Name() string { return c.name }
