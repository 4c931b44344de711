package properties

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Check runs the suite on the policy f makes and fails t for every check
// that fails. Each check runs as its own subtest, named for the check; a
// failure prints the check's detail, its counterexample and how to replay
// it; a warning, an inconclusive check and a skipped one are logged, and an
// inconclusive check fails t too: the suite did not gather the evidence it
// was asked for. The frozen-clock check makes its devices inside a
// testing/synctest bubble, so a policy that seeds from time.Now is caught;
// a policy that is kit.FakeClocked, such as the loop adapter's
// (kit/loop), ran under a frozen clock of its own that started at its
// device's boot, so the check makes it outside the bubble, where that
// clock can run.
//
// Check may itself be called inside a bubble (bubbles do not nest): the
// frozen-clock check then uses the caller's; since a test inside a bubble
// cannot run subtests, each check is reported under its name instead; and
// since the bubble's clock is fake, no call is timed (CallTimeout is
// ignored): a call that blocks for ever deadlocks the bubble, which
// testing/synctest reports with every goroutine's stack. A policy that
// needs a bubble of its own, as the loop adapter's do, cannot be made
// there: its source says so, in Outcome.Err. A config that Validate
// refuses is a fatal error of t, and a
// failure of the policy's source (Outcome.Err) an error of t. rapid may
// write fail files under testdata/rapid/ when it is run with its own flags;
// the checks themselves turn them off.
func Check(t *testing.T, f kit.Factory, cfg Config) {
	t.Helper()
	b := newTestBubble(t)
	out, err := run(t.Context(), f, b.config(cfg), b.run)
	if err != nil {
		t.Fatal(err)
	}
	if out.Err != nil {
		t.Error(out.Err)
	}
	for _, r := range out.Results {
		if b.nested {
			report(t, r)
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Helper()
			report(t, r)
		})
	}
}

// RunFrozen is Run as Check runs it: the frozen-clock check makes its
// devices inside a testing/synctest bubble (the caller's, when it is called
// inside one), where time.Now stands still while goroutines run, except
// for kit.FakeClocked policies, whose own clocks are frozen already. It returns
// the outcome and leaves t alone, for tests that assert on the verdicts
// themselves.
func RunFrozen(t *testing.T, f kit.Factory, cfg Config) (Outcome, error) {
	b := newTestBubble(t)
	return run(t.Context(), f, b.config(cfg), b.run)
}

// A testBubble runs the frozen-clock check's devices inside a
// testing/synctest bubble of t's, or inside the caller's bubble when t's
// test already runs in one.
type testBubble struct {
	t      *testing.T
	nested bool // the caller was already inside a bubble
}

// nestedPanic is what synctest.Test panics with when it is called inside a
// bubble, before it does anything else.
const nestedPanic = "synctest.Run called from within a synctest bubble"

// newTestBubble returns the bubble of t's test, finding out first whether
// the test already runs inside one: an empty bubble costs microseconds.
func newTestBubble(t *testing.T) *testBubble {
	b := &testBubble{t: t}
	b.nested = !b.try(func() {})
	return b
}

// try runs fn in a new bubble and reports whether it could: false when the
// caller is inside a bubble already, and fn has not run.
func (b *testBubble) try(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if fmt.Sprint(r) != nestedPanic {
				panic(r)
			}
			ok = false
		}
	}()
	synctest.Test(b.t, func(*testing.T) { fn() })
	return true
}

// config returns cfg as a run inside the bubble takes it: a caller's bubble
// has a fake clock, on which a policy that sleeps would look hung, so no
// call is timed there.
func (b *testBubble) config(cfg Config) Config {
	if b.nested {
		cfg.CallTimeout = -1
	}
	return cfg
}

func (b *testBubble) run(fn func()) {
	if b.nested || !b.try(fn) {
		// The caller's clock is already a bubble's: run fn in it.
		fn()
	}
}

// report fails tb with r when r failed or was inconclusive, and logs it
// when it warned or was skipped.
func report(tb testing.TB, r Result) {
	tb.Helper()
	switch r.Status {
	case verdict.Fail, verdict.Inconclusive:
		tb.Error(message(r))
	case verdict.Warn, verdict.Skipped:
		tb.Log(message(r))
	}
}

// message is how a check that did not simply pass reads in a test log: the
// name and detail on one line, then the counterexample.
func message(r Result) string {
	msg := fmt.Sprintf("%s: %s", r.Name, r.Detail)
	if r.Status != verdict.Fail {
		msg = fmt.Sprintf("%s (%s): %s", r.Name, r.Status, r.Detail)
	}
	if r.Counterexample != nil {
		msg += "\n" + r.Counterexample.String()
	}
	if r.Remedy != "" {
		if r.Counterexample == nil {
			msg += "\n"
		}
		msg += "\twhat to change: " + r.Remedy + "\n"
	}
	return msg
}
