package properties

import (
	"context"
	"os"
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
	b.ReportMetric(float64(DefaultDevices*DefaultCapAttempts)*float64(b.N)/b.Elapsed().Seconds(), "delays/s")
}

// TestCheckReportsTheFailureNotItsEcho fails a policy without jitter: the
// failed checks fail their subtests, while frozen-clock, left inconclusive
// by spread's failure, only logs why. With too few devices and nothing
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
	assert.Contains(t, out, "--- PASS: TestCheckReportsTheFailureNotItsEcho/frozen-clock")
	assert.Contains(t, out, "frozen-clock (inconclusive)")

	t.Setenv("CHECK_CASE", "too few")
	out, failed = kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, "--- FAIL: TestCheckReportsTheFailureNotItsEcho/spread")
	assert.Contains(t, out, "(inconclusive)")
}
