package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
)

// TestGoodputCountsTheRequestsOfferedAfterTheTrigger pins goodput's
// definition: of the requests offered from the dip's end on, the share
// that succeeded. A backlog offered during the dip and answered after it
// took the old ratio, the successes after the dip over the requests
// offered after it, over 1.
func TestGoodputCountsTheRequestsOfferedAfterTheTrigger(t *testing.T) {
	o := Scenario{Kind: Overload, Clients: 200, Rate: 100, AcceptRate: 200, DipFor: 2 * time.Second, Horizon: 40 * time.Second}.WithDefaults().overload()
	e, err := newOverloadEngine(o, kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory())
	require.NoError(t, err)
	r, err := e.replay(0, 1)
	require.NoError(t, err)
	after := 0
	for s := int((o.DipStart + o.DipLength + time.Second - 1) / time.Second); s < len(r.Series.Successes); s++ {
		after += r.Series.Successes[s]
	}
	require.Greater(t, after, r.RequestsAfterTrigger, "the fixture answers a backlog after the dip")
	assert.LessOrEqual(t, r.SuccessesAfterTrigger, r.RequestsAfterTrigger)
	assert.InDelta(t, float64(r.SuccessesAfterTrigger)/float64(r.RequestsAfterTrigger), r.GoodputAfterTrigger, 1e-12)
	assert.LessOrEqual(t, r.GoodputAfterTrigger, 1.0)
}

// TestGoodputIsAShare holds goodput within [0, 1] in every run of random
// overloads and reconnects.
func TestGoodputIsAShare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f, s := drawServerScenario(t)
		res, err := Replay(t.Context(), f, s, Config{Runs: 2, Seed: rapid.Uint64Range(1, 1<<40).Draw(t, "seed"), Resamples: 50})
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		for i, run := range res.Runs {
			if run.Goodput < 0 || run.Goodput > 1 {
				t.Fatalf("run %d: goodput %v, want within [0, 1]", i, run.Goodput)
			}
		}
	})
}

// drawServerScenario draws a policy and a random overload or reconnect.
func drawServerScenario(t *rapid.T) (kit.Factory, Scenario) {
	specs := []kit.Spec{
		{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second},
		{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second},
		{Strategy: kit.Decorrelated, Base: time.Second, Cap: time.Minute},
	}
	f := specs[rapid.IntRange(0, len(specs)-1).Draw(t, "spec")].Factory()
	var s Scenario
	if rapid.Bool().Draw(t, "reconnect") {
		s = Scenario{Kind: Reconnect, Clients: rapid.IntRange(10, 400).Draw(t, "clients"),
			Down:    time.Duration(rapid.IntRange(1, 5).Draw(t, "down")) * time.Second,
			CPU:     float64(rapid.IntRange(100, 3000).Draw(t, "cpu")),
			WarmUp:  float64(rapid.IntRange(0, 5000).Draw(t, "warm-up")),
			Horizon: time.Duration(rapid.IntRange(20, 40).Draw(t, "horizon")) * time.Second}
	} else {
		s = Scenario{Kind: Overload, Clients: rapid.IntRange(10, 400).Draw(t, "clients"),
			Rate:       float64(rapid.IntRange(50, 200).Draw(t, "rate")),
			AcceptRate: float64(rapid.IntRange(250, 400).Draw(t, "accept-rate")),
			Timeout:    time.Duration(rapid.IntRange(100, 3000).Draw(t, "timeout-ms")) * time.Millisecond,
			DipFor:     time.Duration(rapid.IntRange(100, 6000).Draw(t, "dip-for-ms")) * time.Millisecond,
			QueueLimit: rapid.IntRange(0, 300).Draw(t, "queue-limit"),
			Horizon:    time.Duration(rapid.IntRange(50, 70).Draw(t, "horizon")) * time.Second}
	}
	return f, s
}

// TestRecoveryShareIsAShare holds the share of failures of every recovery
// window within [0, 1] in every run of random overloads and reconnects:
// the failures a window's clients learned, over the outcomes they learned
// in it. The failures over the attempts sent in a window exceed 1 when
// timeouts and drops are learned after the window that sent them.
func TestRecoveryShareIsAShare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f, s := drawServerScenario(t)
		res, err := Replay(t.Context(), f, s, Config{Runs: 2, Seed: rapid.Uint64Range(1, 1<<40).Draw(t, "seed"), Resamples: 50})
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		judged := 0
		for i, run := range res.Runs {
			windows := s.RecoveryWindows(run.Series) // none when the run kept no series
			judged += len(windows)
			for _, w := range windows {
				share := w.Share()
				if share < 0 || share > 1 {
					t.Fatalf("run %d, window %ds–%ds: %d failures, %d successes, share %v, want within [0, 1]", i, w.From, w.To, w.Failures, w.Successes, share)
				}
				if w.Within() != (share <= 0.01) {
					t.Fatalf("run %d, window %ds–%ds: share %v, within %v", i, w.From, w.To, share, w.Within())
				}
			}
		}
		if judged == 0 {
			t.Fatalf("no run has a recovery window")
		}
	})
}
