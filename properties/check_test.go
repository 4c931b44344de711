package properties

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
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
