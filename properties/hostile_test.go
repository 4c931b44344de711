package properties

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
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
	if got[NameBounds] != verdict.Fail {
		t.Fatalf("bounds: %s; want fail", got[NameBounds])
	}
	b := out.Results[6]
	want := `device "dev-100017" attempt 2: Next did not return within 1s, the only device of 1000; want every delay finite and ≥ 0`
	if b.Detail != want {
		t.Errorf("bounds detail:\n got %s\nwant %s", b.Detail, want)
	}
	// The hang cost one device; the other 999 were read and spread.
	if got[NameSpread] != verdict.Pass || got[NameCapPhase] != verdict.Pass || got[NameClusters] != verdict.Pass {
		t.Errorf("spread %s, cap-phase %s, clusters %s; want pass on the 999 devices that answered", got[NameSpread], got[NameCapPhase], got[NameClusters])
	}
	if got[NameIDPopulations] != verdict.Inconclusive || got[NameReproducibility] != verdict.Inconclusive {
		t.Errorf("id-populations %s, reproducibility %s; want inconclusive (not run on a policy that hangs)", got[NameIDPopulations], got[NameReproducibility])
	}
	if len(out.EarlyDelays[0]) != 999 {
		t.Errorf("len(EarlyDelays[0]) = %d; want 999", len(out.EarlyDelays[0]))
	}
}

func TestEveryDeviceHangs(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	hang := func(kit.Device) kit.Policy {
		return policyFunc(func() (time.Duration, error) { <-block; return 0, nil })
	}
	start := time.Now()
	out := mustRun(t, context.Background(), hang, Config{CallTimeout: time.Second})
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("Run took %v; want it to give up after %d hangs of about 1s", elapsed, maxHangs)
	}
	if out.Status() != verdict.Fail {
		t.Errorf("Status() = %s; want fail", out.Status())
	}
	b := out.Results[6]
	if b.Status != verdict.Fail || !strings.Contains(b.Detail, "stopped after 3 of 1000 devices: 3 hung") {
		t.Errorf("bounds: %s %s; want fail naming the stop", b.Status, b.Detail)
	}
	for _, r := range out.Results {
		if r.Status == verdict.Pass && r.Name != NameCapPhase && r.Name != NameConformance {
			t.Errorf("%s passed with no delays: %s", r.Name, r.Detail)
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
	b := out.Results[6]
	assert.Contains(t, b.Detail, "the run took longer than its timeout of 150ms")
	if out.Err != nil {
		t.Errorf("Err = %v; want nil (the deadline is not a failure of the source)", out.Err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := mustRun(t, ctx, spec(t, "full"), Config{})
	if !errors.Is(out.Err, context.Canceled) && (out.Err == nil || !strings.Contains(out.Err.Error(), "context canceled")) {
		t.Errorf("Err = %v; want the cancellation", out.Err)
	}
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
	b := out.Results[6]
	want := `device "dev-100003": the factory panicked: nil map, the only device of 1000; want every delay finite and ≥ 0`
	if b.Detail != want {
		t.Errorf("bounds detail:\n got %s\nwant %s", b.Detail, want)
	}
	if got := statuses(out)[NameSpread]; got != verdict.Pass {
		t.Errorf("spread: %s; want pass on the other devices", got)
	}
}

func TestSourceErrorIsNotADefect(t *testing.T) {
	f := faulty("dev-100017", 3, func() (time.Duration, error) { return 0, errReset })
	out := mustRun(t, context.Background(), f, Config{IDs: serials(1000)})
	want := `properties: the policy's source failed: device "dev-100017" attempt 3: read |0: connection reset by peer`
	if out.Err == nil || out.Err.Error() != want {
		t.Errorf("Err = %v; want %s", out.Err, want)
	}
	if got := statuses(out)[NameBounds]; got != verdict.Pass {
		t.Errorf("bounds: %s; want pass (a source failure is not the policy's defect)", got)
	}
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
			return policyFunc(func() (time.Duration, error) { <-block; return 0, nil })
		}
		return full(d)
	}
	out := mustRun(t, context.Background(), f, Config{IDs: ids, CallTimeout: time.Second})
	r := out.Results[2]
	want := `attempt 1: Next did not return within 1s, in a population drawn by rapid`
	if r.Name != NameIDPopulations || r.Status != verdict.Fail || !strings.Contains(r.Detail, want) {
		t.Errorf("%s: %s %q; want fail with %q", r.Name, r.Status, r.Detail, want)
	}
	if got := statuses(out)[NameSpread]; got != verdict.Pass {
		t.Errorf("spread: %s; want pass", got)
	}
}
