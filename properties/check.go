package properties

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/jitterkit/jitterkit/kit"
)

// Check runs the suite on the policy f makes and fails t for every check
// that fails. Each check runs as its own subtest, named for the check; a
// failure prints the check's detail, its counterexample and how to replay
// it, and a warning is logged. The frozen-clock check makes the devices
// inside a testing/synctest bubble, so a policy that seeds from time.Now is
// caught. The bubble's devices are read only when every device of the run
// answered in time, and without a watch for hangs: a call blocked inside a
// bubble cannot be left behind.
//
// Check reports a failure of the policy's source (Outcome.Err) as an error
// of t itself. rapid may write fail files under testdata/rapid/ when it is
// run with its own flags; the checks themselves turn them off.
func Check(t *testing.T, f kit.Factory, cfg Config) {
	t.Helper()
	out := RunFrozen(t, f, cfg)
	if out.Err != nil {
		t.Error(out.Err)
	}
	for _, r := range out.Results {
		t.Run(r.Name, func(t *testing.T) {
			t.Helper()
			report(t, r)
		})
	}
}

// RunFrozen is Run as Check runs it: the frozen-clock check makes its
// devices inside a testing/synctest bubble, where every call to time.Now
// returns one instant. It returns the outcome and leaves t alone, for tests
// that assert on the verdicts themselves.
func RunFrozen(t *testing.T, f kit.Factory, cfg Config) Outcome {
	return run(t.Context(), f, cfg, synctestBubble(t))
}

// synctestBubble returns the bubble that runs fn inside testing/synctest,
// reporting to t.
func synctestBubble(t *testing.T) bubble {
	return func(fn func()) bool {
		synctest.Test(t, func(*testing.T) { fn() })
		return true
	}
}

// report fails tb with r when r failed, and logs it when r warned.
func report(tb testing.TB, r Result) {
	tb.Helper()
	switch r.Status {
	case Fail:
		tb.Error(message(r))
	case Warn:
		tb.Log(message(r))
	}
}

// message is how a failing or warning check reads in a test log: the name
// and detail on one line, then the counterexample.
func message(r Result) string {
	msg := fmt.Sprintf("%s: %s", r.Name, r.Detail)
	if r.Status == Warn {
		msg = fmt.Sprintf("%s (warning): %s", r.Name, r.Detail)
	}
	if r.Counterexample != nil {
		msg += "\n" + r.Counterexample.String()
	}
	return msg
}
