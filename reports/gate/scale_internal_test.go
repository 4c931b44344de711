package gate

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestBaseFor holds each built-in strategy, at the base baseFor gives it,
// to first delays of the mean asked for, when the cap lets it draw that
// mean: drawn from 100,000 devices, the
// mean is within 1% of it (the first delay's standard deviation is at most
// its mean, so the standard error is at most 0.3% of it, and the base is
// rounded to three digits).
func TestBaseFor(t *testing.T) {
	tests := []struct {
		mean, cap time.Duration
	}{
		{500 * time.Millisecond, 10 * time.Second},
		{50 * time.Millisecond, 10 * time.Second},
		{3 * time.Second, 5 * time.Second}, // decorrelated's draws reach the cap
		{7 * time.Second, 10 * time.Second},
	}
	for _, tt := range tests {
		for _, st := range kit.Strategies() {
			s := kit.Spec{Strategy: st, Base: baseFor(st, tt.mean, tt.cap), Cap: tt.cap}
			// The most a strategy's first delays average, at a base of
			// the cap.
			reach := map[kit.Strategy]float64{kit.None: 1, kit.Full: 0.5, kit.Equal: 0.75, kit.Decorrelated: 1}[st] * tt.cap.Seconds()
			if tt.mean.Seconds() > reach {
				assert.Equal(t, tt.cap, s.Base, "%s: a mean beyond reach takes a base of the cap", st)
				continue
			}
			f := s.Factory()
			const n = 100_000
			var sum float64
			for i := range n {
				d, err := f(kit.Device{ID: fmt.Sprintf("dev-%07d", i)}).Next()
				require.NoError(t, err)
				sum += d.Seconds()
			}
			assert.InEpsilon(t, tt.mean.Seconds(), sum/n, 0.01, "%s: mean first delay", s)
		}
	}
	assert.Equal(t, 10*time.Second, baseFor(kit.None, time.Minute, 10*time.Second), "a mean beyond the cap takes the cap")
	assert.Equal(t, time.Millisecond, baseFor(kit.Full, 0, 10*time.Second), "a base is at least a millisecond")
}

// TestBuiltinScale reads a policy's scale from the first delays its
// checked devices drew and its declared cap, and says so in the note.
func TestBuiltinScale(t *testing.T) {
	rep := reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1, DelaysS: []float64{0.5, 1.5}}, {Attempt: 2, DelaysS: []float64{3, 12}}}}
	g := &gate{}
	sc := g.builtinScale(rep, sim.Outage)
	assert.Equal(t, time.Second, sc.mean)
	assert.Equal(t, 12*time.Second, sc.cap, "without a declared cap, the largest delay drawn when over the default")
	assert.Equal(t, "full:base=2s,cap=12s", sc.spec(kit.Full).String())
	assert.Contains(t, sc.String(), "the first delays average 1s, as the policy's do, and the cap is 12s, the largest delay the policy drew")

	g.cfg.Checks.Cap = 30 * time.Second
	sc = g.builtinScale(rep, sim.Outage)
	assert.Equal(t, 30*time.Second, sc.cap)
	assert.Contains(t, sc.String(), "the cap is 30s, the policy's declared cap")

	// A policy that stops after its first delay reaches no later attempt.
	once := reports.Report{EarlyDelays: []reports.AttemptDelays{{Attempt: 1, DelaysS: []float64{20, 40}}, {Attempt: 2}, {Attempt: 3}}}
	sc = (&gate{}).builtinScale(once, sim.Outage)
	assert.Equal(t, 30*time.Second, sc.mean)
	assert.Equal(t, 40*time.Second, sc.cap, "the largest first delay")

	sc = (&gate{}).builtinScale(reports.Report{}, sim.Storm)
	assert.Equal(t, "none:base=1s,cap=30s", sc.spec(kit.None).String(), "unmeasured, a storm's defaults")
	assert.Contains(t, sc.String(), "the policy's first delays were not measured")
}

// TestScaledCap bounds every delay of a policy within a cap, multiplied by
// k as Scale multiplies it, by the cap scaledCap returns.
func TestScaledCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		limit := time.Duration(rng.Int64N(int64(time.Hour))) + 1
		k := roundFactor(1 + rng.Float64()*500)
		d := limit
		if rng.IntN(2) == 0 {
			d = time.Duration(rng.Int64N(int64(limit)))
		}
		got, err := kit.Seconds(d.Seconds() * k)
		require.NoError(t, err)
		c := scaledCap(limit, k)
		require.LessOrEqual(t, got, c, "delay %v of a cap of %v times %v", d, limit, k)
		require.Less(t, c-time.Duration(float64(limit)*k), time.Second+time.Microsecond, "the cap is rounded up by less than a second")
	}
	assert.Equal(t, 36*time.Minute, scaledCap(10*time.Second, 216))
	assert.Zero(t, scaledCap(0, 3), "no declared cap")
}

// TestHoldsRuns checks the runs and the bound that judge a change on other
// seeds: with none of the runs over the threshold, a gate of r runs fails
// again with a probability of at most otherSeedFail; with half of them
// over, it is refused; mostOver is the count where the one turns into the
// other.
func TestHoldsRuns(t *testing.T) {
	for _, r := range []int{1, 3, 5, 20, 100} {
		n := holdsRuns(r)
		assert.GreaterOrEqual(t, n, 2*min(r, holdsMaxRuns/2), "runs for a gate of %d", r)
		assert.LessOrEqual(t, failsAgain(r, shareBound(0, n)), otherSeedFail, "a gate of %d runs, none of %d over", r, n)
		assert.Greater(t, failsAgain(r, shareBound(n/2, n)), otherSeedFail, "a gate of %d runs, half of %d over", r, n)
		// mostOver is where the rule turns: every count up to it holds,
		// every count past it does not.
		m := mostOver(r, n)
		for k := 0; k <= n; k++ {
			assert.Equal(t, k <= m, failsAgain(r, shareBound(k, n)) <= otherSeedFail, "a gate of %d runs, %d of %d over", r, k, n)
		}
	}
	// The one-sided 95% bound on a share seen 0 times in n is 1-0.05^(1/n).
	assert.InDelta(t, 0.0722, shareBound(0, 40), 1e-4)
	assert.InDelta(t, 10*0.1*0.1*0.1*0.9*0.9+5*0.1*0.1*0.1*0.1*0.9+0.1*0.1*0.1*0.1*0.1, failsAgain(5, 0.1), 1e-12)
}

// resetOnSuccess waits 1s, 2s, 4s… after failures and starts over after a
// success: a policy whose delays depend on what it observes.
type resetOnSuccess struct{ n int }

func (p *resetOnSuccess) Next() (time.Duration, error) {
	p.n++
	return time.Duration(1<<(p.n-1)) * time.Second, nil
}

func (p *resetOnSuccess) Observe(o kit.Outcome) {
	if o == kit.Success {
		p.n = 0
	}
}

// TestScaleKeepsObserve scales a policy that observes its outcomes: the
// scaled policy observes them too, so that a change the fix search
// replays behaves as the user's policy does, and a policy that observes
// nothing stays one that does not.
func TestScaleKeepsObserve(t *testing.T) {
	p := Scale(func(kit.Device) kit.Policy { return &resetOnSuccess{} }, 2)(kit.Device{ID: "dev-1"})
	o, ok := p.(kit.Observer)
	require.True(t, ok, "the scaled policy of an Observer is an Observer")
	var got []time.Duration
	for _, out := range []kit.Outcome{kit.Rejection, kit.Rejection, kit.Success, kit.Rejection} {
		o.Observe(out)
		if out == kit.Success {
			continue
		}
		d, err := p.Next()
		require.NoError(t, err)
		got = append(got, d)
	}
	assert.Equal(t, []time.Duration{2 * time.Second, 4 * time.Second, 2 * time.Second}, got, "delays scaled by 2, started over after the success")

	plain := Scale(func(kit.Device) kit.Policy { return constant{} }, 2)(kit.Device{ID: "dev-1"})
	_, ok = plain.(kit.Observer)
	assert.False(t, ok, "the scaled policy of a policy that observes nothing observes nothing")
}

// constant waits 1s before every retry and observes nothing.
type constant struct{}

func (constant) Next() (time.Duration, error) { return time.Second, nil }
