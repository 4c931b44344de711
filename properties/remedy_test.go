package properties

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// oneInstance returns a factory that gives every device the policy f made
// for the first: a fleet that shares one instance.
func oneInstance(f kit.Factory) kit.Factory {
	var one kit.Policy
	return func(d kit.Device) kit.Policy {
		if one == nil {
			one = f(d)
		}
		return one
	}
}

// TestOneRemedyPerRootCause runs a policy with exactly one defect, checks
// that every finding of the run names that root cause and its remedy, then
// runs the policy that applies the remedy and checks that it passes.
func TestOneRemedyPerRootCause(t *testing.T) {
	claimFull := &kit.Spec{Strategy: kit.Full}
	claimEqual := &kit.Spec{Strategy: kit.Equal}
	fixed := jittered(perDevice, fullJitter)
	tests := []struct {
		cause  Cause
		broken kit.Factory
		cfg    Config
		remedy kit.Factory // the policy with the remedy applied
		fixCfg Config
		says   string // the remedy, when it names the delays; else the cause's
	}{
		{NoJitter, spec(t, "none"), Config{}, spec(t, "full"), Config{}, ""},
		{ClockSeed, spec(t, "full:seed=clock"), Config{}, spec(t, "full:seed=device"), Config{}, ""},
		{SharedSeed, spec(t, "full:seed=constant"), Config{}, spec(t, "full:seed=device"), Config{}, ""},
		{WeakSeed, jittered(byteSum, fullJitter), Config{}, fixed, Config{}, ""},
		{SharedGenerator, sharedGenerator(), Config{}, fixed, Config{}, ""},
		{SmallJitter, jittered(perDevice, onePercent), Config{}, fixed, Config{}, ""},
		{JitterLostAtCap, jittered(perDevice, vanishingAtCap), Config{}, fixed, Config{}, ""},
		{UnjitteredDelay, firstFixed(testBase), Config{}, fixed, Config{},
			"Delay 1 is 100ms for every device while delays 2–3 spread: jitter it too, drawing it at random within its window as the others are, or the fleet's retries after it arrive together."},
		{AddedJitter, negligibleJitter(), Config{}, fixed, Config{}, ""},
		{Realigned, realignedRetries(), Config{}, fixed, Config{}, ""},
		// Full jitter whose window is capped at 12s, while 10s is declared.
		{OverCap, spec(t, "full:cap=12s"), Config{Cap: testCap}, spec(t, "full:cap=10s"), Config{Cap: testCap}, ""},
		{BadDelay, faulty("dev-100017", 2, func() (time.Duration, error) { return -time.Second, nil }), Config{IDs: serials(1000)},
			fixed, Config{IDs: serials(1000)}, ""},
		{WrongStrategy, spec(t, "equal"), Config{Claim: claimFull}, spec(t, "equal"), Config{Claim: claimEqual}, ""},
		{SharedInstance, oneInstance(spec(t, "full")), Config{}, spec(t, "full"), Config{}, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.cause), func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.broken, tt.cfg)
			findings := 0
			for _, r := range out.Results {
				if !r.Status.Finding() {
					continue
				}
				findings++
				assert.Equal(t, tt.cause, r.Cause, "%s: %s", r.Name, r.Detail)
				says := tt.cause.Remedy()
				if tt.says != "" {
					says = tt.says
				}
				assert.Equal(t, says, r.Remedy, r.Name)
			}
			require.NotZero(t, findings, "the defect is found")
			assert.NotEmpty(t, tt.cause.Remedy())

			fixed := mustRun(t, context.Background(), tt.remedy, tt.fixCfg)
			assert.Equal(t, verdict.Pass, fixed.Status(), "with the remedy applied")
			for _, r := range fixed.Results {
				assert.Empty(t, r.Cause, "%s: %s", r.Name, r.Detail)
			}
		})
	}
}

func TestFixedSchedule(t *testing.T) {
	tests := []struct {
		name string
		f    kit.Factory
		want bool
	}{
		{"no jitter", spec(t, "none"), true},
		{"no jitter from its cap", spec(t, "none:base=10s,cap=10s"), true},
		{"no jitter, ×1.5", spec(t, "none:multiplier=1.5"), true},
		{"a constant seed, full jitter", spec(t, "full:seed=constant"), false},
		{"a constant seed, equal jitter", spec(t, "equal:seed=constant"), false},
		{"a constant seed, decorrelated jitter", spec(t, "decorrelated:seed=constant"), false},
		{"devices that differ", spec(t, "full"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{IDs: serials(200)}.withDefaults()
			r := &runner{cfg: cfg}
			r.main = collect(context.Background(), tt.f, cfg.IDs, boots{at: cfg.Boot}, cfg.CapAttempts, cfg)
			r.clean = cleanDevices(r.main)
			assert.Equal(t, tt.want, r.fixedSchedule())
		})
	}
}

// TestCausesOfLibrarySchedules diagnoses the schedules real libraries
// draw, whose findings once named the seed where the jitter is at fault:
// a Fibonacci backoff without jitter, a reconnect loop that retries at once
// and then waits a fixed schedule, a first delay without jitter before
// jittered ones, and small jitter capped after it is drawn, so that every
// device waits the cap from delay 3 on.
func TestCausesOfLibrarySchedules(t *testing.T) {
	schedule := func(ds ...time.Duration) kit.Factory {
		return func(kit.Device) kit.Policy { return kit.FromSlice(ds) }
	}
	s := time.Second
	tests := []struct {
		name  string
		f     kit.Factory
		cfg   Config
		check string
		want  Cause
	}{
		{"fibonacci without jitter", schedule(s, 2*s, 3*s, 5*s, 8*s, 13*s), Config{}, NameSpread, NoJitter},
		{"at once, then a fixed schedule", schedule(0, s, 2*s, 4*s, 8*s), Config{}, NameSpread, NoJitter},
		{"two immediate retries", schedule(0, 0), Config{}, NameSpread, NoJitter},
		{"two delays drawn from one constant seed", func(kit.Device) kit.Policy {
			rng := rand.New(rand.NewPCG(7, 7))
			return kit.FromSlice([]time.Duration{fullJitter(rng, 0), fullJitter(rng, 1)})
		}, Config{}, NameSpread, SharedSeed},
		{"the first delay without jitter", jittered(perDevice, func(rng *rand.Rand, n int) time.Duration {
			if n == 0 {
				return s
			}
			return fullJitter(rng, n)
		}), Config{}, NameSpread, UnjitteredDelay},
		{"±5% capped after it is drawn", jittered(perDevice, func(rng *rand.Rand, n int) time.Duration {
			return min(2*s, time.Duration(float64(s<<n)*(0.95+0.1*rng.Float64())))
		}), Config{Cap: 2 * s}, NameSpread, JitterLostAtCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			res := resultNamed(t, out, tt.check)
			require.Equal(t, verdict.Fail, res.Status, res.Detail)
			assert.Equal(t, tt.want, res.Cause, res.Detail)
		})
	}
}

// firstFixed returns full jitter per device whose first delays are the
// given ones for every device, asked as a reconnect loop asks its backoff:
// attempt i, from 0, before the (i+1)-th try after the connection is lost,
// where attempt 0 is often no wait at all.
func firstFixed(first ...time.Duration) kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 0x7465737420))
		return kit.FromIndex(func(i int) time.Duration {
			if i < len(first) {
				return first[i]
			}
			return fullJitter(rng, i)
		})
	}
}

// TestUnjitteredDelayIsNamed diagnoses policies that jitter every delay
// but one or a few, each the same for every device: the remedy names the
// delays and what every device waits there, and is not the remedy of a
// policy without jitter at all.
func TestUnjitteredDelayIsNamed(t *testing.T) {
	tests := []struct {
		name   string
		f      kit.Factory
		remedy string
	}{
		{"the first delay exactly the base", firstFixed(testBase),
			"Delay 1 is 100ms for every device while delays 2–3 spread: jitter it too, drawing it at random within its window as the others are, or the fleet's retries after it arrive together."},
		{"a reconnect loop's attempt 0 of no wait", firstFixed(0),
			"Delay 1 is 0s for every device (a retry at once) while delays 2–3 spread: jitter it too, drawing it at random between 0 and the base delay, or the whole fleet retries in the instant it failed."},
		{"no wait, then the base", firstFixed(0, testBase),
			"Delays 1–2 are [0s 100ms] for every device while delay 3 spreads: jitter them too, drawing each at random within its window as the others are (between 0 and the base delay for a wait of 0), or the whole fleet retries in the instant it failed."},
		{"the first three without jitter", firstFixed(testBase, 2*testBase, 4*testBase),
			"Delays 1–3 are [100ms 200ms 400ms] for every device while delays 4–32 spread: jitter them too, drawing each at random within its window as the others are, or the fleet's retries after them arrive together."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, Config{})
			var findings []string
			for _, r := range out.Results {
				if !r.Status.Finding() {
					continue
				}
				findings = append(findings, r.Name)
				// The retries after a delay every device waits alike
				// also arrive together, so clusters may find them
				// crowded: the same delay, the same remedy.
				assert.Contains(t, []string{NameSpread, NameClusters}, r.Name, "a finding of the unjittered delay: %s", r.Detail)
				assert.Equal(t, UnjitteredDelay, r.Cause, r.Detail)
				assert.Equal(t, tt.remedy, r.Remedy, r.Detail)
				assert.NotEqual(t, NoJitter.Remedy(), r.Remedy)
			}
			assert.Contains(t, findings, NameSpread, "spread finds it")
		})
	}
}

// dialPause returns a client's retries as go-redis v9 makes them by
// default: a few command retries with full jitter over 8ms·2ⁿ, then a
// constant 100ms pause between dials, under a 1s cap.
func dialPause() kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 0x7465737420))
		return kit.FromIndex(func(i int) time.Duration {
			if i < 3 {
				return time.Duration(rng.Float64() * float64(8*time.Millisecond<<i))
			}
			return 100 * time.Millisecond
		})
	}
}

// TestCapPhaseTellsAPauseFromTheCap diagnoses later delays that every
// device waits alike: below the cap they are a pause without jitter, named
// with the delay and the cap; at the cap, the jitter is lost there.
func TestCapPhaseTellsAPauseFromTheCap(t *testing.T) {
	tests := []struct {
		name   string
		f      kit.Factory
		cfg    Config
		cause  Cause
		remedy string
	}{
		{"a constant 100ms pause under a 1s cap", dialPause(), Config{Cap: time.Second}, UnjitteredDelay,
			"Delays 4–32 are 100ms for every device, below the 1s cap: a constant pause with no jitter; draw each at random between 0 and 200ms (twice the pause, which keeps its mean), or the fleet's retries after them arrive together."},
		{"one pause under a 1s cap", func(d kit.Device) kit.Policy {
			rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 1))
			return kit.FromIndex(func(i int) time.Duration {
				if i == 5 {
					return 300 * time.Millisecond
				}
				return time.Duration(rng.Float64() * float64(min(time.Second, 100*time.Millisecond<<i)))
			})
		}, Config{Cap: time.Second}, UnjitteredDelay,
			"Delay 6 is 300ms for every device, below the 1s cap: a constant pause with no jitter; draw it at random between 0 and 600ms (twice the pause, which keeps its mean), or the fleet's retries after it arrive together."},
		{"a constant 700ms pause under a 1s cap", func(d kit.Device) kit.Policy {
			rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 1))
			return kit.FromIndex(func(i int) time.Duration {
				if i < 3 {
					return time.Duration(rng.Float64() * float64(8*time.Millisecond<<i))
				}
				return 700 * time.Millisecond
			})
		}, Config{Cap: time.Second}, UnjitteredDelay,
			"Delays 4–32 are 700ms for every device, below the 1s cap: a constant pause with no jitter; draw each at random between 0 and 1s (the cap), or the fleet's retries after them arrive together."},
		{"jitter lost at the cap", jittered(perDevice, vanishingAtCap), Config{}, JitterLostAtCap, JitterLostAtCap.Remedy()},
		{"jitter lost at the declared cap", jittered(perDevice, vanishingAtCap), Config{Cap: testCap}, JitterLostAtCap, JitterLostAtCap.Remedy()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			res := resultNamed(t, out, NameCapPhase)
			require.Equal(t, verdict.Fail, res.Status, res.Detail)
			assert.Equal(t, tt.cause, res.Cause, res.Detail)
			if tt.remedy != "" {
				assert.Equal(t, tt.remedy, res.Remedy)
			}
		})
	}
}

// startedAcrossASecond returns full jitter seeded from the clock's second,
// read as each device starts, as processes started one after another read
// it: the devices start a millisecond apart, the first 5ms before a
// second turns, so that five devices draw one sequence and the rest of
// the fleet another.
func startedAcrossASecond() kit.Factory {
	var started atomic.Int64
	return func(d kit.Device) kit.Policy {
		now := d.Boot.Add(995*time.Millisecond + time.Duration(started.Add(1))*time.Millisecond)
		rng := rand.New(rand.NewPCG(uint64(now.Unix()), 0))
		return kit.FromFunc(func(k int) time.Duration { return fullJitter(rng, k-1) })
	}
}

// TestClockSeedIsNamed diagnoses a policy seeded from the clock's second
// whose devices collapse onto one sequence but for a few: every finding
// names the clock, in the words the spec seed=clock gets, both when
// frozen-clock finds that the delays follow the clock and, for a program
// whose clock the kit cannot freeze, from the copies alone.
func TestClockSeedIsNamed(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"frozen-clock sees the clock", Config{}},
		{"an external program, whose clock is not frozen", Config{Source: kit.SourceExec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), startedAcrossASecond(), tt.cfg)
			failed := 0
			for _, r := range out.Results {
				if !r.Status.Finding() {
					continue
				}
				failed++
				assert.Equal(t, ClockSeed, r.Cause, "%s: %s", r.Name, r.Detail)
				assert.Equal(t, ClockSeed.Remedy(), r.Remedy, r.Name)
			}
			assert.GreaterOrEqual(t, failed, 3, "spread, clusters and cap-phase fail")
		})
	}
}

// processGenerator returns full jitter drawn from one generator that the
// whole process shares, seeded with seed as a runtime seeds it from the
// operating system: each process, with its own seed, draws other delays.
func processGenerator(seed uint64) kit.Factory {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	return func(kit.Device) kit.Policy {
		n := 0
		return kit.FromFunc(func(int) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			v := fullJitter(rng, n)
			n++
			return v
		})
	}
}

// TestProcessGeneratorGetsNoRemedy diagnoses reproducibility's finding on
// a generator seeded per process: declared, or evident from a second
// process that gives no device its delays again and a frozen clock at
// which the devices spread, it is named and given no remedy, which its
// user could not apply; a generator seeded alike in both processes, whose
// first device draws the same delays in each, or one whose clock the kit
// could not freeze, keeps the remedy of a shared generator.
func TestProcessGeneratorGetsNoRemedy(t *testing.T) {
	tests := []struct {
		name  string
		f     kit.Factory
		cfg   Config
		cause Cause
	}{
		{"declared", processGenerator(1), Config{ProcessSeeded: true}, ProcessGenerator},
		{"evident from a second process and a frozen clock", processGenerator(1), Config{Second: processGenerator(2)}, ProcessGenerator},
		{"one process, undeclared", processGenerator(1), Config{}, SharedGenerator},
		{"seeded alike in both processes", processGenerator(1), Config{Second: processGenerator(1)}, SharedGenerator},
		// An external program's clock is not frozen: its clock, read
		// once per process, is not ruled out.
		{"a second process but no frozen clock", processGenerator(1), Config{Second: processGenerator(2), Source: kit.SourceExec}, SharedGenerator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, tt.cfg)
			res := resultNamed(t, out, NameReproducibility)
			require.Equal(t, verdict.Warn, res.Status, res.Detail)
			assert.Equal(t, tt.cause, res.Cause, res.Detail)
			assert.Equal(t, tt.cause.Remedy(), res.Remedy)
			for _, r := range out.Results {
				if r.Name != NameReproducibility {
					assert.False(t, r.Status.Finding(), "%s: %s", r.Name, r.Detail)
				}
			}
		})
	}
	assert.Empty(t, ProcessGenerator.Remedy())
}
