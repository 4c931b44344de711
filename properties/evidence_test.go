package properties

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// A check passes only on the evidence it asks for: a run that could not
// examine its population, a population too small to judge, or a check that
// does not apply to the source never gives a pass.

func TestDeadlineNeverPasses(t *testing.T) {
	slow := func(d kit.Device) kit.Policy {
		time.Sleep(time.Millisecond)
		return spec(t, "full")(d)
	}
	tests := []struct {
		name string
		f    kit.Factory
		cfg  Config
	}{
		// A deadline far shorter than the population takes, whatever the
		// machine: 300,000 devices read 32 delays each, ten million calls.
		{"full jitter, 300,000 devices, 20ms", spec(t, "full"), Config{Devices: 300_000, Timeout: 20 * time.Millisecond}},
		{"no jitter, 300,000 devices, 20ms", spec(t, "none"), Config{Devices: 300_000, Timeout: 20 * time.Millisecond}},
		{"a slow factory, 30ms", slow, Config{Timeout: 30 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			assert.NotEqual(t, verdict.Pass, out.Status())
			for _, r := range out.Results {
				assert.Contains(t, []verdict.Status{verdict.Fail, verdict.Inconclusive}, r.Status, "%s: %s", r.Name, r.Detail)
				if r.Status == verdict.Inconclusive {
					assert.Regexp(t, `stopped after \d+ of \d+ devices|not run|want at least`, r.Detail, r.Name)
				}
			}
		})
	}
}

func TestTooFewDevicesToJudge(t *testing.T) {
	out := mustRun(t, context.Background(), spec(t, "full"), Config{Devices: 50})
	assert.Equal(t, verdict.Inconclusive, out.Status())
	got := statuses(out)
	for _, name := range []string{NameSpread, NameClusters, NameFrozenClock, NameCapPhase} {
		assert.Equal(t, verdict.Inconclusive, got[name], name)
	}
	assert.Equal(t, "50 of 50 devices gave a first delay; want at least 100 to judge", resultNamed(t, out, NameSpread).Detail)
}

// trace returns the recorded trace of n devices running f, attempts delays
// each.
func trace(t *testing.T, f kit.Factory, n, attempts int) *kit.Trace {
	t.Helper()
	var b strings.Builder
	b.WriteString("device,attempt,delay_s\n")
	for i := range n {
		id := fmt.Sprintf("meter-%05d", i)
		ds, err := kit.Delays(f(kit.Device{ID: id}), attempts)
		require.NoError(t, err)
		for a, d := range ds {
			fmt.Fprintf(&b, "%s,%d,%v\n", id, a+1, d.Seconds())
		}
	}
	tr, err := kit.ReadTrace(strings.NewReader(b.String()))
	require.NoError(t, err)
	return tr
}

func TestRecordedSource(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		cap      time.Duration
		want     map[string]verdict.Status
	}{
		{"three delays a device", 3, testCap, map[string]verdict.Status{
			NameSpread: verdict.Pass, NameClusters: verdict.Pass, NameIDPopulations: verdict.Skipped,
			NameFrozenClock: verdict.Skipped, NameReproducibility: verdict.Skipped, NameCapPhase: verdict.Skipped,
			NameBounds: verdict.Pass}},
		{"five delays a device, short of the cap", 5, testCap, map[string]verdict.Status{
			NameSpread: verdict.Pass, NameClusters: verdict.Pass, NameIDPopulations: verdict.Skipped,
			NameFrozenClock: verdict.Skipped, NameReproducibility: verdict.Skipped, NameCapPhase: verdict.Skipped,
			NameBounds: verdict.Pass}},
		{"five delays a device, no cap declared", 5, 0, map[string]verdict.Status{
			NameSpread: verdict.Pass, NameClusters: verdict.Pass, NameIDPopulations: verdict.Skipped,
			NameFrozenClock: verdict.Skipped, NameReproducibility: verdict.Skipped, NameCapPhase: verdict.Skipped,
			NameBounds: verdict.Pass}},
		{"through the cap", 12, testCap, map[string]verdict.Status{
			NameSpread: verdict.Pass, NameClusters: verdict.Pass, NameIDPopulations: verdict.Skipped,
			NameFrozenClock: verdict.Skipped, NameReproducibility: verdict.Skipped, NameCapPhase: verdict.Pass,
			NameBounds: verdict.Pass}},
		{"through the cap, no cap declared", 12, 0, map[string]verdict.Status{
			NameSpread: verdict.Pass, NameClusters: verdict.Pass, NameIDPopulations: verdict.Skipped,
			NameFrozenClock: verdict.Skipped, NameReproducibility: verdict.Skipped, NameCapPhase: verdict.Pass,
			NameBounds: verdict.Pass}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := trace(t, spec(t, "full"), 1000, tt.attempts)
			out := mustRun(t, context.Background(), tr.Factory(), Config{IDs: tr.IDs(), Source: kit.SourceTrace, Cap: tt.cap})
			got := statuses(out)
			for name, want := range tt.want {
				assert.Equal(t, want, got[name], name)
			}
			assert.Equal(t, verdict.Pass, out.Status(), "the checks a trace supports pass")
			for _, r := range out.Results {
				if r.Status == verdict.Skipped {
					assert.True(t, strings.HasPrefix(r.Detail, "does not apply: "), "%s: %s", r.Name, r.Detail)
				}
			}
		})
	}
	// Recordings of policies with a defect still fail on their own
	// devices: no jitter, and jitter that vanishes at the cap.
	tr := trace(t, spec(t, "none"), 1000, 3)
	out := mustRun(t, context.Background(), tr.Factory(), Config{IDs: tr.IDs(), Source: kit.SourceTrace})
	assert.Equal(t, verdict.Fail, statuses(out)[NameSpread])
	tr = trace(t, jittered(perDevice, vanishingAtCap), 1000, 12)
	out = mustRun(t, context.Background(), tr.Factory(), Config{IDs: tr.IDs(), Source: kit.SourceTrace, Cap: testCap})
	assert.Equal(t, verdict.Fail, statuses(out)[NameCapPhase])
}

func TestExternalSourceHasNoFrozenClock(t *testing.T) {
	out := mustRun(t, context.Background(), spec(t, "full"), Config{Source: kit.SourceExec})
	r := resultNamed(t, out, NameFrozenClock)
	require.Equal(t, NameFrozenClock, r.Name)
	assert.Equal(t, verdict.Skipped, r.Status)
	assert.Contains(t, r.Detail, "never told a device's boot instant")
	assert.Equal(t, verdict.Pass, out.Status())
}

func TestFrozenClockBlamesTheClockOnlyWhenItIs(t *testing.T) {
	tests := []struct {
		name   string
		f      kit.Factory
		frozen bool // run inside a bubble, as Check does
		want   verdict.Status
		detail string
	}{
		{"seeded from the boot second", spec(t, "full:seed=clock"), false, verdict.Fail, "the delays follow the clock"},
		{"seeded from time.Now's second", unixSecondsSeeded(), true, verdict.Fail, "the delays follow the clock"},
		{"seeded from time.Now's nanoseconds", nowSeeded(), true, verdict.Fail, "the delays follow the clock"},
		{"±1% jitter", jittered(perDevice, onePercent), true, verdict.Inconclusive, "not the clock's"},
		{"±1% jitter outside a bubble", jittered(perDevice, onePercent), false, verdict.Inconclusive, "not the clock's"},
		{"full jitter", spec(t, "full"), true, verdict.Pass, "booted at one instant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out Outcome
			var err error
			if tt.frozen {
				out, err = RunFrozen(t, tt.f, Config{})
			} else {
				out, err = Run(context.Background(), tt.f, Config{})
			}
			require.NoError(t, err)
			r := resultNamed(t, out, NameFrozenClock)
			require.Equal(t, NameFrozenClock, r.Name)
			assert.Equal(t, tt.want, r.Status, r.Detail)
			assert.Contains(t, r.Detail, tt.detail)
		})
	}
}

func TestInsideTheCallersBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, err := RunFrozen(t, unixSecondsSeeded(), Config{})
		require.NoError(t, err)
		assert.Equal(t, verdict.Fail, statuses(out)[NameFrozenClock], resultNamed(t, out, NameFrozenClock).Detail)

		out, err = RunFrozen(t, spec(t, "full"), Config{})
		require.NoError(t, err)
		assert.Equal(t, verdict.Pass, out.Status())

		// Check reports each check without subtests, which a bubble
		// forbids.
		Check(t, spec(t, "full"), Config{})
	})
}

func TestRapidsBudgetIsNotAPass(t *testing.T) {
	// Inside a bubble a factory that sleeps moves the fake clock on, and
	// rapid stops drawing populations when its time budget is spent.
	synctest.Test(t, func(t *testing.T) {
		full := spec(t, "full")
		slow := func(d kit.Device) kit.Policy {
			time.Sleep(time.Hour)
			return full(d)
		}
		out, err := RunFrozen(t, slow, Config{})
		require.NoError(t, err)
		r := resultNamed(t, out, NameIDPopulations)
		require.Equal(t, NameIDPopulations, r.Name)
		assert.Equal(t, verdict.Inconclusive, r.Status)
		assert.Regexp(t, `^rapid drew \d+ of the 100 populations`, r.Detail)
		assert.Equal(t, verdict.Inconclusive, out.Status())
	})
}

func TestMemoryRefusedUpFront(t *testing.T) {
	cfg := Config{Devices: 20_000_000}
	err := cfg.Validate()
	var me *kit.ConfigError
	require.ErrorAs(t, err, &me)
	assert.True(t, me.Memory)
	assert.Equal(t, "properties: checking 20000000 devices over 32 attempts would need about 32.8 GiB, above the memory limit of 4.0 GiB: check fewer devices or fewer attempts, or raise the limit", err.Error())
	var made atomic.Int64
	full := spec(t, "full")
	counted := func(d kit.Device) kit.Policy { made.Add(1); return full(d) }
	_, err = Run(context.Background(), counted, cfg)
	assert.ErrorAs(t, err, &me)
	assert.Zero(t, made.Load(), "devices made; want the run refused before any work")

	assert.NoError(t, Config{Devices: 1_000_000}.Validate())
}

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Devices: -1}, "properties: devices -1 is negative"},
		{Config{Attempts: maxAttempts + 1}, "properties: attempts 65537 is not between 1 and 65536"},
		{Config{Thresholds: Thresholds{MinCV: -1}}, "properties: MinCV -1 is not a positive number"},
		{Config{Thresholds: Thresholds{ArrivalRatio: 0.5}}, "properties: ArrivalRatio 0.5 is not a number above 1"},
		{Config{IDs: []string{"a", ""}}, "properties: IDs[1] is empty"},
		{Config{Timeout: -time.Second}, "properties: timeout -1s is negative"},
		{Config{Source: "seven"}, "properties: unknown source \"seven\""},
	}
	for _, tt := range tests {
		assert.EqualError(t, tt.cfg.Validate(), tt.want)
	}
}

func TestMemoryEstimateCoversThePeak(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100,000 devices")
	}
	cfg := Config{Devices: 100_000}
	used := kittest.PeakHeap(2*time.Millisecond, func() { mustRun(t, context.Background(), spec(t, "full"), cfg) })
	t.Logf("peak heap %d B/device; estimate %d B/device", used/int64(cfg.Devices), cfg.Memory()/int64(cfg.Devices))
	assert.LessOrEqual(t, used, cfg.Memory(), "the estimate must cover the peak")
}

func TestBoundsNeedsAnswers(t *testing.T) {
	// Every device's source fails: there is no delay to hold in bounds.
	f := func(kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) { return 0, errReset })
	}
	out := mustRun(t, context.Background(), f, Config{IDs: serials(200)})
	require.Error(t, out.Err)
	r := resultNamed(t, out, NameBounds)
	require.Equal(t, NameBounds, r.Name)
	assert.Equal(t, verdict.Inconclusive, r.Status, r.Detail)
	assert.Equal(t, verdict.Inconclusive, out.Status())
}

// TestNoDelayIsNoEvidence runs a policy that never retries: every device
// waits the same empty schedule, which no check may count as spread,
// clusters or reproducibility passed.
func TestNoDelayIsNoEvidence(t *testing.T) {
	never := func(kit.Device) kit.Policy { return kit.FromSlice(nil) }
	out := mustRun(t, context.Background(), never, Config{})
	for _, r := range out.Results {
		assert.NotEqual(t, verdict.Pass, r.Status, "%s passed on no delay: %s", r.Name, r.Detail)
	}
	assert.Equal(t, verdict.Inconclusive, out.Status())
}
