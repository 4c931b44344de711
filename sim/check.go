package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Check replays s with the policies f makes and fails t when the median
// peak ratio is over the scenario's threshold, when there is too little
// to judge (Inconclusive: no retry arrived in the median run, or fewer
// than MinRunsToPass runs), or when the replay cannot run; the message
// carries the figures (see [Result.Detail]). A warning is logged with what
// it warns of (see [Result.Warnings]). It returns the result for further
// checks.
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
		if n := len(r.Runs); n < MinRunsToPass {
			runs := "runs"
			if n == 1 {
				runs = "run"
			}
			t.Errorf("sim.Check: %d %s cannot pass: one fleet's peak is no interval; want at least %d runs: %s", n, runs, MinRunsToPass, r.Detail())
			break
		}
		t.Errorf("sim.Check: no retry arrived within the %v horizon in the median run, so there is nothing to judge: %s", r.Scenario.Horizon, r.Detail())
	case verdict.Warn:
		w := make([]string, 0, 3)
		for _, x := range r.Warnings() {
			w = append(w, x.String())
		}
		t.Logf("sim.Check: warning (%s): %s", strings.Join(w, ", "), r.Detail())
	}
	return r
}
