package properties

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// Policies that panic, hang, fail or return delays that are not durations
// are each reported with their device and attempt, under the run-wide
// deadline, and the other checks still run on the devices that answered.

func TestHangingDeviceIsReported(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	f := faulty("dev-100017", 2, func() (time.Duration, error) { <-block; return 0, nil })
	out := mustRun(t, context.Background(), f, Config{IDs: serials(1000), CallTimeout: time.Second})
	got := statuses(out)
	require.Equal(t, verdict.Fail, got[NameBounds], NameBounds)
	b := resultNamed(t, out, NameBounds)
	want := `device "dev-100017" attempt 2: Next did not return within 1s, the only device of 1000; want every delay finite and ≥ 0`
	assert.Equal(t, want, b.Detail, "bounds detail")
	// The hang cost one device; the other 999 were read and spread.
	for _, name := range []string{NameSpread, NameCapPhase, NameClusters} {
		assert.Equal(t, verdict.Pass, got[name], "%s, on the 999 devices that answered", name)
	}
	for _, name := range []string{NameIDPopulations, NameReproducibility} {
		assert.Equal(t, verdict.Inconclusive, got[name], "%s, not run on a policy that hangs", name)
	}
	assert.Len(t, out.EarlyDelays[0], 999, "EarlyDelays[0]")
}

func TestEveryDeviceHangs(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	hang := func(kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) { <-block; return 0, nil })
	}
	start := time.Now()
	out := mustRun(t, context.Background(), hang, Config{CallTimeout: time.Second})
	assert.LessOrEqual(t, time.Since(start), time.Minute, "Run's time; want it to give up after %d hangs of about 1s", maxHangs)
	assert.Equal(t, verdict.Fail, out.Status(), "Status()")
	b := resultNamed(t, out, NameBounds)
	assert.Equal(t, verdict.Fail, b.Status, "bounds: %s", b.Detail)
	assert.Contains(t, b.Detail, "stopped after 3 of 1000 devices: 3 hung", "bounds names the stop")
	for _, r := range out.Results {
		if r.Name != NameCapPhase && r.Name != NameConformance {
			assert.NotEqual(t, verdict.Pass, r.Status, "%s passed with no delays: %s", r.Name, r.Detail)
		}
	}
}

func TestRunWideDeadline(t *testing.T) {
	// Every call is slow but returns: no single call is a hang, the run as
	// a whole is stopped by its deadline.
	slow := func(kit.Device) kit.Policy {
		return kit.FromFunc(func(int) time.Duration { time.Sleep(time.Millisecond); return time.Second })
	}
	out := mustRun(t, context.Background(), slow, Config{Timeout: 150 * time.Millisecond})
	assert.Equal(t, verdict.Inconclusive, out.Status(), "a run stopped by its deadline is not judged")
	for _, r := range out.Results {
		assert.Equal(t, verdict.Inconclusive, r.Status, "%s: %s", r.Name, r.Detail)
	}
	b := resultNamed(t, out, NameBounds)
	assert.Contains(t, b.Detail, "the run took longer than its timeout of 150ms")
	assert.NoError(t, out.Err, "the deadline is not a failure of the source")
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := mustRun(t, ctx, spec(t, "full"), Config{})
	canceled := errors.Is(out.Err, context.Canceled) || out.Err != nil && strings.Contains(out.Err.Error(), "context canceled")
	assert.True(t, canceled, "Err = %v; want the cancellation, wrapped or named", out.Err)
}

func TestPanicInFactory(t *testing.T) {
	full := spec(t, "full")
	f := func(d kit.Device) kit.Policy {
		if d.ID == "dev-100003" {
			panic("nil map")
		}
		return full(d)
	}
	out := mustRun(t, context.Background(), f, Config{IDs: serials(1000)})
	b := resultNamed(t, out, NameBounds)
	want := `device "dev-100003": the factory panicked: nil map, the only device of 1000; want every delay finite and ≥ 0`
	assert.Equal(t, want, b.Detail, "bounds detail")
	assert.Equal(t, verdict.Pass, statuses(out)[NameSpread], "spread, on the other devices")
}

func TestSourceErrorIsNotADefect(t *testing.T) {
	f := faulty("dev-100017", 3, func() (time.Duration, error) { return 0, errReset })
	out := mustRun(t, context.Background(), f, Config{IDs: serials(1000)})
	want := `properties: the policy's source failed: device "dev-100017" attempt 3: read |0: connection reset by peer`
	assert.EqualError(t, out.Err, want)
	assert.Equal(t, verdict.Pass, statuses(out)[NameBounds], "bounds: a source failure is not the policy's defect")
}

func TestHangInDrawnPopulation(t *testing.T) {
	// Every device outside the run's population hangs: the first population
	// rapid draws has some.
	block := make(chan struct{})
	defer close(block)
	ids := serials(1000)
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	full := spec(t, "full")
	f := func(d kit.Device) kit.Policy {
		if !known[d.ID] {
			return kittest.PolicyFunc(func() (time.Duration, error) { <-block; return 0, nil })
		}
		return full(d)
	}
	out := mustRun(t, context.Background(), f, Config{IDs: ids, CallTimeout: time.Second})
	r := resultNamed(t, out, NameIDPopulations)
	assert.Equal(t, NameIDPopulations, r.Name)
	assert.Equal(t, verdict.Fail, r.Status, "%s: %s", r.Name, r.Detail)
	assert.Contains(t, r.Detail, `attempt 1: Next did not return within 1s, in a population drawn by rapid`, r.Name)
	assert.Equal(t, verdict.Pass, statuses(out)[NameSpread], NameSpread)
}

// TestGoexitIsNotAHang has one device's Next end its goroutine, as
// t.FailNow does: it is named at once as that device's defect, not after a
// call timeout as a hang, and the other devices are read.
func TestGoexitIsNotAHang(t *testing.T) {
	f := faulty("dev-100017", 2, func() (time.Duration, error) { runtime.Goexit(); return 0, nil })
	// A call timeout far longer than the test could wait: a Goexit
	// mistaken for a hang would show as a test timeout.
	out := mustRun(t, context.Background(), f, Config{IDs: serials(1000), CallTimeout: time.Hour})
	assert.False(t, out.Hung, "Outcome.Hung")
	b := resultNamed(t, out, NameBounds)
	require.Equal(t, verdict.Fail, b.Status, NameBounds)
	assert.Contains(t, b.Detail, `device "dev-100017" attempt 2: Next ended its goroutine instead of returning (runtime.Goexit, which t.FailNow and t.SkipNow call)`, "bounds detail")
	assert.Len(t, out.EarlyDelays[0], 999, "EarlyDelays[0]: the other devices were read")
}

// TestNilFactory is an error of Run, and fails Check's test rather than
// panicking the test binary.
func TestNilFactory(t *testing.T) {
	if kittest.InChild(t) {
		Check(t, nil, Config{})
		return
	}
	_, err := Run(context.Background(), nil, Config{})
	require.ErrorIs(t, err, errNilFactory)
	out, failed := kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, errNilFactory.Error())
	assert.NotContains(t, out, "panic:")
}
