package properties

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// learner is a kit.Observer that backs off only on the failures it is
// told of: its n-th delay is 100ms·2ⁿ, n counting the rejections
// observed, so a reader that never calls Observe reads 100ms for ever.
type learner struct{ failures int }

func (l *learner) Next() (time.Duration, error) {
	return 100 * time.Millisecond << max(l.failures-1, 0), nil
}

func (l *learner) Observe(o kit.Outcome) {
	if o == kit.Rejection {
		l.failures++
	}
}

// TestARejectionBeforeEachDelay has the checks read an Observer as a
// replay drives it: each delay follows a rejection it was told of.
func TestARejectionBeforeEachDelay(t *testing.T) {
	f := func(kit.Device) kit.Policy { return &learner{} }
	s := collect(context.Background(), f, []string{"dev-1", "dev-2"}, boots{}, 5, Config{CallTimeout: time.Minute})
	require.Len(t, s.devices, 2)
	for _, d := range s.devices {
		assert.Nil(t, d.fault, d.id)
		assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond}, d.delays, d.id)
	}
}

// misobserving returns the full-jitter factory whose device bad, at its
// attempt-th Observe, does what fault does with its policy.
func misobserving(bad string, attempt int, fault func(p kit.Policy)) kit.Factory {
	full := jittered(perDevice, fullJitter)
	return func(d kit.Device) kit.Policy {
		p := &faultyObserver{Policy: full(d)}
		if d.ID == bad {
			p.at, p.fault = attempt, fault
		}
		return p
	}
}

// faultyObserver is an Observer that does nothing with what it observes,
// but fault at its at-th Observe.
type faultyObserver struct {
	kit.Policy
	n, at int
	fault func(kit.Policy)
}

func (p *faultyObserver) Observe(kit.Outcome) {
	if p.n++; p.n == p.at {
		p.fault(p.Policy)
	}
}

// Observe is a call of the policy's as Next is: a panic, a call that
// never returns, or one that ends its goroutine is the device's defect,
// named with its device, its attempt and the call, and the other devices
// are read and judged.
func TestAnObserveThatFails(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	cases := []struct {
		name  string
		fault func(kit.Policy)
		want  string
	}{
		{"panics", func(kit.Policy) { panic("boom") }, `device "dev-100017" attempt 2: Observe(rejection) panicked: boom, the only device of 1000; want every delay finite and ≥ 0`},
		{"blocks", func(kit.Policy) { <-block }, `device "dev-100017" attempt 2: Observe(rejection) did not return within 1s, the only device of 1000; want every delay finite and ≥ 0`},
		{"ends its goroutine", func(kit.Policy) { runtime.Goexit() }, `device "dev-100017" attempt 2: Observe(rejection) ended its goroutine instead of returning (runtime.Goexit, which t.FailNow and t.SkipNow call), the only device of 1000; want every delay finite and ≥ 0`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := misobserving("dev-100017", 2, c.fault)
			out := mustRun(t, context.Background(), f, Config{IDs: serials(1000), CallTimeout: time.Second})
			got := statuses(out)
			b := resultNamed(t, out, NameBounds)
			require.Equal(t, verdict.Fail, b.Status, NameBounds)
			assert.Equal(t, c.want, b.Detail, "bounds detail")
			assert.Equal(t, verdict.Pass, got[NameSpread], "spread, on the 999 devices that answered")
			assert.Len(t, out.EarlyDelays[0], 999, "EarlyDelays[0]")
		})
	}
}

// An Observe that calls its own policy's Next takes a delay the reader
// never sees: the checks read what is left, every other delay, and judge
// it; nothing hangs or crashes.
func TestAnObserveThatCallsNext(t *testing.T) {
	f := func(d kit.Device) kit.Policy {
		p := &faultyObserver{Policy: jittered(perDevice, fullJitter)(d)}
		p.at, p.fault = 1, func(p kit.Policy) { p.Next() }
		return &everyObserve{p}
	}
	out := mustRun(t, context.Background(), f, Config{CallTimeout: time.Second})
	assert.NoError(t, out.Err)
	assert.Equal(t, verdict.Pass, statuses(out)[NameBounds])
}

// everyObserve is a faultyObserver that faults at every Observe.
type everyObserve struct{ *faultyObserver }

func (p *everyObserve) Observe(kit.Outcome) { p.fault(p.Policy) }

// Check, as go test runs it, fails its test with the Observe's defect.
func TestCheckNamesAnObserveThatPanics(t *testing.T) {
	f := misobserving("dev-100017", 3, func(kit.Policy) { panic("boom") })
	if kittest.InChild(t) {
		Check(t, f, Config{IDs: serials(1000)})
		return
	}
	out, failed := kittest.RunChild(t)
	assert.True(t, failed, out)
	assert.Contains(t, out, `device "dev-100017" attempt 3: Observe(rejection) panicked: boom`)
	assert.NotContains(t, out, "panic: boom")
}

// The frozen-clock check reads its devices inside a testing/synctest
// bubble, as Check runs it: a call that ends its goroutine there, in Next
// or in Observe, is the device's defect, not the end of the test.
func TestGoexitUnderTheFrozenClock(t *testing.T) {
	for _, c := range []struct {
		name string
		f    kit.Factory
		want string
	}{
		{"Next", faulty("dev-100017", 2, func() (time.Duration, error) { runtime.Goexit(); return 0, nil }),
			`device "dev-100017" attempt 2: Next ended its goroutine instead of returning`},
		{"Observe", misobserving("dev-100017", 2, func(kit.Policy) { runtime.Goexit() }),
			`device "dev-100017" attempt 2: Observe(rejection) ended its goroutine instead of returning`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := RunFrozen(t, c.f, Config{IDs: serials(1000), CallTimeout: time.Minute})
			require.NoError(t, err)
			b := resultNamed(t, out, NameBounds)
			require.Equal(t, verdict.Fail, b.Status, NameBounds)
			assert.Contains(t, b.Detail, c.want, "bounds detail")
			fc := resultNamed(t, out, NameFrozenClock)
			assert.Equal(t, verdict.Pass, fc.Status, "frozen-clock, on the other devices: %s", fc.Detail)
		})
	}
}
