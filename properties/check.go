package properties

import (
	"fmt"
	"testing"

	"github.com/jitterkit/jitterkit/internal/bubble"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Check runs the suite on the policy f makes and reports each check to t,
// as its own subtest named for the check, which judges the check: go test
// -run 'TestX/spread' judges spread alone, with what its verdict reads of
// other checks (the cause of devices in lockstep reads frozen-clock's; an
// inconclusive check reads whether another failed). What it does with a
// check's status:
//
//	pass          nothing
//	fail          t.Error with the detail, the counterexample, how to
//	              replay it and what to change
//	warn          t.Log (Config.RequireReproducible makes the
//	              reproducibility warning a fail)
//	inconclusive  t.Error when no check failed: too little evidence is
//	              never a pass; t.Skip beside a failure, which fails t
//	              already and is often why the check had nothing to judge
//	              (frozen-clock has no spread to collapse when spread
//	              failed)
//	skipped       t.Skip with why the check does not apply
//
// so that go test -v shows a check that judged nothing as SKIP, never as
// PASS. Inside a bubble, where the checks are no subtests, t.Log stands
// for t.Skip.
//
// A config that Validate refuses is t.Fatal, and a failure of the policy's
// source (Outcome.Err) t.Error. go test -short changes nothing: the checks
// gather the same evidence and reach the same verdicts in short mode.
//
// The frozen-clock check makes its devices inside a testing/synctest
// bubble, so a policy that seeds from time.Now is caught; a policy that is
// kit.FakeClocked, such as the loop adapter's (kit/loop), ran under a
// frozen clock of its own that started at its device's boot, so the check
// makes it outside the bubble, where that clock can run.
//
// Check may itself be called inside a bubble (bubbles do not nest): the
// frozen-clock check then uses the caller's; since a test inside a bubble
// cannot run subtests, each check is reported under its name instead; and
// since the bubble's clock is fake, no call is timed (CallTimeout is
// ignored): a call that blocks for ever deadlocks the bubble, which
// testing/synctest reports with every goroutine's stack. A policy that
// needs a bubble of its own, as the loop adapter's do, cannot be made
// there: its source says so, in Outcome.Err. rapid may write fail files
// under testdata/rapid/ when it is run with its own flags; the checks
// themselves turn them off.
func Check(t *testing.T, f kit.Factory, cfg Config) {
	t.Helper()
	b := newTestBubble(t)
	r, err := start(t.Context(), f, b.config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer r.cancel()
	r.frozen = b.run
	if err := sourceErrors(r.main); err != nil {
		t.Error(err)
	}
	for _, c := range r.suite {
		if b.nested {
			r.report(t, c.name, false)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Helper()
			b.t = t
			r.report(t, c.name, true)
		})
	}
}

// report judges the check named name and reports it to tb, the check's
// own subtest when sub is set. Only the checks
// tb's subtests run are judged, with the checks they read: a check's
// cause may read others' results, and an inconclusive check fails tb only
// when no check failed, which judges the others, in the suite's order,
// until one has.
func (r *runner) report(tb testing.TB, name string, sub bool) {
	tb.Helper()
	res := r.diagnosed(name)
	report(tb, res, res.Status == verdict.Inconclusive && r.anyFailed(), sub)
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
	t      *testing.T // the test, or the subtest that runs now
	nested bool       // the caller was already inside a bubble
}

// newTestBubble returns the bubble of t's test, finding out first whether
// the test already runs inside one: an empty bubble costs microseconds.
func newTestBubble(t *testing.T) *testBubble {
	b := &testBubble{t: t}
	b.nested = bubble.In(t)
	return b
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
	if b.nested || !bubble.Try(b.t, fn) {
		// The caller's clock is already a bubble's: run fn in it.
		fn()
	}
}

// report fails tb with r when r failed, or was inconclusive while no check
// failed (too little evidence is never a pass). A check that judged
// nothing otherwise (skipped, or inconclusive beside a failure) skips tb
// when skip is set, tb being the check's own subtest; a warning, and those
// when skip is not set, are logged.
func report(tb testing.TB, r Result, failed, skip bool) {
	tb.Helper()
	switch {
	case r.Status == verdict.Fail:
		tb.Error(message(r))
	case r.Status == verdict.Inconclusive && !failed:
		tb.Error(message(r))
	case skip && (r.Status == verdict.Skipped || r.Status == verdict.Inconclusive):
		tb.Skip(message(r))
	case r.Status != verdict.Pass:
		// A warning, a skipped check, or a check left inconclusive by
		// another's failure (frozen-clock has no spread to collapse when
		// spread failed): logged, while the failure fails the test.
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
