package properties

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

func spec(t testing.TB, text string) kit.Factory {
	t.Helper()
	s, err := kit.ParseSpec(text)
	require.NoError(t, err)
	return s.Factory()
}

// statuses returns the status of each check by name.
func statuses(out Outcome) map[string]verdict.Status {
	m := map[string]verdict.Status{}
	for _, r := range out.Results {
		m[r.Name] = r.Status
	}
	return m
}

// logOutcome writes every check's figure, for the record of a run.
func logOutcome(t *testing.T, out Outcome) {
	t.Helper()
	for _, r := range out.Results {
		t.Logf("%-15s %-4s figure %-10.4g threshold %-10.4g %s", r.Name, r.Status, r.Figure, r.Threshold, r.Detail)
	}
}

func TestMustFail(t *testing.T) {
	claimFull := &kit.Spec{Strategy: kit.Full}
	tests := []struct {
		name string
		f    kit.Factory
		cfg  Config
		fail []string // checks that must fail; the run must fail
		// notClock says that the delays do not spread at distinct boot
		// instants either: frozen-clock must then be inconclusive, not
		// blame the clock.
		notClock bool
	}{
		{"no jitter", spec(t, "none"), Config{}, []string{NameSpread, NameClusters, NameCapPhase}, true},
		{"seeded from the boot second", spec(t, "full:seed=clock"), Config{}, []string{NameSpread, NameClusters, NameFrozenClock, NameCapPhase}, false},
		{"constant seed", spec(t, "full:seed=constant"), Config{}, []string{NameSpread, NameClusters, NameCapPhase}, true},
		{"seed from the sum of the id's bytes", jittered(byteSum, fullJitter), Config{}, []string{NameClusters, NameIDPopulations}, false},
		{"seed from the id's prefix", jittered(prefix, fullJitter), Config{}, []string{NameClusters, NameIDPopulations}, false},
		{"seed from the id's last character", jittered(lastChar, fullJitter), Config{}, []string{NameClusters, NameIDPopulations}, false},
		{"±1% jitter", jittered(perDevice, onePercent), Config{}, []string{NameSpread, NameCapPhase}, true},
		{"jitter that vanishes at the cap", jittered(perDevice, vanishingAtCap), Config{}, []string{NameCapPhase}, false},
		{"added jitter negligible at later attempts", negligibleJitter(), Config{}, []string{NameCapPhase}, false},
		{"retries realigned to a fixed instant", realignedRetries(), Config{}, []string{NameClusters}, false},
		{"negative delay", faulty("dev-100017", 2, func() (time.Duration, error) { return -time.Second, nil }), Config{IDs: serials(1000)}, []string{NameBounds}, false},
		{"NaN delay", faulty("dev-100017", 2, func() (time.Duration, error) { return kit.Seconds(math.NaN()) }), Config{IDs: serials(1000)}, []string{NameBounds}, false},
		{"absurd delay", faulty("dev-100017", 3, func() (time.Duration, error) { return kit.Seconds(1e12) }), Config{IDs: serials(1000)}, []string{NameBounds}, false},
		{"over the declared cap", overCap(), Config{Cap: testCap}, []string{NameBounds}, false},
		{"panic in Next", faulty("dev-100017", 2, func() (time.Duration, error) { panic("index out of range") }), Config{IDs: serials(1000)}, []string{NameBounds}, false},
		{"equal jitter claiming full", spec(t, "equal"), Config{Claim: claimFull}, []string{NameConformance}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			logOutcome(t, out)
			assert.Equal(t, verdict.Fail, out.Status(), "Status()")
			got := statuses(out)
			for _, name := range tt.fail {
				assert.Equal(t, verdict.Fail, got[name], name)
			}
			if tt.notClock {
				assert.Equal(t, verdict.Inconclusive, got[NameFrozenClock], "%s: the delays do not spread at distinct boots either", NameFrozenClock)
			}
			assert.NoError(t, out.Err, "a defect of the policy, not of its source")
		})
	}
}

func TestMustPass(t *testing.T) {
	tests := []struct {
		name string
		f    kit.Factory
		cfg  Config
		warn []string // checks that warn; all others pass
	}{
		{"full", spec(t, "full"), Config{Claim: &kit.Spec{Strategy: kit.Full}}, nil},
		{"equal", spec(t, "equal"), Config{Claim: &kit.Spec{Strategy: kit.Equal}}, nil},
		{"decorrelated", spec(t, "decorrelated"), Config{Claim: &kit.Spec{Strategy: kit.Decorrelated}}, nil},
		{"decorrelated base 1s cap 300s", spec(t, "decorrelated:base=1s,cap=300s"), Config{Claim: &kit.Spec{Strategy: kit.Decorrelated, Base: time.Second, Cap: 300 * time.Second}}, nil},
		{"full from one shared generator", sharedGenerator(), Config{}, []string{NameReproducibility}},
		{"full rounded to ms", roundedMS(spec(t, "full")), Config{Claim: &kit.Spec{Strategy: kit.Full}}, nil},
		{"equal rounded to ms", roundedMS(spec(t, "equal")), Config{Claim: &kit.Spec{Strategy: kit.Equal}}, nil},
		{"decorrelated rounded to ms", roundedMS(spec(t, "decorrelated")), Config{Claim: &kit.Spec{Strategy: kit.Decorrelated}}, nil},
		{"full within the declared cap", spec(t, "full"), Config{Cap: testCap}, nil},
		{"none claiming none", spec(t, "none"), Config{Claim: &kit.Spec{Strategy: kit.None}}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "none claiming none" {
				// Conformance alone: none spreads nothing, but follows its claim.
				out := mustRun(t, context.Background(), tt.f, tt.cfg)
				assert.Equal(t, verdict.Pass, statuses(out)[NameConformance], NameConformance)
				return
			}
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			logOutcome(t, out)
			warn := map[string]bool{}
			for _, name := range tt.warn {
				warn[name] = true
			}
			for _, r := range out.Results {
				want := verdict.Pass
				if warn[r.Name] {
					want = verdict.Warn
				}
				assert.Equal(t, want, r.Status, "%s: %s", r.Name, r.Detail)
			}
			assert.NoError(t, out.Err)
		})
	}
}

// serials returns n sequential serial ids from dev-100000.
func serials(n int) []string { return shapeIDs(shapeSerial, n, 100000, 0) }

func TestRequireReproducible(t *testing.T) {
	out := mustRun(t, context.Background(), sharedGenerator(), Config{RequireReproducible: true})
	assert.Equal(t, verdict.Fail, statuses(out)[NameReproducibility], "reproducibility, when required")
}

func TestSecondProcess(t *testing.T) {
	// A second process whose devices draw from other seeds: the same ids,
	// different delays.
	second := jittered(func(d kit.Device) uint64 { return kit.HashID(d.ID) + 1 }, fullJitter)
	out := mustRun(t, context.Background(), jittered(perDevice, fullJitter), Config{Second: second})
	r := resultNamed(t, out, NameReproducibility)
	require.Equal(t, NameReproducibility, r.Name)
	require.Equal(t, verdict.Warn, r.Status, r.Name)
	if assert.NotNil(t, r.Counterexample, "the counterexample") {
		assert.Equal(t, "from a second process", r.Counterexample.Devices[1].Err, "the counterexample's second device")
	}
	same := mustRun(t, context.Background(), jittered(perDevice, fullJitter), Config{Second: jittered(perDevice, fullJitter)})
	assert.Equal(t, verdict.Pass, statuses(same)[NameReproducibility], "same policy in a second process: reproducibility")
}

func TestFrozenClockInSynctest(t *testing.T) {
	// Under Run the wall clock runs and the clock-seeded policy spreads;
	// inside the bubble every call sees one instant and it collapses.
	out := mustRun(t, context.Background(), nowSeeded(), Config{})
	assert.Equal(t, verdict.Pass, statuses(out)[NameFrozenClock], "Run: frozen-clock (the wall clock is not frozen outside a bubble)")
	frozen, err := RunFrozen(t, nowSeeded(), Config{})
	require.NoError(t, err)
	r := resultNamed(t, frozen, NameFrozenClock)
	require.Equal(t, NameFrozenClock, r.Name)
	require.Equal(t, verdict.Fail, r.Status, r.Name)
	t.Log(r.Detail)
	fine, err := RunFrozen(t, spec(t, "full"), Config{})
	require.NoError(t, err)
	assert.Equal(t, verdict.Pass, statuses(fine)[NameFrozenClock], "full in the bubble: frozen-clock")
}

// mustRun is Run for tests, failing tb when Run refuses cfg.
func mustRun(tb testing.TB, ctx context.Context, f kit.Factory, cfg Config) Outcome {
	tb.Helper()
	out, err := Run(ctx, f, cfg)
	require.NoError(tb, err, "Run")
	return out
}
