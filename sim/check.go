package sim

import (
	"context"
	"testing"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Check replays s with the policies f makes and fails t when the median
// peak ratio is over the scenario's threshold, when no retry arrived to
// judge (Inconclusive), or when the replay cannot run; the message carries
// the figures (see [Result.Detail]). A warning is logged. It returns the
// result for further checks.
func Check(t testing.TB, f kit.Factory, s Scenario, cfg Config) Result {
	t.Helper()
	r, err := Replay(context.Background(), f, s, cfg)
	if err != nil {
		t.Errorf("sim.Check: %v", err)
		return r
	}
	switch r.Status() {
	case verdict.Fail:
		t.Errorf("sim.Check: %s", r.Detail())
	case verdict.Inconclusive:
		t.Errorf("sim.Check: no retry arrived within the %v horizon in any run, so there is nothing to judge: %s", r.Scenario.Horizon, r.Detail())
	case verdict.Warn:
		t.Logf("sim.Check: warning: %s", r.Detail())
	}
	return r
}
